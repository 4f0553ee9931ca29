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

// Up to kKernelItems (schedule, stage) items per call, computed side by side
// for instruction-level parallelism; each item's arithmetic is the same
// sequence whatever its neighbours, so results do not depend on grouping.
constexpr int kKernelItems = 4;
struct KernelItems {
    int count = 0;                            // 1..kKernelItems
    const float *features[kKernelItems] = {}; // 73 raw schedule features each
    const float *stage1[kKernelItems] = {};   // the pipeline half of conv1 (32) each
    float *conv1[kKernelItems] = {};          // optional: the 32 pre-activation values
    float *relu1[kKernelItems] = {};          // the 32 coefficients
    // Optional, for training's backward pass:
    float *normalized[kKernelItems] = {}; // the 73 fast_log(feature + 1)
    float *head2[kKernelItems] = {};      // the 24 head2 activations (after the leaky relu)
};

using NetworkKernel = void (*)(const KernelWeights &w, const KernelItems &items);

void networkKernelPortable(const KernelWeights &w, const KernelItems &items);
#if defined(__x86_64__) || defined(__i386__)
void networkKernelAvx2(const KernelWeights &w, const KernelItems &items);
#endif

// The kernel for this CPU (decided once per process). BEAMSCOPE_MODEL_KERNEL=portable
// in the environment forces the portable one (to compare the two).
NetworkKernel selectNetworkKernel();
const char *networkKernelName(NetworkKernel kernel);

} // namespace beamscope::model
