#include "core/pipelines/builtin_lists.h"
#include "core/pipelines/random_pipeline.h"

#include <mutex>

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

namespace {
struct UserPipeline {
    PipelineInfo info;
    GeneratorSource source;
};
std::mutex &userMutex()
{
    static std::mutex m;
    return m;
}
std::vector<UserPipeline> &userList()
{
    static std::vector<UserPipeline> list;
    return list;
}
} // namespace

void registerUserPipeline(PipelineInfo info, GeneratorSource source)
{
    const std::lock_guard lock(userMutex());
    std::vector<UserPipeline> &list = userList();
    for (UserPipeline &existing : list)
        if (existing.info.name == info.name) {
            existing = {std::move(info), std::move(source)};
            return;
        }
    list.push_back({std::move(info), std::move(source)});
}

std::vector<PipelineInfo> userPipelines()
{
    const std::lock_guard lock(userMutex());
    std::vector<PipelineInfo> out;
    for (const UserPipeline &p : userList())
        out.push_back(p.info);
    return out;
}

std::optional<GeneratorSource> userGeneratorSource(const std::string &pipelineName)
{
    const std::lock_guard lock(userMutex());
    for (const UserPipeline &p : userList())
        if (p.info.name == pipelineName)
            return p.source;
    return std::nullopt;
}

std::optional<PipelineInfo> findPipeline(const std::string &name)
{
    for (const PipelineInfo &info : builtinPipelines())
        if (info.name == name)
            return info;
    for (PipelineInfo &info : userPipelines())
        if (info.name == name)
            return std::move(info);
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
