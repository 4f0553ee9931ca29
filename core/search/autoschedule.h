#pragma once
// One call from a pipeline's output Funcs to a searched schedule: builds the
// FunctionDAG and SearchDag, runs the beam search with the given weights and
// parameters, and gathers what the CLI, the GUI and the plugin report.

#include "core/dag/function_dag.h"
#include "core/search/beam_search.h"
#include "core/search/search_dag.h"
#include "core/util/json.h"
#include "core/weights/weights.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::search {

struct AutoscheduleOutcome {
    std::string pipeline;
    std::unique_ptr<dag::FunctionDAG> dag; // owns what searchDag and the state refer to
    std::unique_ptr<SearchDag> searchDag;
    SearchResult result;
    std::vector<std::string> stageNames; // cost-model order
};

AutoscheduleOutcome autoschedule(const std::string &pipelineName, const std::vector<Halide::Func> &outputs,
                                 const model::CostModel &model, const AutoscheduleParams &params, SearchTrace *trace,
                                 Progress *progress);

// Halide's partial_schedule_path: the decisions of a loop-nest dump (or a whole
// HL_DEBUG_AUTOSCHEDULE log; loop_nest_parser.h) on the pipeline of `outputs`,
// as AutoscheduleParams::startDecisions. Its Funcs must be a prefix of the
// scheduling order. Throws std::invalid_argument naming the line on a dump that
// does not fit the pipeline.
std::vector<Json> partialScheduleDecisions(const std::vector<Halide::Func> &outputs, const std::string &loopNestText);
// The same, on a DAG already built for the pipeline.
std::vector<Json> partialScheduleDecisions(const SearchDag &searchDag, const std::string &loopNestText);

} // namespace beamscope::search
