// The AVX2+FMA network kernel. Only this file is compiled for AVX2 (a target
// pragma after all headers, so no inline library code is built for
// AVX2 and picked by the linker for the rest of the program); it is called
// only when the CPU reports AVX2 and FMA.

#include "core/model/network_kernel.h"

#if defined(__x86_64__) || defined(__i386__)

#include <cstdint>
#include <cstring>
#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif

namespace beamscope::model {

namespace {

constexpr int kFeatures = 73;
constexpr int kPadded = KernelWeights::kPaddedFeatures;

// fast_log of 8 lanes, the operations of fastLog() (fast_math.h) with FMA.
inline __m256 fastLog8(__m256 x)
{
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

inline __m256 leaky8(__m256 e)
{
    const __m256 zero = _mm256_setzero_ps();
    return _mm256_fmadd_ps(_mm256_min_ps(e, zero), _mm256_set1_ps(1e-10f), _mm256_max_ps(e, zero));
}

} // namespace

namespace {

// N items side by side. Per item: bias first, then one FMA per input in input
// order (Halide's order for these reductions, so rounding stays close to its
// compiled model). The weight rows are loaded once and shared by the N items.
template <int N>
inline void evaluateItems(const KernelWeights &w, const KernelItems &items)
{
    alignas(32) float normalized[N][kPadded];
    // Features 72..79: only lane 0 exists in memory; the masked load reads
    // nothing past the 73rd float, and the padding lanes become log(1) = 0.
    const __m256i tailMask = _mm256_setr_epi32(-1, 0, 0, 0, 0, 0, 0, 0);
    const __m256 one = _mm256_set1_ps(1.0f);
#pragma GCC unroll 4
    for (int i = 0; i < N; ++i) {
        const float *f = items.features[i];
#pragma GCC unroll 9
        for (int c = 0; c < 72; c += 8)
            _mm256_store_ps(normalized[i] + c, fastLog8(_mm256_add_ps(_mm256_loadu_ps(f + c), one)));
        _mm256_store_ps(normalized[i] + 72, fastLog8(_mm256_add_ps(_mm256_maskload_ps(f + 72, tailMask), one)));
    }

    // head2: 24 channels = 3 vectors per item.
    __m256 acc[N][3];
    const __m256 b0 = _mm256_loadu_ps(w.head2Bias), b1 = _mm256_loadu_ps(w.head2Bias + 8),
                 b2 = _mm256_loadu_ps(w.head2Bias + 16);
#pragma GCC unroll 4
    for (int i = 0; i < N; ++i) {
        acc[i][0] = b0;
        acc[i][1] = b1;
        acc[i][2] = b2;
    }
    for (int c = 0; c < kFeatures; ++c) {
        const float *row = w.head2Filter + c * 24;
        const __m256 w0 = _mm256_loadu_ps(row), w1 = _mm256_loadu_ps(row + 8), w2 = _mm256_loadu_ps(row + 16);
#pragma GCC unroll 4
        for (int i = 0; i < N; ++i) {
            const __m256 x = _mm256_broadcast_ss(normalized[i] + c);
            acc[i][0] = _mm256_fmadd_ps(w0, x, acc[i][0]);
            acc[i][1] = _mm256_fmadd_ps(w1, x, acc[i][1]);
            acc[i][2] = _mm256_fmadd_ps(w2, x, acc[i][2]);
        }
    }
    alignas(32) float head2[N][24];
#pragma GCC unroll 4
    for (int i = 0; i < N; ++i) {
        _mm256_store_ps(head2[i], leaky8(acc[i][0]));
        _mm256_store_ps(head2[i] + 8, leaky8(acc[i][1]));
        _mm256_store_ps(head2[i] + 16, leaky8(acc[i][2]));
        if (items.head2[i])
            std::memcpy(items.head2[i], head2[i], sizeof head2[i]);
        if (items.normalized[i])
            std::memcpy(items.normalized[i], normalized[i], kFeatures * sizeof(float));
    }

    // conv1, head2 half: 32 channels = 4 vectors per item, items in pairs to
    // stay within the 16 vector registers.
#pragma GCC unroll 2
    for (int i0 = 0; i0 < N; i0 += 2) {
        const int pair = (N - i0) >= 2 ? 2 : 1;
        __m256 conv[2][4];
#pragma GCC unroll 2
        for (int i = 0; i < pair; ++i)
#pragma GCC unroll 4
            for (int j = 0; j < 4; ++j)
                conv[i][j] = _mm256_loadu_ps(items.stage1[i0 + i] + 8 * j);
        for (int k = 0; k < 24; ++k) {
            const float *row = w.conv1Head2Filter + k * 32;
            const __m256 w0 = _mm256_loadu_ps(row), w1 = _mm256_loadu_ps(row + 8), w2 = _mm256_loadu_ps(row + 16),
                         w3 = _mm256_loadu_ps(row + 24);
#pragma GCC unroll 2
            for (int i = 0; i < pair; ++i) {
                const __m256 x = _mm256_broadcast_ss(head2[i0 + i] + k);
                conv[i][0] = _mm256_fmadd_ps(w0, x, conv[i][0]);
                conv[i][1] = _mm256_fmadd_ps(w1, x, conv[i][1]);
                conv[i][2] = _mm256_fmadd_ps(w2, x, conv[i][2]);
                conv[i][3] = _mm256_fmadd_ps(w3, x, conv[i][3]);
            }
        }
#pragma GCC unroll 2
        for (int i = 0; i < pair; ++i)
#pragma GCC unroll 4
            for (int j = 0; j < 4; ++j) {
                if (items.conv1[i0 + i])
                    _mm256_storeu_ps(items.conv1[i0 + i] + 8 * j, conv[i][j]);
                _mm256_storeu_ps(items.relu1[i0 + i] + 8 * j, leaky8(conv[i][j]));
            }
    }
}

} // namespace

void networkKernelAvx2(const KernelWeights &w, const KernelItems &items)
{
    switch (items.count) {
    case 1: evaluateItems<1>(w, items); break;
    case 2: evaluateItems<2>(w, items); break;
    case 3: evaluateItems<3>(w, items); break;
    default: evaluateItems<4>(w, items); break;
    }
}

} // namespace beamscope::model

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif
