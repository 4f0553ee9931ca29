// beamscope-cli apps: the pipeline registry (apps, golden pipelines), with the
// number of stages the cost model sees for each.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "core/dag/function_dag.h"
#include "core/pipelines/pipeline.h"
#include "core/util/json.h"

#include <iostream>
#include <memory>

namespace beamscope::cli {

namespace {

int runApps(bool json)
{
    Json list = Json::array();
    std::vector<std::vector<std::string>> rows{{"name", "origin", "stages", "description"}};
    for (const pipelines::PipelineInfo &info : pipelines::builtinPipelines()) {
        size_t stages = 0;
        try {
            const pipelines::PipelineInstance p = info.build();
            stages = dag::FunctionDAG(p.outputs).costModelStages().size();
        } catch (const std::exception &e) {
            std::cerr << "beamscope-cli apps: " << info.name << ": " << e.what() << "\n";
            return kFailure;
        }
        Json j = Json::object();
        j["name"] = info.name;
        j["origin"] = pipelines::originName(info.origin);
        j["description"] = info.description;
        j["stages"] = static_cast<int>(stages);
        list.push(j);
        rows.push_back({info.name, pipelines::originName(info.origin), std::to_string(stages), info.description});
    }
    if (json) {
        Json j = Json::object();
        j["pipelines"] = list;
        std::cout << j.dump(2) << "\n";
        return kSuccess;
    }
    size_t w[3] = {0, 0, 0};
    for (const auto &r : rows)
        for (size_t c = 0; c < 3; c++)
            w[c] = std::max(w[c], r[c].size());
    for (const auto &r : rows) {
        for (size_t c = 0; c < 3; c++)
            std::cout << r[c] << std::string(w[c] - r[c].size() + 2, ' ');
        std::cout << r[3] << "\n";
    }
    std::cout << "\nAlso: random_<seed>_<stages> (seeded random pipelines) and generators from a library "
                 "(beamscope-cli features --generator LIB.so --name GEN).\n";
    return kSuccess;
}

CommandRun defineApps(CLI::App &app)
{
    auto json = std::make_shared<bool>(false);
    addJsonFlag(app, *json);
    return [json](const std::vector<std::string> &) { return runApps(*json); };
}

const CommandRegistration registration({"", "apps", "[--json]",
                                        "the built-in pipelines (apps, golden pipelines) and their stage counts",
                                        defineApps});

} // namespace

} // namespace beamscope::cli
