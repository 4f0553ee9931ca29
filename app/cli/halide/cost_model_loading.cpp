#include "app/cli/halide/cost_model_loading.h"

#include "core/weights/shipped_weights.h"
#include "core/weights/weights.h"

#include <cstdio>

namespace beamscope::cli {

std::filesystem::path chooseWeights(const std::optional<std::string> &weights,
                                    const std::optional<std::string> &weightsDir, std::string &error) {
    std::string note;
    std::filesystem::path path = weights::resolveWeightsArgument(weights, weightsDir, error, &note);
    if (!note.empty())
        std::fprintf(stderr, "beamscope-cli: %s\n", note.c_str());
    return path;
}

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
