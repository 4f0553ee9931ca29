#include "app/cli/halide/cost_model_loading.h"

#include "core/weights/weights.h"

namespace beamscope::cli {

std::unique_ptr<model::CostModel> loadCostModel(const std::filesystem::path &weightsPath, std::string &error) {
    auto loaded = weights::loadWeights(weightsPath);
    if (!loaded.ok()) {
        const auto *first = loaded.firstError();
        error = first ? first->format() : weightsPath.string() + ": cannot load weights";
        return nullptr;
    }
    try {
        return std::make_unique<model::CostModel>(*loaded.weights);
    } catch (const model::ModelError &e) {
        error = weightsPath.string() + ": " + e.what();
        return nullptr;
    }
}

} // namespace beamscope::cli
