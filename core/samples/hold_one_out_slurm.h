#pragma once
// Hold-one-out training as a Slurm job array (docs/slurm.md): one task per
// held-out app, each running `beamscope-cli retrain --hold-one-out --only-app
// APP` into the shared output folder, and a last job (afterany) that
// assembles the quality table (`retrain --hold-one-out --resume`, which
// evaluates the files the tasks wrote and trains any a task did not finish).
// The weights equal a local hold-one-out run's: each app's training is seeded.

#include "core/util/slurm_commands.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::samples {

struct HoldOneOutSubmission {
    std::string arrayJob, assembleJob;
    std::vector<std::string> apps; // task k holds out apps[k]
};

// retrainArgs: the retrain options every task repeats (samples, initial
// weights, epochs, ...), without --hold-one-out, --out-dir and Slurm's own.
std::optional<HoldOneOutSubmission> submitHoldOneOut(const std::vector<std::string> &apps, const std::string &cli,
                                                     const std::vector<std::string> &retrainArgs,
                                                     const std::filesystem::path &outDir, const SlurmOptions &slurm,
                                                     std::string &error);

} // namespace beamscope::samples
