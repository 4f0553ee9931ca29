// The AVX2+FMA network kernel. Only this file is compiled for AVX2 (a target
// pragma after all standard headers, so no inline library code is built for
// AVX2 and picked by the linker for the rest of the program); it is called
// only when the CPU reports AVX2 and FMA.

#include "core/model/network_kernel.h"

#if defined(__x86_64__) || defined(__i386__)

#include <cstdint>
#include <cstring>

#pragma GCC push_options
#pragma GCC target("avx2,fma")
#include <immintrin.h>

namespace beamscope::model {

namespace {

constexpr int kFeatures = 73;
constexpr int kPadded = KernelWeights::kPaddedFeatures;

// fast_log of 8 lanes, the operations of fastLog() (fast_math.h) with FMA.
inline __m256 fastLog8(__m256 x) {
    const __m256i bits = _mm256_castps_si256(x);
    const __m256i mantissa = _mm256_and_si256(bits, _mm256_set1_epi32(static_cast<int32_t>(0x807fffff)));
    const __m256i newBiased = _mm256_sub_epi32(_mm256_set1_epi32(127), _mm256_srai_epi32(mantissa, 22));
    const __m256i exponent = _mm256_sub_epi32(_mm256_srai_epi32(bits, 23), newBiased);
    const __m256 reduced = _mm256_castsi256_ps(_mm256_or_si256(mantissa, _mm256_slli_epi32(newBiased, 23)));
    const __m256 x1 = _mm256_sub_ps(reduced, _mm256_set1_ps(1.0f));
    const __m256 x2 = _mm256_mul_ps(x1, x1);
    __m256 even = _mm256_set1_ps(0.07640318789187280912f);
    even = _mm256_fmadd_ps(even, x2, _mm256_set1_ps(0.20625219040645212387f));
    even = _mm256_fmadd_ps(even, x2, _mm256_set1_ps(0.33320464908377461777f));
    even = _mm256_fmadd_ps(even, x2, _mm256_set1_ps(1.0f));
    __m256 odd = _mm256_set1_ps(-0.16252961013874300811f);
    odd = _mm256_fmadd_ps(odd, x2, _mm256_set1_ps(-0.25110261010892864775f));
    odd = _mm256_fmadd_ps(odd, x2, _mm256_set1_ps(-0.49997513376789826101f));
    odd = _mm256_mul_ps(odd, x2);
    const __m256 poly = _mm256_fmadd_ps(even, x1, odd);
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(exponent), _mm256_set1_ps(0.693147182f), poly);
}

inline __m256 leaky8(__m256 e) {
    const __m256 zero = _mm256_setzero_ps();
    return _mm256_fmadd_ps(_mm256_min_ps(e, zero), _mm256_set1_ps(1e-10f), _mm256_max_ps(e, zero));
}

} // namespace

void networkKernelAvx2(const KernelWeights &w, const float *features, const float *stage1, float *conv1,
                       float *relu1) {
    alignas(32) float normalized[kPadded];
    {
        alignas(32) float raw[kPadded];
        std::memcpy(raw, features, kFeatures * sizeof(float));
        std::memset(raw + kFeatures, 0, (kPadded - kFeatures) * sizeof(float));
        const __m256 one = _mm256_set1_ps(1.0f);
        for (int i = 0; i < kPadded; i += 8)
            _mm256_store_ps(normalized + i, fastLog8(_mm256_add_ps(_mm256_load_ps(raw + i), one)));
    }

    // head2: 24 channels = 3 vectors, bias first, then one FMA per feature in
    // feature order: the order of Halide's compiled model, so the rounding
    // matches it closely.
    __m256 acc[3];
    for (int j = 0; j < 3; ++j)
        acc[j] = _mm256_loadu_ps(w.head2Bias + 8 * j);
    for (int c = 0; c < kFeatures; ++c) {
        const __m256 x = _mm256_broadcast_ss(normalized + c);
        const float *row = w.head2Filter + c * 24;
        for (int j = 0; j < 3; ++j)
            acc[j] = _mm256_fmadd_ps(_mm256_loadu_ps(row + 8 * j), x, acc[j]);
    }
    alignas(32) float head2[24];
    for (int j = 0; j < 3; ++j)
        _mm256_store_ps(head2 + 8 * j, leaky8(acc[j]));

    // conv1, head2 half: 32 channels = 4 vectors, same order rule.
    __m256 conv[4];
    for (int j = 0; j < 4; ++j)
        conv[j] = _mm256_loadu_ps(stage1 + 8 * j);
    for (int k = 0; k < 24; ++k) {
        const __m256 x = _mm256_broadcast_ss(head2 + k);
        const float *row = w.conv1Head2Filter + k * 32;
        for (int j = 0; j < 4; ++j)
            conv[j] = _mm256_fmadd_ps(_mm256_loadu_ps(row + 8 * j), x, conv[j]);
    }
    for (int j = 0; j < 4; ++j) {
        if (conv1)
            _mm256_storeu_ps(conv1 + 8 * j, conv[j]);
        _mm256_storeu_ps(relu1 + 8 * j, leaky8(conv[j]));
    }
}

} // namespace beamscope::model

#pragma GCC pop_options

#endif
