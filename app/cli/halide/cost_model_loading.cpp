#include "app/cli/halide/cost_model_loading.h"

#include "core/weights/shipped_weights.h"
#include "core/weights/weights.h"

#include <cstdio>

namespace beamscope::cli {

std::filesystem::path chooseWeights(const std::optional<std::string> &weights,
                                    const std::optional<std::string> &weightsDir, std::string &error,
                                    const std::string &pipeline)
{
    std::string note;
    const std::vector<std::string> pipelines{pipeline};
    std::filesystem::path path =
        weights::resolveWeightsArgument(weights, weightsDir, error, &note, pipeline.empty() ? nullptr : &pipelines);
    if (!note.empty())
        std::fprintf(stderr, "beamscope-cli: %s\n", note.c_str());
    return path;
}

} // namespace beamscope::cli
