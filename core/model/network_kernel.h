#pragma once
// Internal: the per-(schedule, stage) network evaluation (schedule-feature
// normalisation, head2, the schedule half of conv1, leaky relus), in two
// builds chosen once at run time: AVX2+FMA when the CPU has it, plain C++
// otherwise. Both vectorise over output channels, so a schedule's result does
// not depend on its position in the batch or on threading.

namespace beamscope::model {

// Weight views prepared by CostModel (sizes are the network's, rows padded).
struct KernelWeights {
    static constexpr int kPaddedFeatures = 80; // 73 schedule features padded with zero rows
    const float *head2Filter = nullptr;        // [80][24]: row = schedule feature, zero rows 73..79
    const float *head2Bias = nullptr;          // [24]
    const float *conv1Head2Filter = nullptr;   // [24][32]: row = head2 channel, column = conv1 channel
};

// features: 73 raw schedule features; stage1: the pipeline half of conv1 (32).
// conv1 (optional) receives the 32 pre-activation values, relu1 the 32 coefficients.
using NetworkKernel = void (*)(const KernelWeights &w, const float *features, const float *stage1, float *conv1,
                               float *relu1);

void networkKernelPortable(const KernelWeights &w, const float *features, const float *stage1, float *conv1,
                           float *relu1);
#if defined(__x86_64__) || defined(__i386__)
void networkKernelAvx2(const KernelWeights &w, const float *features, const float *stage1, float *conv1, float *relu1);
#endif

// The kernel for this CPU (decided once per process). BEAMSCOPE_MODEL_KERNEL=portable
// in the environment forces the portable one (to compare the two).
NetworkKernel selectNetworkKernel();
const char *networkKernelName(NetworkKernel kernel);

} // namespace beamscope::model
