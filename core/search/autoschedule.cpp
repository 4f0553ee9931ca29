#include "core/search/autoschedule.h"

#include "core/search/loop_nest_parser.h"
#include "core/search/search_space.h"

#include <cstdlib>
#include <stdexcept>

namespace beamscope::search {

AutoscheduleOutcome autoschedule(const std::string &pipelineName, const std::vector<Halide::Func> &outputs,
                                 const model::CostModel &model, const AutoscheduleParams &params, SearchTrace *trace,
                                 Progress *progress) {
    AutoscheduleOutcome out;
    out.pipeline = pipelineName;
    out.dag = std::make_unique<dag::FunctionDAG>(outputs);
    out.searchDag = std::make_unique<SearchDag>(*out.dag);
    for (const dag::StageRef &r : out.searchDag->costStages())
        out.stageNames.push_back(out.dag->stage(r).name);
    if (trace)
        trace->pipeline = pipelineName;
    BeamSearch search(*out.searchDag, model, params);
    out.result = search.run(trace, progress);
    return out;
}

std::vector<Json> partialScheduleDecisions(const std::vector<Halide::Func> &outputs, const std::string &loopNestText) {
    const dag::FunctionDAG dag(outputs);
    const SearchDag searchDag(dag);
    std::string error;
    const std::optional<State> state = parseLoopNest(searchDag, loopNestText, &error);
    if (!state)
        throw std::invalid_argument(error);
    // Decisions name Funcs, not DAG objects, so they outlive this DAG and
    // replay on the one the search builds (state_from_decisions.h).
    std::vector<Json> decisions;
    for (const FuncSchedule &f : state->funcs())
        decisions.push_back(Decision{}.toJson(searchDag, f));
    return decisions;
}

std::filesystem::path resolveWeightsPath(const std::optional<std::string> &explicitPath,
                                         const std::optional<std::string> &weightsDir, std::string &why) {
    if (explicitPath)
        return *explicitPath;
    if (const char *env = std::getenv("BEAMSCOPE_WEIGHTS_PATH"); env && *env)
        return env;
    if (weightsDir) {
        const std::filesystem::path p = std::filesystem::path(*weightsDir) / "baseline.weights";
        if (std::filesystem::exists(p))
            return p;
        why = p.string() + ": no such file (--weights-dir must hold baseline.weights)";
        return {};
    }
    why = "no weights given: pass --weights FILE, --weights-dir DIR (holding baseline.weights) or set "
          "BEAMSCOPE_WEIGHTS_PATH (baseline.weights is not shipped in the repository; Beamscope never "
          "falls back to random weights)";
    return {};
}

} // namespace beamscope::search
