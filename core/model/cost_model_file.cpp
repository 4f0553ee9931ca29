#include "core/model/cost_model_file.h"

#include "core/weights/weights.h"

namespace beamscope::model {

std::unique_ptr<CostModel> loadCostModel(const std::filesystem::path &weightsPath, std::string &error)
{
    if (weightsPath.empty()) {
        error = "no weights chosen (Beamscope never falls back to random weights)";
        return nullptr;
    }
    auto loaded = weights::loadWeights(weightsPath);
    if (!loaded.ok()) {
        const auto *first = loaded.firstError();
        error = first ? first->format() : weightsPath.string() + ": cannot load weights";
        return nullptr;
    }
    try {
        return std::make_unique<CostModel>(*loaded.weights);
    } catch (const ModelError &e) {
        error = weightsPath.string() + ": " + e.what();
        return nullptr;
    }
}

} // namespace beamscope::model
