#include "app/cli/halide/cost_model_loading.h"

#include "core/weights/shipped_weights.h"
#include "core/weights/weights.h"

#include <cstdio>

namespace beamscope::cli {

std::filesystem::path chooseWeights(const std::optional<std::string> &weights,
                                    const std::optional<std::string> &weightsDir, std::string &error)
{
    std::string note;
    std::filesystem::path path = weights::resolveWeightsArgument(weights, weightsDir, error, &note);
    if (!note.empty())
        std::fprintf(stderr, "beamscope-cli: %s\n", note.c_str());
    return path;
}

} // namespace beamscope::cli
