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
        for (const search::TraceNode *n = node; n; n = recorded->find(n->parent))
            startDecisions.insert(startDecisions.begin(), n->detail);
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

    search::AutoscheduleParams params;
    params.beamSize = static_cast<int>(args.integer("beam", 32));
    params.numPasses = static_cast<int>(args.integer("passes", 0));
    params.randomDropoutSeed = static_cast<uint64_t>(args.integer("seed", 0));
    params.randomDropout = static_cast<int>(args.integer("dropout", 100));
    params.freezeInlineComputeRoot = args.flag("freeze-inline-compute-root");
    params.disableSubtiling = args.flag("no-subtiling");
    params.randomizeTilings = args.flag("randomize-tilings");
    params.startDecisions = startDecisions;
    if (!args.ok())
        return usageError("", "autoschedule", args.error());
    if (params.beamSize < 1 || params.beamSize > 100000)
        return usageError("", "autoschedule", "--beam: expected 1..100000, found " + std::to_string(params.beamSize));
    if (params.numPasses < 0 || params.numPasses > 100)
        return usageError("", "autoschedule", "--passes: expected 0..100");
    if (params.randomDropout < 1 || params.randomDropout > 100)
        return usageError("", "autoschedule", "--dropout: expected a percentage 1..100 of children kept");
    if (auto o = args.value("options"); o && !params.options.parse(*o))
        return usageError("", "autoschedule", "--options: expected four 0/1 flags such as 1111, found '" + *o + "'");

    // Device profile -> search limits.
    const std::string profile = args.value("profile").value_or("v100");
    std::string profileError;
    const std::optional<gpu::DeviceFacts> facts = chooseProfile(profile, profileError);
    if (!facts)
        return fail(profileError);
    params.device = search::featureParamsFor(*facts);

    std::string why;
    const std::filesystem::path weightsPath = chooseWeights(args.value("weights"), args.value("weights-dir"), why);
    if (weightsPath.empty())
        return fail(why);
    const std::unique_ptr<model::CostModel> model = loadCostModel(weightsPath, why);
    if (!model)
        return fail(why);

    const auto tracePath = args.value("trace");
    const auto scheduleOut = args.value("schedule-out");
    const bool force = args.flag("force");
    for (const auto &p : {tracePath, scheduleOut})
        if (p && !force && std::filesystem::exists(*p))
            return fail(*p + ": exists (use --force to replace it)");

    try {
        // Without --app, --continue-from's trace names the pipeline.
        pipelines::PipelineInstance instance =
            app && !args.value("app") ? buildBuiltinPipeline(*app) : buildChosenPipeline(args);
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
        StderrProgress progress("", args.flag("json") || args.flag("quiet"), StderrProgress::Style::SameLine);
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
        if (args.flag("json")) {
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

const CommandRegistration registration({"", "autoschedule", kSynopsis,
                                        "search a GPU schedule with the Anderson2021 cost model (beam search)",
                                        runAutoschedule});

} // namespace

} // namespace beamscope::cli
