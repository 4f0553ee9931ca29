#pragma once
// The cost model a search command runs with, loaded from a weights file or
// legacy directory; one place for the errors autoschedule, state and
// check-apps report about weights.

#include "core/model/cost_model.h"

#include <filesystem>
#include <memory>
#include <string>

namespace beamscope::cli {

// Null with `error` set (naming the file, and the offset or field where the
// weights reader found one) when the weights do not load or are not the
// Anderson2021 network.
std::unique_ptr<model::CostModel> loadCostModel(const std::filesystem::path &weightsPath, std::string &error);

} // namespace beamscope::cli
