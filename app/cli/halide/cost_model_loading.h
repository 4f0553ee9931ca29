#pragma once
// The cost model a search command runs with, loaded from a weights file or
// legacy directory; one place for the errors autoschedule, state and
// check-apps report about weights.

#include "core/model/cost_model.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace beamscope::cli {

// The weights a search command runs with: --weights (a path, or a shipped
// file's name such as "bilateral_grid"), else $BEAMSCOPE_WEIGHTS_PATH, else
// --weights-dir's baseline.weights, else the shipped baseline (said on stderr).
// Empty with `error` set when nothing fits (core/weights/shipped_weights.h).
std::filesystem::path chooseWeights(const std::optional<std::string> &weights,
                                    const std::optional<std::string> &weightsDir, std::string &error);

// Null with `error` set (naming the file, and the offset or field where the
// weights reader found one) when the weights do not load or are not the
// Anderson2021 network.
std::unique_ptr<model::CostModel> loadCostModel(const std::filesystem::path &weightsPath, std::string &error);

} // namespace beamscope::cli
