// beamscope-cli compare-search: a Beamscope search trace against a search tree
// Halide recorded for the same pipeline (shared/golden/search_trees/<p>/beam<N>):
// per pass and decided Func, the states each side costed, the beam each kept and
// the best cost, and the first state where the two searches part, with both dumps
// (core/search/search_comparison.h).

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "core/search/golden_tree.h"
#include "core/search/search_comparison.h"
#include "core/search/search_trace.h"
#include "core/session/search_session.h"
#include "core/weights/shipped_weights.h"

#include <filesystem>
#include <iostream>
#include <memory>

namespace beamscope::cli {

namespace {

const char *const kSynopsis = "--trace FILE --golden DIR [--json]";

int fail(const std::string &message)
{
    std::cerr << "beamscope-cli compare-search: " << message << "\n";
    return kFailure;
}

struct CompareSearchOptions {
    std::string trace;
    std::string golden;
    bool json = false;
};

// The trace's weights when they are still there (the session loads a model), else the shipped baseline:
// replaying decisions into loop nests does not depend on the weights.
std::string weightsForReplay(const search::SearchTrace &trace)
{
    if (!trace.params.weights.empty() && std::filesystem::exists(trace.params.weights))
        return trace.params.weights;
    std::string why;
    return weights::resolveWeightsArgument(std::nullopt, std::nullopt, why).string();
}

int runCompareSearch(const CompareSearchOptions &o)
{
    std::string error;
    const std::optional<search::SearchTrace> trace = search::SearchTrace::read(o.trace, &error);
    if (!trace)
        return fail(o.trace + ": " + error);
    const std::optional<search::GoldenTree> golden = search::GoldenTree::read(o.golden, &error);
    if (!golden)
        return fail(error);

    session::SearchRequest request;
    request.pipeline = session::pipelineChoiceOf(*trace); // an app, or the generator the trace names
    request.weightsPath = weightsForReplay(*trace);
    request.recordTrace = false;
    const std::unique_ptr<session::SearchSession> session = session::SearchSession::open(request, &error);
    if (!session)
        return fail(o.trace + ": cannot rebuild '" + trace->pipeline + "'" +
                    (request.pipeline.app.empty() ? " from generator " + request.pipeline.generatorName + " of " +
                                                        request.pipeline.generatorLibrary
                                                  : std::string()) +
                    ": " + error);

    // Halide numbers passes from 1; a freeze_inline_compute_root pre-pass (trace pass 0) has no counterpart.
    const std::optional<std::vector<search::ComparedState>> compared = search::comparedStates(
        *trace, [&](const std::vector<Json> &decisions) { return session->halideLoopNest(decisions, &error); });
    if (!compared)
        return fail(o.trace + ": " + error);
    const std::vector<search::ComparedState> &ours = *compared;
    const search::SearchComparison c = search::compareSearch(ours, *golden, 1e-5, trace->params.halideSteps);
    if (o.json)
        std::cout << search::comparisonJson(c).dump() << "\n";
    else
        std::cout << "Beamscope " << o.trace << " against Halide " << o.golden << "\n\n" << search::formatComparison(c);
    return kSuccess;
}

CommandRun defineCompareSearch(CLI::App &app)
{
    auto o = std::make_shared<CompareSearchOptions>();
    addText(app, "--trace", o->trace, "a Beamscope search trace (autoschedule --trace)")->required();
    addText(app, "--golden", o->golden, "a search tree Halide recorded: a folder with states.tsv and beam_dumps.txt")
        ->required();
    addJsonFlag(app, o->json);
    return [o](const std::vector<std::string> &) { return runCompareSearch(*o); };
}

const CommandRegistration registration({"", "compare-search", kSynopsis,
                                        "compare a search trace with a search tree Halide recorded, state for state",
                                        defineCompareSearch});

} // namespace

} // namespace beamscope::cli
