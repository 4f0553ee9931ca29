#include "core/search/autoschedule.h"

#include "core/search/loop_nest_parser.h"
#include "core/search/search_space.h"

#include <stdexcept>

namespace beamscope::search {

AutoscheduleOutcome autoschedule(const std::string &pipelineName, const std::vector<Halide::Func> &outputs,
                                 const model::CostModel &model, const AutoscheduleParams &params, SearchTrace *trace,
                                 Progress *progress)
{
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

std::vector<Json> partialScheduleDecisions(const std::vector<Halide::Func> &outputs, const std::string &loopNestText)
{
    const dag::FunctionDAG dag(outputs);
    const SearchDag searchDag(dag);
    return partialScheduleDecisions(searchDag, loopNestText);
}

std::vector<Json> partialScheduleDecisions(const SearchDag &searchDag, const std::string &loopNestText)
{
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

} // namespace beamscope::search
