// The portable network kernel: same operations as the AVX2 one, without FMA.

#include "core/model/cost_model.h"
#include "core/model/fast_math.h"
#include "core/model/network_kernel.h"

#include <cstdlib>
#include <cstring>

namespace beamscope::model {

namespace {
void evaluateOne(const KernelWeights &w, const float *features, const float *stage1, float *conv1, float *relu1) {
    float normalized[kScheduleFeatureCount];
    for (int c = 0; c < kScheduleFeatureCount; ++c)
        normalized[c] = fastLog(features[c] + 1.0f);

    float head2[kHead2Channels];
    std::memcpy(head2, w.head2Bias, sizeof head2);
    for (int c = 0; c < kScheduleFeatureCount; ++c) {
        const float x = normalized[c];
        const float *row = w.head2Filter + c * kHead2Channels;
        for (int k = 0; k < kHead2Channels; ++k)
            head2[k] += row[k] * x;
    }
    for (float &h : head2)
        h = leaky(h);

    float conv[kConv1Channels];
    std::memcpy(conv, stage1, sizeof conv);
    for (int k = 0; k < kHead2Channels; ++k) {
        const float x = head2[k];
        const float *row = w.conv1Head2Filter + k * kConv1Channels;
        for (int j = 0; j < kConv1Channels; ++j)
            conv[j] += row[j] * x;
    }
    if (conv1)
        std::memcpy(conv1, conv, sizeof conv);
    for (int j = 0; j < kConv1Channels; ++j)
        relu1[j] = leaky(conv[j]);
}
} // namespace

void networkKernelPortable(const KernelWeights &w, const KernelItems &items) {
    for (int i = 0; i < items.count; ++i)
        evaluateOne(w, items.features[i], items.stage1[i], items.conv1[i], items.relu1[i]);
}

NetworkKernel selectNetworkKernel() {
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

const char *networkKernelName(NetworkKernel kernel) {
#if defined(__x86_64__) || defined(__i386__)
    if (kernel == &networkKernelAvx2)
        return "avx2-fma";
#endif
    return kernel == &networkKernelPortable ? "portable" : "?";
}

} // namespace beamscope::model
