// beamscope-cli autoschedule: run Beamscope's GPU beam search on a built-in
// pipeline or a generator and print the chosen loop nest, the predicted cost
// per stage, the number of states evaluated and the search time. Wiring only:
// the search session (core/session) is the one the explorer runs.
//
// "schedule_source" and --schedule-out hold the Halide schedule source that
// core/schedule emits (paste it into a generator); the loop nest is printed
// beside it and kept under "loop_nest" in --json.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "app/cli/stderr_progress.h"
#include "app/cli/halide/cost_model_loading.h"
#include "app/cli/halide/pipeline_choice.h"
#include "core/pipelines/generator_library.h"
#include "core/session/search_session.h"
#include "core/util/atomic_file.h"
#include "core/util/json.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

namespace beamscope::cli {

namespace {

const char *const kSynopsis =
    "(--app NAME | --generator LIB.so --name GEN [--param k=v]...) [--weights W | --weights-dir DIR] [--beam N] "
    "[--passes P] [--seed S] [--dropout PCT] [--options 1111] [--profile v100|local|NAME] [--trace FILE] "
    "[--schedule-out FILE] [--continue-from TRACE --state ID | --partial-schedule LOOPNEST] "
    "[--freeze-inline-compute-root] [--no-subtiling] "
    "[--randomize-tilings] [--force] [--json]";

int fail(const std::string &message) {
    std::cerr << "beamscope-cli autoschedule: " << message << "\n";
    return kFailure;
}

int runAutoschedule(const std::vector<std::string> &rawArgs) {
    Arguments args(rawArgs, {"json", "force", "quiet", "freeze-inline-compute-root", "no-subtiling", "randomize-tilings"},
                   {"app", "generator", "name", "param", "weights", "weights-dir", "beam", "passes", "seed", "dropout",
                    "options", "profile", "trace", "schedule-out", "continue-from", "state", "partial-schedule"});
    if (!args.ok())
        return usageError("", "autoschedule", args.error());
    if (!args.positional().empty())
        return usageError("", "autoschedule", "unexpected argument '" + args.positional().front() + "'");
    auto app = args.value("app");
    const auto library = args.value("generator");
    // Continue from a recorded state: its decisions (the path's "detail"
    // objects, root first) are fixed; the pipeline defaults to the trace's.
    const auto continueFrom = args.value("continue-from");
    if (continueFrom.has_value() != args.value("state").has_value())
        return usageError("", "autoschedule", "--continue-from TRACE and --state ID go together");
    std::vector<Json> startDecisions;
    const auto partialSchedule = args.value("partial-schedule");
    if (partialSchedule && continueFrom)
        return usageError("", "autoschedule", "give --continue-from or --partial-schedule, not both");
    if (continueFrom) {
        const int64_t id = args.integer("state", -1);
        if (!args.ok())
            return usageError("", "autoschedule", args.error());
        std::string error;
        const auto recorded = search::SearchTrace::read(*continueFrom, &error);
        if (!recorded)
            return fail(error);
        const search::TraceNode *node = recorded->find(id);
        if (!node)
            return fail(*continueFrom + ": --state " + std::to_string(id) + ": no such state (the trace has ids 0 to " +
                        std::to_string(static_cast<int64_t>(recorded->nodes().size()) - 1) + ")");
        startDecisions = recorded->decisionsTo(id);
        if (library)
            return usageError("", "autoschedule", "--continue-from works on built-in pipelines (--app), not generators");
        if (!app)
            app = recorded->pipeline;
        else if (*app != recorded->pipeline)
            return fail(*continueFrom + ": field \"pipeline\": expected '" + *app + "' (--app), found '" +
                        recorded->pipeline + "'");
    }
    if (!app.has_value() && !library.has_value())
        return usageError("", "autoschedule", "give exactly one of --app NAME or --generator LIB.so");
    if (const std::string problem = pipelineChoiceProblem(args); !continueFrom && !problem.empty())
        return usageError("", "autoschedule", problem);

    session::SearchRequest request;
    if (app)
        request.pipeline.app = *app;
    if (library) {
        request.pipeline.generatorLibrary = *library;
        request.pipeline.generatorName = args.value("name").value_or("");
        try {
            for (const std::string &p : args.values("param"))
                request.pipeline.generatorParams.push_back(pipelines::parseGeneratorParam(p));
        } catch (const std::exception &e) {
            return fail(e.what());
        }
    }
    request.beamSize = static_cast<int>(args.integer("beam", 32));
    request.passes = static_cast<int>(args.integer("passes", 0));
    request.seed = static_cast<uint64_t>(args.integer("seed", 0));
    request.dropout = static_cast<int>(args.integer("dropout", 100));
    request.searchSpaceOptions = args.value("options").value_or("1111");
    request.freezeInlineComputeRoot = args.flag("freeze-inline-compute-root");
    request.disableSubtiling = args.flag("no-subtiling");
    request.randomizeTilings = args.flag("randomize-tilings");
    request.startDecisions = startDecisions;
    request.profile = args.value("profile").value_or("v100");
    if (!args.ok())
        return usageError("", "autoschedule", args.error());
    if (const auto problem = session::checkRequest(request))
        return usageError("", "autoschedule", "--" + problem->option + ": " + problem->message);

    std::string why;
    const std::filesystem::path weightsPath = chooseWeights(args.value("weights"), args.value("weights-dir"), why);
    if (weightsPath.empty())
        return fail(why);
    // Absolute, so a trace that names its weights still finds them from another directory.
    request.weightsPath = std::filesystem::absolute(weightsPath).lexically_normal().string();

    const auto tracePath = args.value("trace");
    const auto scheduleOut = args.value("schedule-out");
    const bool force = args.flag("force");
    for (const auto &p : {tracePath, scheduleOut})
        if (p && !force && std::filesystem::exists(*p))
            return fail(*p + ": exists (use --force to replace it)");
    if (partialSchedule) {
        // Halide's partial_schedule_path: a loop-nest dump (or a whole log) whose
        // Funcs, a prefix of the scheduling order, keep the dump's decisions.
        const std::optional<std::string> text = readTextFile(*partialSchedule);
        if (!text)
            return fail(*partialSchedule + ": cannot open");
        request.partialSchedule = *text;
    }
    request.recordTrace = tracePath.has_value();

    std::string error;
    const std::unique_ptr<session::SearchSession> search = session::SearchSession::open(request, &error);
    if (!search)
        return fail(partialSchedule && error.starts_with("partial schedule: ")
                        ? *partialSchedule + ": " + error.substr(std::string("partial schedule: ").size())
                        : error);
    StderrProgress progress("", args.flag("json") || args.flag("quiet"), StderrProgress::Style::SameLine);
    const session::SearchOutcome r = search->run(&progress, {});
    if (!r.ok)
        return fail(r.error);
    if (r.bestLoopNest.empty())
        return fail(search->pipelineName() + ": the search found no complete schedule");
    const std::string &source = r.bestSource;

    if (tracePath && !r.trace.write(*tracePath, force, &error))
        return fail(error);
    if (scheduleOut) {
        const WriteResult w = writeFileAtomically(*scheduleOut, std::span<const char>(source.data(), source.size()),
                                                  force ? Overwrite::Replace : Overwrite::Refuse);
        if (!w.ok)
            return fail(w.error);
    }
    const std::vector<std::string> &stageNames = search->stageNames();
    if (args.flag("json")) {
        Json j = Json::object();
        j["pipeline"] = search->pipelineName();
        j["predicted_cost"] = r.predictedCost;
        Json costs = Json::array();
        for (size_t i = 0; i < r.stageCosts.size(); i++) {
            Json s = Json::object();
            s["stage"] = stageNames[i];
            s["cost"] = r.stageCosts[i];
            costs.push(s);
        }
        j["stage_costs"] = costs;
        j["states_evaluated"] = r.statesEvaluated;
        j["search_seconds"] = r.searchSeconds;
        Json passCosts = Json::array();
        for (double c : r.passCosts)
            passCosts.push(Json(c));
        j["pass_costs"] = passCosts;
        j["schedule_source"] = source;
        j["loop_nest"] = r.bestLoopNest;
        j["profile"] = search->profileName();
        j["beam_size"] = request.beamSize;
        j["passes"] = search->passes();
        j["start_depth"] = r.startDepth;
        if (request.freezeInlineComputeRoot) {
            Json frozen = Json::array();
            for (const std::string &f : r.frozen)
                frozen.push(Json(f));
            j["frozen"] = frozen;
            j["pre_pass_cost"] = r.prePassCost;
        }
        std::cout << j.dump(2) << "\n";
    } else {
        std::cout << "pipeline: " << search->pipelineName() << " (profile " << search->profileName() << ", beam "
                  << request.beamSize << ", " << search->passes() << " passes)\n\n"
                  << r.bestLoopNest << "\n"
                  << source << "\npredicted cost per stage:\n";
        for (size_t i = 0; i < r.stageCosts.size(); i++) {
            char line[160];
            std::snprintf(line, sizeof line, "  %-32s %12.6f\n", stageNames[i].c_str(), r.stageCosts[i]);
            std::cout << line;
        }
        char tail[200];
        std::snprintf(tail, sizeof tail, "predicted cost: %.6f\nstates evaluated: %lld\nsearch time: %.3f s\n",
                      r.predictedCost, static_cast<long long>(r.statesEvaluated), r.searchSeconds);
        std::cout << tail;
    }
    return kSuccess;
}

const CommandRegistration registration({"", "autoschedule", kSynopsis,
                                        "search a GPU schedule with the Anderson2021 cost model (beam search)",
                                        runAutoschedule});

} // namespace

} // namespace beamscope::cli
