#pragma once
// One retraining run as `beamscope-cli retrain` and the explorer's Retrain
// workspace do it: the starting weights checked against the network, every
// refusal made before an epoch is spent (an output that exists, a checkpoint
// of an earlier run, a held-out app without samples, a training set without a
// batch), then the training loop with its checkpoint next to the output, and
// the output written with the feature versions it was trained for. The CLI
// and the GUI differ only in how they show progress and ask the questions.

#include "core/samples/dataset.h"
#include "core/samples/training_loop.h"
#include "core/weights/weights.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::samples {

// The starting weights: a file (a path; shipped names are the caller's to
// resolve), checked against the Anderson2021 network. Empty with `error` set,
// naming the file and the offset or field at fault.
std::optional<weights::Weights> loadStartingWeights(const std::filesystem::path &path, std::string &error);

struct RetrainSettings {
    TrainingOptions training;           // epochs, rate, seed, cores, batches, resume; checkpointPath is set by the plan
    std::optional<std::string> holdOut; // an app held out for validation; else Halide's hash split
    SplitMode splitMode = SplitMode::ByPipeline; // Halide's --partition_schedules: BySchedule
    std::filesystem::path output;                // the .weights file to write
    // Replace an existing output, and start over from scratch even if an
    // earlier run left a checkpoint (--force; the GUI asks).
    bool replace = false;
};

// What a run will do, checked: the split, the checkpoint, whether it resumes.
struct RetrainPlan {
    RetrainSettings settings;
    Split split;
    std::filesystem::path checkpoint;
    bool resumes = false; // resume requested and a checkpoint is there
    size_t trainingSchedules = 0, validationSchedules = 0;

    // "training set: 3 pipelines, 120 schedules; validation set: 1 pipeline, 40 schedules"
    std::string describe() const;
};

// Why a plan cannot run. `option` names the setting at fault as the CLI spells
// it without dashes ("force", "hold-out", "min-batch"), so the GUI can point
// at its control and the CLI at its option.
struct RetrainRefusal {
    std::string option;
    std::string message;
};

// Every check that needs no training. Exactly one of the two is set.
struct PlanResult {
    std::optional<RetrainPlan> plan;
    std::optional<RetrainRefusal> refusal;
};
PlanResult planRetrain(const Dataset &dataset, const RetrainSettings &settings);

// "no training batch: 2 training pipeline(s), the largest with 5 distinct
// schedule(s); ...": why makeBatches found nothing to train on.
std::string noTrainingBatchMessage(const std::vector<PipelineSet> &training, const BatchOptions &batches);

struct RetrainResult {
    bool ok = false;
    bool cancelled = false;
    std::string error;
    int epochsCompleted = 0;
    int resumedEpochs = 0;
    std::vector<EpochRecord> history;
    weights::Weights trained; // ok only
};

// Trains (onEpoch and progress as trainModel takes them), writes the output
// atomically with the feature versions, and then drops the checkpoint, which
// the output now supersedes. A cancelled run keeps its checkpoint.
RetrainResult runRetrainPlan(const RetrainPlan &plan, const weights::Weights &initial, Progress *progress);

// The trained weights as an output: the feature versions they were trained for.
WriteResult saveTrainedWeights(weights::Weights trained, const std::filesystem::path &path, Overwrite overwrite);

} // namespace beamscope::samples
