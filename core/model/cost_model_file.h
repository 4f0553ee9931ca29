#pragma once
// The cost model a search runs with, loaded from a weights file or a legacy
// six-file directory: one place for what every search front end (the CLI's
// commands, the search session, the plugin) reports about weights.

#include "core/model/cost_model.h"

#include <filesystem>
#include <memory>
#include <string>

namespace beamscope::model {

// Null with `error` set (naming the file, and the offset or field where the
// weights reader found the fault) when the weights do not load or are not
// the Anderson2021 network. Never falls back to random weights.
std::unique_ptr<CostModel> loadCostModel(const std::filesystem::path &weightsPath, std::string &error);

} // namespace beamscope::model
