#pragma once
// The Anderson2021 cost model (Halide's cost_model_generator.cpp, inference
// half): a small network turns pipeline and schedule features into 32
// coefficients per stage, and a hand-written formula combines them with raw
// schedule features into a stage cost. HALIDE-FACTS.md, "The cost model".
//
// Layouts (row-major, last index fastest; this is the .sample order):
//   pipeline features  [S][40][7]   stage, feature row x, scalar type y
//   schedule features  [B][E][73]   schedule n, stage s (E >= S slots), feature c
//   cost per stage     [B][S]       already multiplied by 1e-9, like Halide
//   predictions        [B]          sum over the S stages
//
// Numerics: float32 like Halide's compiled model; on CPUs with AVX2+FMA the
// network's dot products use FMA in Halide's reduction order (otherwise a
// portable kernel without FMA). Results are deterministic for a given CPU
// kind: they do not depend on batch size, a schedule's position in the batch
// or the thread count. Against Halide's golden outputs: <= 1.4e-5 relative per
// stage (Halide itself varies by 1.5e-5 between CPU targets).

#include "core/weights/weights.h"

#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace beamscope::model {

constexpr int kPipelineFeatureRows = 40; // head1_w
constexpr int kPipelineFeatureTypes = 7; // head1_h
constexpr int kPipelineFeaturesPerStage = kPipelineFeatureRows * kPipelineFeatureTypes;
constexpr int kScheduleFeatureCount = 73; // head2_w
constexpr int kHead1Channels = 8;
constexpr int kHead2Channels = 24;
constexpr int kConv1Channels = 32;

// Refused weights (wrong network, wrong shapes) and malformed inputs.
class ModelError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Returns an empty string when w is usable by the Anderson2021 model, else why
// not (an Adams2019 file gets "this is the CPU (Adams2019) network ...").
std::string checkWeights(const weights::Weights &w);

// What the model needs of one pipeline: its stage count and, per stage, the
// part of the first trunk layer that depends only on pipeline features
// (bias1 + filter1 x head1). Computed once per pipeline and reused for every
// batch of schedules of it.
struct PipelineEmbedding {
    int numStages = 0;
    std::vector<float> head1;       // [S][8]   head1_conv output
    std::vector<float> conv1Stage1; // [S][32]  bias1 + filter1[:, 0:8] . head1
};

// The named terms of the stage-cost formula, in the order they are summed.
// Each is one product of raw schedule features and one relu1 coefficient
// (scaled, for the compute terms, by the idle-core and idle-lane factors,
// for the global memory terms by 1/efficiency when the stage is not inlined).
enum class CostTerm : int {
    ComputeScalars,    // num_scalars x relu1(1) (inlined: relu1(3))
    ComputeThreads,    // num_blocks x threads/block x points/thread x relu1(19) (inlined: relu1(4))
    StoreSharedMem,    // num_blocks x shared stores/block x relu1(29)
    StoreGlobalMem,    // num_blocks x global stores/block x relu1(21) / store efficiency
    StoreFalseSharing, // inner_parallelism > 1: relu1(22) x num_scalars / max(1, global innermost bytes at task)
    LoadGlobalLinesPerRealization,   // num_realizations x ... x relu1(5)
    LoadSharedLinesPerRealization,   // relu1(16)
    LoadRegisterLinesPerRealization, // relu1(8)
    LoadGlobalBytesPerRealization,   // relu1(6)
    LoadSharedBytesPerRealization,   // relu1(20)
    LoadRegisterBytesPerRealization, // relu1(7)
    LoadGlobalLinesPerThread,        // num_blocks x threads/block x ... x relu1(18)
    LoadSharedLinesPerThread,        // relu1(17)
    LoadRegisterLinesPerThread,      // relu1(2)
    LoadGlobalBytesPerThread,        // relu1(13)
    LoadSharedBytesPerThread,        // relu1(11)
    LoadRegisterBytesPerThread,      // relu1(0)
    LoadBytesPerPoint,               // num_scalars x ... x relu1(10)
    LoadLinesPerPoint,               // relu1(12)
    LoadBytesPerTask,                // num_tasks x ... x relu1(14)
    LoadLinesPerTask,                // relu1(15)
    LoadGlobalMem,                   // num_blocks x global loads/block x relu1(28) / load efficiency
    LoadSharedMem,                   // num_blocks x shared loads/block x relu1(27)
    Malloc,                          // relu1(24) x num_realizations
    ParallelLaunches,                // num_productions x (inner_parallelism > 1 ? relu1(25) : 0)
    ParallelTasks,                   // num_productions x (inner_parallelism - 1) x relu1(26)
    WorkingSet,                      // working_set x relu1(9)
    Count
};
constexpr int kCostTermCount = static_cast<int>(CostTerm::Count);

const char *costTermName(CostTerm term);  // "compute_scalars", "load_global_mem", ...
const char *costTermGroup(CostTerm term); // "compute", "store", "load", "malloc", "parallelism", "working_set"
// The relu1 channel a term multiplies (the compute terms depend on inlining).
int costTermChannel(CostTerm term, bool inlined);

// Everything the formula used for one stage of one schedule.
struct StageBreakdown {
    // In the network's units (nanoseconds-ish), before the 1e-9 unit change.
    std::array<float, kCostTermCount> terms{};
    std::array<float, kConv1Channels> relu1{}; // the 32 coefficients
    std::array<float, kConv1Channels> conv1{}; // relu1 before the leaky relu
    bool inlined = false;                      // inlined_calls != 0
    float numTasks = 1;                        // max(1, inner x outer parallelism)
    float idleCoreWastage = 1;                 // ceil(tasks/cores) / max(1, tasks/cores)
    float idleLaneFactor = 1;                  // 1 / (1 - idle_lane_wastage) when not inlined
    // Sum of terms in CostTerm order (float, left to right) times 1e-9f:
    // bit-identical to the stage's costPerStage from evaluate().
    float stageCost = 0;

    float term(CostTerm t) const { return terms[static_cast<size_t>(t)]; }
};

struct Evaluation {
    int numStages = 0;
    int batchSize = 0;
    std::vector<float> predictions;  // [B]
    std::vector<float> costPerStage; // [B][S]

    float cost(int schedule, int stage) const
    {
        return costPerStage[static_cast<size_t>(schedule) * numStages + stage];
    }
};

class CostModel {
public:
    // Throws ModelError (with checkWeights' reason) for unusable weights.
    explicit CostModel(weights::Weights w);

    const weights::Weights &weights() const { return m_weights; }

    // pipelineFeatures: [S][40][7] with S >= numStages; the first numStages stages are embedded
    // (each stage's embedding depends only on that stage, so a partial state's stages, which come
    // first in the cost model's order, embed from the whole pipeline's features). Throws ModelError
    // when fewer values are given.
    PipelineEmbedding embedPipeline(std::span<const float> pipelineFeatures, int numStages) const;

    // scheduleFeatures: [batchSize][stageExtent][73] with stageExtent >= the
    // embedding's numStages (0 = equal); only the first numStages slots of each
    // schedule are read (the search's partially scheduled states).
    // predictions: [batchSize]; costPerStage: [batchSize][numStages] or empty.
    // threads > 1 splits the batch over std::threads (results do not depend on it).
    void evaluate(const PipelineEmbedding &pipeline, std::span<const float> scheduleFeatures, int batchSize,
                  int numCores, std::span<float> predictions, std::span<float> costPerStage, int stageExtent = 0,
                  int threads = 1) const;

    // Convenience: embed + evaluate with fresh output vectors.
    Evaluation evaluate(std::span<const float> pipelineFeatures, std::span<const float> scheduleFeatures, int numStages,
                        int batchSize, int numCores, int stageExtent = 0) const;

    // Per-stage breakdown of ONE schedule: scheduleFeatures is [numStages][73].
    std::vector<StageBreakdown> breakdown(const PipelineEmbedding &pipeline, std::span<const float> scheduleFeatures,
                                          int numCores) const;

private:
    weights::Weights m_weights;
    // Derived once: sigmoid(head1_filter), filter1 split by input, transposed copies for the kernels.
    std::vector<float> m_squashedHead1; // [8][40][7] as in the file: c fastest
    std::vector<float> m_head2FilterT;  // [73][24]
    std::vector<float> m_conv1FilterT;  // [24][32] (head2 part of filter1)
};

} // namespace beamscope::model
