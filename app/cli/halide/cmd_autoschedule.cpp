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
#include "core/search/autoschedule_params.h"
#include "core/session/search_session.h"
#include "core/util/atomic_file.h"
#include "core/util/json.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

namespace beamscope::cli {

namespace {

const char *const kSynopsis =
    "(--app NAME | --generator LIB.so --name GEN [--param k=v]...) [--weights W | --weights-dir DIR] [--beam N] "
    "[--passes P] [--seed S] [--dropout PCT] [--options 1111] [--profile v100|local|NAME] [--trace FILE] "
    "[--schedule-out FILE] [--continue-from TRACE --state ID | --partial-schedule LOOPNEST] "
    "[--freeze-inline-compute-root] [--no-subtiling] [--per-func-steps] [--threads N] "
    "[--randomize-tilings] [--force] [--json]";

int fail(const std::string &message)
{
    std::cerr << "beamscope-cli autoschedule: " << message << "\n";
    return kFailure;
}

struct AutoscheduleOptions {
    PipelineOptions pipeline;
    WeightsOptions weights;
    session::SearchRequest request; // the session checks it again (one place for the CLI and the explorer)
    std::optional<std::string> trace, scheduleOut, continueFrom, partialSchedule;
    int64_t state = -1;
    bool force = false, quiet = false, json = false;
};

int runAutoschedule(AutoscheduleOptions &o)
{
    session::SearchRequest &request = o.request;
    std::optional<std::string> app = o.pipeline.app;
    const std::optional<std::string> &library = o.pipeline.generator;
    // Continue from a recorded state: its decisions (the path's "detail"
    // objects, root first) are fixed; the pipeline defaults to the trace's.
    const std::optional<std::string> &continueFrom = o.continueFrom;
    const std::optional<std::string> &partialSchedule = o.partialSchedule;
    if (continueFrom) {
        const int64_t id = o.state;
        std::string error;
        const auto recorded = search::SearchTrace::read(*continueFrom, &error);
        if (!recorded)
            return fail(error);
        if (!recorded->find(id))
            return fail(*continueFrom + ": --state " + std::to_string(id) + ": no such state (the trace has ids 0 to " +
                        std::to_string(static_cast<int64_t>(recorded->nodes().size()) - 1) + ")");
        request.startDecisions = recorded->decisionsTo(id);
        if (!app)
            app = recorded->pipeline;
        else if (*app != recorded->pipeline)
            return fail(*continueFrom + ": field \"pipeline\": expected '" + *app + "' (--app), found '" +
                        recorded->pipeline + "'");
    }
    if (!app.has_value() && !library.has_value())
        return usageError("", "autoschedule", pipelineChoiceProblem(o.pipeline));
    if (app)
        request.pipeline.app = *app;
    if (library) {
        request.pipeline.generatorLibrary = pipelines::absoluteLibraryPath(*library);
        request.pipeline.generatorName = o.pipeline.name.value_or("");
        try {
            for (const auto &param : pipelines::parseGeneratorParams(o.pipeline.params))
                request.pipeline.generatorParams.push_back(param);
        } catch (const std::exception &e) {
            return fail(e.what());
        }
    }
    if (const auto problem = session::checkRequest(request))
        return usageError("", "autoschedule", "--" + problem->option + ": " + problem->message);

    std::string why;
    const std::filesystem::path weightsPath =
        // A generator defaults as an app does, by its name: the GUI and autotune take the same file.
        chooseWeights(o.weights.weights, o.weights.weightsDir, why,
                      library ? request.pipeline.generatorName : request.pipeline.app);
    if (weightsPath.empty())
        return fail(why);
    // Absolute, so a trace that names its weights still finds them from another directory.
    request.weightsPath = std::filesystem::absolute(weightsPath).lexically_normal().string();

    const std::optional<std::string> &tracePath = o.trace;
    const std::optional<std::string> &scheduleOut = o.scheduleOut;
    const bool force = o.force;
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
    StderrProgress progress("", o.json || o.quiet, StderrProgress::Style::SameLine);
    const session::SearchOutcome r = search->run(&progress, {});
    if (!r.ok)
        return fail(r.error);
    if (r.bestLoopNest.empty()) // cancelled
        return fail(search->pipelineName() + ": the search was cancelled before it found a schedule");
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
    if (o.json) {
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
        j["states_added"] = r.statesAdded;
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
        char tail[240];
        std::snprintf(tail, sizeof tail,
                      "predicted cost: %.6f\nstates evaluated: %lld (added: %lld)\nsearch time: %.3f s\n",
                      r.predictedCost, static_cast<long long>(r.statesEvaluated), static_cast<long long>(r.statesAdded),
                      r.searchSeconds);
        std::cout << tail;
    }
    return kSuccess;
}

CommandRun defineAutoschedule(CLI::App &app)
{
    auto o = std::make_shared<AutoscheduleOptions>();
    session::SearchRequest &p = o->request;
    const PipelineOptionHandles pipeline = addPipelineOptions(app, o->pipeline);
    addWeightsOptions(app, o->weights);
    addInteger(app, "--beam", p.beamSize, "the beam size", 1, 100000);
    addInteger(app, "--passes", p.passes, "coarse-to-fine passes (0: 1 for beam 1, else 5, as Halide)", 0, 100);
    addInteger(app, "--seed", p.seed, "the seed of the random dropout");
    addInteger(app, "--dropout", p.dropout, "the percentage of children kept per decision", 1, 100);
    addText(app, "--options", p.searchSpaceOptions,
            "Halide's search_space_options: compute_root, inline, compute at block, at thread (1111)")
        ->check(CLI::Validator(
            [](std::string &flags) -> std::string {
                search::SearchOptions parsed;
                return parsed.parse(flags) ? "" : "expected four 0/1 flags such as 1111, found '" + flags + "'";
            },
            "four 0/1 flags"));
    addText(app, "--profile", p.profile, "the GPU the search sizes schedules for: local, or a reference profile");
    addText(app, "--trace", o->trace, "record the search tree in this file (JSON lines)");
    addText(app, "--schedule-out", o->scheduleOut, "write the schedule's Halide source to this file");
    CLI::Option *from = addText(app, "--continue-from", o->continueFrom, "search on from a state of this trace");
    CLI::Option *state = addInteger(app, "--state", o->state, "--continue-from: the id of the state");
    CLI::Option *partial = addText(app, "--partial-schedule", o->partialSchedule,
                                   "keep the decisions of this loop-nest dump (Halide's partial_schedule_path)");
    from->needs(state)->excludes(partial)->excludes(pipeline.generator);
    state->needs(from);
    addFlag(app, "--freeze-inline-compute-root", p.freezeInlineComputeRoot,
            "a pre-pass fixes the inline / compute_root choice of the cheapest Funcs (HL_FREEZE_INLINE_COMPUTE_ROOT)");
    addFlag(app, "--no-subtiling", p.disableSubtiling, "serial tiles of 1 only");
    addFlag(app, "--randomize-tilings", p.randomizeTilings,
            "sample the tiling candidates instead of taking them in order");
    addFlag(app, "--per-func-steps", p.perFuncSteps,
            "Beamscope's own search, one decision per Func, instead of Halide's two steps per Func");
    addInteger(app, "--threads", p.threads, "threads that featurize and cost children (0: one per core)", 0, 1024);
    addFlag(app, "--force", o->force, "replace --trace and --schedule-out files that exist");
    addFlag(app, "--quiet", o->quiet, "no progress on stderr");
    addJsonFlag(app, o->json);
    return [o](const std::vector<std::string> &) { return runAutoschedule(*o); };
}

const CommandRegistration registration({"", "autoschedule", kSynopsis,
                                        "search a GPU schedule with the Anderson2021 cost model (beam search)",
                                        defineAutoschedule});

} // namespace

} // namespace beamscope::cli
