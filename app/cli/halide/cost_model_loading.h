#pragma once
// The weights a search command runs with, from --weights / --weights-dir;
// loading them is core/model/cost_model_file.h.

#include "core/model/cost_model_file.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::cli {

// The weights a search command runs with: --weights (a path, or a shipped
// file's name such as "bilateral_grid"), else $BEAMSCOPE_WEIGHTS_PATH, else
// --weights-dir's baseline.weights, else the hold-one-out file of the app
// searched (harris.weights for --app harris), else a trained per-app file (said
// on stderr, with why; core/weights/shipped_weights.h defaultWeightsFor).
// Empty with `error` set when nothing fits (core/weights/shipped_weights.h).
std::filesystem::path chooseWeights(const std::optional<std::string> &weights,
                                    const std::optional<std::string> &weightsDir, std::string &error,
                                    const std::string &pipeline = {});

} // namespace beamscope::cli
