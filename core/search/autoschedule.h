#pragma once
// One call from a pipeline's output Funcs to a searched schedule: builds the
// FunctionDAG and SearchDag, runs the beam search with the given weights and
// parameters, and gathers what the CLI, the GUI and the plugin report.

#include "core/dag/function_dag.h"
#include "core/search/beam_search.h"
#include "core/search/search_dag.h"
#include "core/weights/weights.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace beamscope::search {

struct AutoscheduleOutcome {
    std::string pipeline;
    std::unique_ptr<dag::FunctionDAG> dag;  // owns what searchDag and the state refer to
    std::unique_ptr<SearchDag> searchDag;
    SearchResult result;
    std::vector<std::string> stageNames; // cost-model order
};

AutoscheduleOutcome autoschedule(const std::string &pipelineName, const std::vector<Halide::Func> &outputs,
                                 const model::CostModel &model, const AutoscheduleParams &params, SearchTrace *trace,
                                 Progress *progress);

// Where the weights come from: an explicit path, else $BEAMSCOPE_WEIGHTS_PATH,
// else <weightsDir>/baseline.weights. Returns an empty path and sets why when none.
std::filesystem::path resolveWeightsPath(const std::optional<std::string> &explicitPath,
                                         const std::optional<std::string> &weightsDir, std::string &why);

} // namespace beamscope::search
