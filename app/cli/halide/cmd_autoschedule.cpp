// beamscope-cli autoschedule: run Beamscope's GPU beam search on a built-in
// pipeline or a generator and print the chosen loop nest, the predicted cost
// per stage, the number of states evaluated and the search time. Wiring only:
// the search lives in core/search.
//
// "schedule_source" and --schedule-out hold the Halide schedule source that
// core/schedule emits (paste it into a generator); the loop nest is printed
// beside it and kept under "loop_nest" in --json.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "app/cli/stderr_progress.h"
#include "app/cli/halide/cost_model_loading.h"
#include "app/cli/halide/pipeline_choice.h"
#include "app/cli/halide/profile_choice.h"
#include "core/search/device_limits.h"
#include "core/gpu/device_facts.h"
#include "core/gpu/search_parameters.h"
#include "core/model/cost_model.h"
#include "core/pipelines/generator_library.h"
#include "core/pipelines/pipeline.h"
#include "core/schedule/emit_source.h"
#include "core/search/autoschedule.h"
#include "core/search/search_space.h"
#include "core/util/atomic_file.h"
#include "core/util/json.h"
#include "core/weights/weights.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <iostream>
#include <memory>

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

struct AutoscheduleOptions {
    PipelineOptions pipeline;
    WeightsOptions weights;
    search::AutoscheduleParams params;
    std::string profile = "v100";
    std::optional<std::string> searchOptions, trace, scheduleOut, continueFrom, partialSchedule;
    int64_t state = -1;
    bool force = false, quiet = false, json = false;
};

int runAutoschedule(AutoscheduleOptions &o) {
    search::AutoscheduleParams &params = o.params;
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
        const search::TraceNode *node = recorded->find(id);
        if (!node)
            return fail(*continueFrom + ": --state " + std::to_string(id) + ": no such state (the trace has ids 0 to " +
                        std::to_string(static_cast<int64_t>(recorded->nodes().size()) - 1) + ")");
        for (const search::TraceNode *n = node; n; n = recorded->find(n->parent))
            params.startDecisions.insert(params.startDecisions.begin(), n->detail);
        if (!app)
            app = recorded->pipeline;
        else if (*app != recorded->pipeline)
            return fail(*continueFrom + ": field \"pipeline\": expected '" + *app + "' (--app), found '" +
                        recorded->pipeline + "'");
    }
    if (!app.has_value() && !library.has_value())
        return usageError("", "autoschedule", pipelineChoiceProblem(o.pipeline));
    if (o.searchOptions)
        params.options.parse(*o.searchOptions); // checked while parsing the command line

    // Device profile -> search limits.
    const std::string &profile = o.profile;
    std::string profileError;
    const std::optional<gpu::DeviceFacts> facts = chooseProfile(profile, profileError);
    if (!facts)
        return fail(profileError);
    params.device = search::featureParamsFor(*facts);

    std::string why;
    const std::filesystem::path weightsPath = chooseWeights(o.weights.weights, o.weights.weightsDir, why);
    if (weightsPath.empty())
        return fail(why);
    const std::unique_ptr<model::CostModel> model = loadCostModel(weightsPath, why);
    if (!model)
        return fail(why);

    const std::optional<std::string> &tracePath = o.trace;
    const std::optional<std::string> &scheduleOut = o.scheduleOut;
    const bool force = o.force;
    for (const auto &p : {tracePath, scheduleOut})
        if (p && !force && std::filesystem::exists(*p))
            return fail(*p + ": exists (use --force to replace it)");

    try {
        // Without --app, --continue-from's trace names the pipeline.
        pipelines::PipelineInstance instance =
            app && !o.pipeline.app ? buildBuiltinPipeline(*app) : buildChosenPipeline(o.pipeline);
        if (partialSchedule) {
            // Halide's partial_schedule_path: a loop-nest dump (or a whole log) whose
            // Funcs, a prefix of the scheduling order, keep the dump's decisions.
            std::ifstream in(*partialSchedule, std::ios::binary);
            if (!in)
                return fail(*partialSchedule + ": cannot open");
            std::stringstream text;
            text << in.rdbuf();
            try {
                params.startDecisions = search::partialScheduleDecisions(instance.outputs, text.str());
            } catch (const std::invalid_argument &e) {
                return fail(*partialSchedule + ": " + e.what());
            }
        }
        std::optional<search::SearchTrace> trace;
        if (tracePath)
            trace.emplace(params.traceCap);
        StderrProgress progress("", o.json || o.quiet, StderrProgress::Style::SameLine);
        search::AutoscheduleOutcome out =
            search::autoschedule(instance.name, instance.outputs, *model, params, trace ? &*trace : nullptr, &progress);
        const search::SearchResult &r = out.result;
        if (!r.best)
            return fail(instance.name + ": the search found no complete schedule");
        const std::string loopNest = r.best->dump();
        schedule::EmitOptions emit;
        emit.pipeline = instance.name;
        emit.stageCosts = &r.stageCosts;
        emit.totalCost = r.cost;
        const std::string source = schedule::emitSource(*r.best, instance.outputs, emit);

        if (trace) {
            // The Search workspace reads params.weights to show an opened trace's
            // cost terms; absolute, so the trace still finds them from another directory.
            trace->params["weights"] = std::filesystem::absolute(weightsPath).lexically_normal().string();
            std::string error;
            if (!trace->write(*tracePath, force, &error))
                return fail(error);
        }
        if (scheduleOut) {
            const WriteResult w = writeFileAtomically(*scheduleOut, std::span<const char>(source.data(), source.size()),
                                                      force ? Overwrite::Replace : Overwrite::Refuse);
            if (!w.ok)
                return fail(w.error);
        }
        if (o.json) {
            Json j = Json::object();
            j["pipeline"] = instance.name;
            j["predicted_cost"] = r.cost;
            Json costs = Json::array();
            for (size_t i = 0; i < r.stageCosts.size(); i++) {
                Json s = Json::object();
                s["stage"] = out.stageNames[i];
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
            j["loop_nest"] = loopNest;
            j["profile"] = facts->name;
            j["beam_size"] = params.beamSize;
            j["passes"] = params.passes();
            j["start_depth"] = r.startDepth;
            if (params.freezeInlineComputeRoot) {
                Json frozen = Json::array();
                for (const std::string &f : r.frozen)
                    frozen.push(Json(f));
                j["frozen"] = frozen;
                j["pre_pass_cost"] = r.prePassCost;
            }
            std::cout << j.dump(2) << "\n";
        } else {
            std::cout << "pipeline: " << instance.name << " (profile " << facts->name << ", beam " << params.beamSize
                      << ", " << params.passes() << " passes)\n\n"
                      << loopNest << "\n"
                      << source << "\npredicted cost per stage:\n";
            for (size_t i = 0; i < r.stageCosts.size(); i++) {
                char line[160];
                std::snprintf(line, sizeof line, "  %-32s %12.6f\n", out.stageNames[i].c_str(), r.stageCosts[i]);
                std::cout << line;
            }
            char tail[200];
            std::snprintf(tail, sizeof tail, "predicted cost: %.6f\nstates evaluated: %lld\nsearch time: %.3f s\n",
                          r.cost, static_cast<long long>(r.statesEvaluated), r.searchSeconds);
            std::cout << tail;
        }
        return kSuccess;
    } catch (const pipelines::GeneratorError &e) {
        return fail(e.what());
    } catch (const dag::DagError &e) {
        return fail(e.what());
    } catch (const Halide::Error &e) {
        return fail(std::string("Halide: ") + e.what());
    } catch (const std::exception &e) {
        return fail(e.what());
    }
}

CommandRun defineAutoschedule(CLI::App &app) {
    auto o = std::make_shared<AutoscheduleOptions>();
    search::AutoscheduleParams &p = o->params;
    const PipelineOptionHandles pipeline = addPipelineOptions(app, o->pipeline);
    addWeightsOptions(app, o->weights);
    addInteger(app, "--beam", p.beamSize, "the beam size", 1, 100000);
    addInteger(app, "--passes", p.numPasses, "coarse-to-fine passes (0: 1 for beam 1, else 5, as Halide)", 0, 100);
    addInteger(app, "--seed", p.randomDropoutSeed, "the seed of the random dropout");
    addInteger(app, "--dropout", p.randomDropout, "the percentage of children kept per decision", 1, 100);
    addText(app, "--options", o->searchOptions,
            "Halide's search_space_options: compute_root, inline, compute at block, at thread (1111)")
        ->check(CLI::Validator(
            [](std::string &flags) -> std::string {
                search::SearchOptions parsed;
                return parsed.parse(flags) ? "" : "expected four 0/1 flags such as 1111, found '" + flags + "'";
            },
            "four 0/1 flags"));
    addText(app, "--profile", o->profile, "the GPU the search sizes schedules for: local, or a reference profile");
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
    addFlag(app, "--randomize-tilings", p.randomizeTilings, "sample the tiling candidates instead of taking them in order");
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
