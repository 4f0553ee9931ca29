#pragma once
// The training loop around the model's ADAM batch step (core/model/training.h),
// shaped like Halide's anderson2021_retrain_cost_model: epochs over batches of
// one pipeline each (makeBatches), the batch order shuffled every epoch, but
// with a seeded std::mt19937 so runs are reproducible, a validation loss and
// validation ranking after every epoch, cancellation through Progress, and a
// checkpoint after every epoch so an interrupted run resumes.

#include "core/model/training.h"
#include "core/samples/checkpoint.h"
#include "core/samples/dataset.h"
#include "core/samples/epoch_record.h"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace beamscope {
class Progress;
}

namespace beamscope::samples {

struct TrainingOptions {
    int epochs = 1;
    float learningRate = 1e-4f; // Halide's --rates default
    uint32_t seed = 0;
    // Halide's retrain tool ignores its --num_cores and always uses 32; the
    // autoscheduler evaluates with its parallelism (80 on a V100).
    int numCores = 80;
    BatchOptions batches;
    std::filesystem::path checkpointPath; // empty: no checkpoints
    bool resume = false;                  // continue from checkpointPath when it exists
    // Called with the epoch-0 record of a fresh run and after every completed
    // epoch (once its checkpoint is written), e.g. to print or plot the losses
    // while the run goes on.
    std::function<void(const EpochRecord &)> onEpoch;
};

struct TrainingRun {
    model::TrainingState state;       // after the last completed epoch
    std::vector<EpochRecord> history; // [0] = before training, then one per completed epoch
    int epochsCompleted = 0;
    int resumedEpochs = 0;  // epochs that came from the checkpoint
    bool cancelled = false; // stopped early; state is the last completed epoch's
    std::string error;      // set when nothing could be done (bad checkpoint, unusable weights)

    bool ok() const { return error.empty(); }
};

TrainingRun trainModel(const weights::Weights &initial, const std::vector<PipelineSet> &training,
                       const std::vector<PipelineSet> &validation, const TrainingOptions &options,
                       Progress *progress = nullptr);

// Loss and ranking of fixed weights on the two sets (the epoch-0 record).
EpochRecord evaluateWeights(const weights::Weights &w, const std::vector<PipelineSet> &training,
                            const std::vector<PipelineSet> &validation, const TrainingOptions &options);

// Halide's --randomize_weights initialiser: std::mt19937(seed), every value
// rng()/rng.max() - 0.5 in file order.
weights::Weights randomWeights(uint32_t seed);

} // namespace beamscope::samples
