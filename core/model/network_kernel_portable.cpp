// The portable network kernel: the AVX2 kernel's operations without FMA
// (multiply, then add: two roundings, like Halide's SSE2 build), written with
// GCC/Clang 4-lane vector extensions so it vectorises on any target. It is
// also the kernel training always uses (training.cpp says why).

#include "core/model/cost_model.h"
#include "core/model/fast_math.h"
#include "core/model/network_kernel.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace beamscope::model {

namespace {

typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));

inline v4f load4(const float *p)
{
    v4f v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void store4(float *p, v4f v) { std::memcpy(p, &v, sizeof v); }

// fastLog() (fast_math.h) on 4 lanes, operation for operation.
inline v4f fastLog4(v4f x)
{
    v4i bits;
    std::memcpy(&bits, &x, sizeof bits);
    const v4i mantissa = bits & static_cast<int32_t>(0x807fffff);
    const v4i newBiased = 127 - (mantissa >> 22);
    const v4i exponent = (bits >> 23) - newBiased;
    const v4i reducedBits = mantissa | (newBiased << 23);
    v4f reduced;
    std::memcpy(&reduced, &reducedBits, sizeof reduced);
    const v4f x1 = reduced - 1.0f;
    const v4f x2 = x1 * x1;
    v4f even = x2 * 0.07640318789187280912f + 0.20625219040645212387f;
    even = even * x2 + 0.33320464908377461777f;
    even = even * x2 + 1.0f;
    v4f odd = x2 * -0.16252961013874300811f - 0.25110261010892864775f;
    odd = odd * x2 - 0.49997513376789826101f;
    odd = odd * x2;
    const v4f poly = even * x1 + odd;
    return poly + __builtin_convertvector(exponent, v4f) * 0.693147182f;
}

// leaky() on 4 lanes; a NaN lane gives 0 like the scalar and AVX2 versions.
inline v4f leaky4(v4f e)
{
    const v4f zero = {0.0f, 0.0f, 0.0f, 0.0f};
    const v4f positive = e > zero ? e : zero;
    const v4f negative = e < zero ? e : zero;
    return positive + negative * 1e-10f;
}

void evaluateOne(const KernelWeights &w, const float *features, const float *stage1, float *conv1, float *relu1,
                 float *normalizedOut, float *head2Out)
{
    constexpr int kPadded = KernelWeights::kPaddedFeatures;
    float raw[kPadded] = {};
    std::memcpy(raw, features, kScheduleFeatureCount * sizeof(float));
    float normalized[kPadded];
    for (int c = 0; c < kPadded; c += 4)
        store4(normalized + c, fastLog4(load4(raw + c) + 1.0f));

    v4f head2[6];
    for (int j = 0; j < 6; ++j)
        head2[j] = load4(w.head2Bias + 4 * j);
    for (int c = 0; c < kScheduleFeatureCount; ++c) {
        const float x = normalized[c];
        const float *row = w.head2Filter + c * kHead2Channels;
        for (int j = 0; j < 6; ++j)
            head2[j] = head2[j] + load4(row + 4 * j) * x;
    }
    float head2Values[kHead2Channels];
    for (int j = 0; j < 6; ++j)
        store4(head2Values + 4 * j, leaky4(head2[j]));

    v4f conv[8];
    for (int j = 0; j < 8; ++j)
        conv[j] = load4(stage1 + 4 * j);
    for (int k = 0; k < kHead2Channels; ++k) {
        const float x = head2Values[k];
        const float *row = w.conv1Head2Filter + k * kConv1Channels;
        for (int j = 0; j < 8; ++j)
            conv[j] = conv[j] + load4(row + 4 * j) * x;
    }
    for (int j = 0; j < 8; ++j) {
        if (conv1)
            store4(conv1 + 4 * j, conv[j]);
        store4(relu1 + 4 * j, leaky4(conv[j]));
    }
    if (normalizedOut)
        std::memcpy(normalizedOut, normalized, kScheduleFeatureCount * sizeof(float));
    if (head2Out)
        std::memcpy(head2Out, head2Values, sizeof head2Values);
}

} // namespace

void networkKernelPortable(const KernelWeights &w, const KernelItems &items)
{
    for (int i = 0; i < items.count; ++i)
        evaluateOne(w, items.features[i], items.stage1[i], items.conv1[i], items.relu1[i], items.normalized[i],
                    items.head2[i]);
}

NetworkKernel selectNetworkKernel()
{
    static const NetworkKernel chosen = [] {
        const char *forced = std::getenv("BEAMSCOPE_MODEL_KERNEL");
        if (forced && std::strcmp(forced, "portable") == 0)
            return &networkKernelPortable;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
            return &networkKernelAvx2;
#endif
        return &networkKernelPortable;
    }();
    return chosen;
}

const char *networkKernelName(NetworkKernel kernel)
{
#if defined(__x86_64__) || defined(__i386__)
    if (kernel == &networkKernelAvx2)
        return "avx2-fma";
#endif
    return kernel == &networkKernelPortable ? "portable" : "?";
}

} // namespace beamscope::model
