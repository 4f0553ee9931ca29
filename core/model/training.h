#pragma once
// Training the Anderson2021 cost model: Halide's exact loss (train_cost_model in
// cost_model_generator.cpp), its gradient by hand-written reverse mode, and the
// ADAM update of DefaultCostModel::backprop. One call = one batch step; the
// epoch loop, data set and checkpoints live with the caller (core/samples).
//
// Deterministic: no threads, no randomness, fixed summation order. A step on a
// batch of 64 x 13 stages takes a few milliseconds, so an epoch loop can poll
// Progress::cancelled() between steps; TrainingState is a plain value, so a
// checkpoint is a copy of it (weights + m + v + timestep).

#include "core/model/cost_model.h"
#include "core/weights/weights.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace beamscope::model {

// One batch: schedules of ONE pipeline, with their measured runtimes.
struct TrainingBatch {
    int numStages = 0;
    int batchSize = 0;
    std::span<const float> pipelineFeatures; // [numStages][40][7]
    std::span<const float> scheduleFeatures; // [batchSize][numStages][73]
    std::span<const float> trueRuntimes;     // [batchSize], any unit (only ratios matter)
    int numCores = 32;                       // Halide's retrain tool always runs with 32 (its --num_cores is ignored)
    int reference = -1; // index of the reference schedule; -1 = the fastest (first on ties), as Halide
};

// A per-tensor float buffer for every weight tensor, in the .weights layout.
using TensorSet = std::array<std::vector<float>, weights::kTensorCount>;

// The trainer's state: current weights, ADAM moments, and the timestep the
// next step uses (Halide starts at 0 and adds 1 per step).
struct TrainingState {
    weights::Weights weights;
    TensorSet m; // first moments, zero at the start
    TensorSet v; // second moments, zero at the start
    int64_t timestep = 0;

    // Throws ModelError (checkWeights' reason) for unusable weights.
    static TrainingState start(weights::Weights initial);
};

// Forward and backward pass of one batch, without changing anything.
struct LossAndGradients {
    float loss = 0;
    std::vector<float> predictions;  // [B] with the weights before the step
    std::vector<float> costPerStage; // [B][S]
    TensorSet gradients;             // dLoss/dweight, .weights layout
};

// Throws ModelError for unusable weights or mismatched batch sizes.
LossAndGradients computeLossAndGradients(const weights::Weights &w, const TrainingBatch &batch);

// Halide's loss only (forward pass): sum over schedules of
// (1/max(p1, 1e-10) - 1/r1)^2 + 1e-5 * sum over stages and channels of -min(conv1, 0).
float computeLoss(const weights::Weights &w, const TrainingBatch &batch);

struct StepResult {
    LossAndGradients pass; // what the step computed (loss, predictions before the update, gradients)
};

// One ADAM step: gradients, then m, v and weights updated in place with
// learning rate lr and state.timestep, which is then incremented.
StepResult trainStep(TrainingState &state, const TrainingBatch &batch, float learningRate);

// Halide's polynomial pow(base, t) for the ADAM bias corrections (base in (0, 1)).
float adamPow(float base, float exponent);

} // namespace beamscope::model
