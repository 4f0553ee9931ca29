#include "core/pipelines/builtin_lists.h"
#include "core/pipelines/random_pipeline.h"

namespace beamscope::pipelines {

const std::vector<PipelineInfo> &builtinPipelines()
{
    static const std::vector<PipelineInfo> all = [] {
        std::vector<PipelineInfo> list = appPipelines();
        for (PipelineInfo &g : goldenPipelines())
            list.push_back(std::move(g));
        return list;
    }();
    return all;
}

std::optional<PipelineInfo> findPipeline(const std::string &name)
{
    for (const PipelineInfo &info : builtinPipelines())
        if (info.name == name)
            return info;
    if (auto random = parseRandomPipelineName(name)) {
        const auto [seed, stages] = *random;
        return PipelineInfo{name,
                            "random pipeline, seed " + std::to_string(seed) + ", " + std::to_string(stages) + " stages",
                            Origin::Random, [seed, stages] { return randomPipeline(seed, stages); }};
    }
    return std::nullopt;
}

const char *originName(Origin origin)
{
    switch (origin) {
    case Origin::App: return "app";
    case Origin::Golden: return "golden";
    case Origin::Random: return "random";
    case Origin::Generator: return "generator";
    }
    return "?";
}

} // namespace beamscope::pipelines
