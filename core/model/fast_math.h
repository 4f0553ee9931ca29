#pragma once
// Halide's own polynomial approximations of log and exp (IROperator.cpp:
// fast_log, halide_log, halide_exp). The cost model uses them instead of libm:
// fast_log for the schedule-feature normalisation, halide_exp for the sigmoid
// of head1_filter, and exp(log(b) * t) for the pow() of ADAM's bias
// corrections. Matching them keeps the network's inputs within an ulp or two of
// Halide's instead of libm's slightly different values.
//
// Scalar reference versions; network_kernel_avx2.cpp has a vector fastLog that
// performs the same operations lane by lane.

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace beamscope::model {

namespace detail {
// Splits x (> 0, finite) into reduced * 2^exponent with reduced in [0.75, 1.5):
// the mantissa keeps its bits, and the exponent field is chosen from the top
// mantissa bit so that mantissas above 1.5 are halved.
inline float reduceForLog(float x, int32_t &exponent)
{
    const int32_t bits = std::bit_cast<int32_t>(x);
    const int32_t mantissaAndSign = bits & static_cast<int32_t>(0x807fffff);
    const int32_t newBiasedExponent = 127 - (mantissaAndSign >> 22);
    exponent = (bits >> 23) - newBiasedExponent;
    return std::bit_cast<float>(mantissaAndSign | (newBiasedExponent << 23));
}

constexpr float kLog2 = 0.693147182f; // logf(2.0f)
} // namespace detail

// Halide's fast_log (a degree-7 polynomial in the reduced mantissa). Valid for
// finite x > 0; the cost model only feeds it feature + 1 >= 1.
inline float fastLog(float x)
{
    int32_t exponent = 0;
    const float x1 = detail::reduceForLog(x, exponent) - 1.0f;
    const float x2 = x1 * x1;
    // Even and odd halves of the polynomial, highest coefficient first.
    float even = 0.07640318789187280912f;
    even = even * x2 + 0.20625219040645212387f;
    even = even * x2 + 0.33320464908377461777f;
    even = even * x2 + 1.0f;
    float odd = -0.16252961013874300811f;
    odd = odd * x2 - 0.25110261010892864775f;
    odd = odd * x2 - 0.49997513376789826101f;
    odd = odd * x2; // the constant coefficient is 0
    const float poly = even * x1 + odd;
    return poly + static_cast<float>(exponent) * detail::kLog2;
}

// Halide's halide_log (degree 9): used only for pow() in the ADAM step.
inline float halideLog(float x)
{
    if (x < 0.0f)
        return std::numeric_limits<float>::quiet_NaN();
    if (x == 0.0f)
        return -std::numeric_limits<float>::infinity();
    int32_t exponent = 0;
    const float x1 = detail::reduceForLog(x, exponent) - 1.0f;
    const float x2 = x1 * x1;
    float even = 0.05111976432738144643f;
    even = even * x2 + 0.14971993724699017569f;
    even = even * x2 + 0.19980668101718729313f;
    even = even * x2 + 0.33333435275479328386f;
    even = even * x2 + 1.0f;
    float odd = -0.11793923497136414580f;
    odd = odd * x2 - 0.16862004708254804686f;
    odd = odd * x2 - 0.24991211576292837737f;
    odd = odd * x2 - 0.50000106292873236491f;
    odd = odd * x2; // constant coefficient 0
    const float poly = even * x1 + odd;
    return poly + static_cast<float>(exponent) * detail::kLog2;
}

// Halide's halide_exp: x = k ln2 + r with a two-part ln2, a degree-7
// polynomial in r, and 2^k written straight into the exponent bits.
inline float halideExp(float x)
{
    const float ln2Part1 = 0.6931457519f;
    const float ln2Part2 = 1.4286067653e-6f;
    const float oneOverLn2 = 1.0f / detail::kLog2;
    const float kReal = std::floor(x * oneOverLn2);
    // Out-of-range k saturates to inf / 0 below; clamp first so the int
    // conversion is defined.
    const float kClamped = std::fmin(std::fmax(kReal, -200.0f), 200.0f);
    const int32_t k = static_cast<int32_t>(kClamped);
    float r = x - kReal * ln2Part1;
    r -= kReal * ln2Part2;
    const float r2 = r * r;
    float even = 0.00031965933071842413f;
    even = even * r2 + 0.00848988645943932717f;
    even = even * r2 + 0.16667983794100929562f;
    even = even * r2 + 1.0f;
    float odd = 0.00119156835564003744f;
    odd = odd * r2 + 0.04160188091348320655f;
    odd = odd * r2 + 0.49999899033463041098f;
    odd = odd * r2 + 1.0f;
    float result = even * r + odd;
    const int32_t biased = k + 127;
    if (biased >= 255)
        return std::numeric_limits<float>::infinity();
    if (biased <= 0)
        return 0.0f;
    return result * std::bit_cast<float>(biased << 23);
}

// Halide lowers pow(b, e) for a positive float b to exp(log(b) * e) with the
// polynomials above.
inline float halidePow(float base, float exponent) { return halideExp(halideLog(base) * exponent); }

// The sigmoid that squashes head1_filter, with Halide's exp.
inline float halideSigmoid(float w) { return 1.0f / (1.0f + halideExp(-w)); }

// The network's activation: leaky relu with slope 1e-10 below zero.
inline float leaky(float e) { return std::fmax(e, 0.0f) + std::fmin(e, 0.0f) * 1e-10f; }

} // namespace beamscope::model
