// beamscope-cli check-apps: the end-to-end check of the built-in pipelines
// (core/schedule/app_check.h): each is autoscheduled with the given weights
// and device profile, its schedule emitted, compiled for CUDA (PTX) and run on
// OpenCL through the bench worker against the host reference. Prints one row
// per app; exit 1 when any app fails. Wiring only.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "app/cli/stderr_progress.h"
#include "app/cli/halide/cost_model_loading.h"
#include "app/cli/text_table.h"
#include "core/search/device_limits.h"
#include "core/bench/targets.h"
#include "core/model/cost_model.h"
#include "core/schedule/app_check.h"
#include "core/search/autoschedule.h"
#include "core/util/json.h"
#include "core/util/progress.h"
#include "core/weights/weights.h"

#include <cstdio>
#include <iostream>
#include <sstream>

namespace beamscope::cli {

namespace {

const char *const kSynopsis =
    "[--beam N] [--passes P] [--seed S] [--weights W | --weights-dir DIR] [--profile v100|NAME] [--apps a,b,...] "
    "[--scale F] [--reps N] [--timeout S] [--jobs N] [--cache DIR] [--no-opencl] [--show-source] [--json]";

int fail(const std::string &message) {
    std::cerr << "beamscope-cli check-apps: " << message << "\n";
    return kFailure;
}

std::vector<std::string> splitList(const std::string &s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty())
            out.push_back(item);
    return out;
}

// "ok", "ok (tolerance)" or the failure in a few words; the whole message goes to --json and stderr.
std::string openclCell(const schedule::AppCheck &r, bool ran) {
    if (!r.searched() || !ran)
        return "-";
    const bench::Measurement &m = r.opencl;
    if (m.ok && !r.openclNote.empty())
        return "ok (PoCL cbs)";
    if (m.ok)
        return m.tolerance.empty() ? "ok" : "ok (math tol.)";
    return bench::failureName(m.failure);
}

Json rowJson(const schedule::AppCheck &r, bool ranOpenCL) {
    Json j = Json::object();
    j["app"] = r.app;
    j["passed"] = r.passed(ranOpenCL);
    if (!r.searched()) {
        j["error"] = r.error;
        return j;
    }
    j["search_seconds"] = r.searchSeconds;
    j["states_evaluated"] = r.statesEvaluated;
    j["predicted_cost"] = r.predictedCost;
    Json math = Json::array();
    for (const std::string &c : r.mathCalls)
        math.push(Json(c));
    j["math_calls"] = math;
    Json cuda = Json::object();
    cuda["ok"] = r.cuda.ok;
    cuda["target"] = r.cuda.target;
    cuda["compile_seconds"] = r.cuda.compileSeconds;
    if (!r.cuda.ok)
        cuda["error"] = r.cuda.error;
    j["cuda"] = cuda;
    if (ranOpenCL)
        j["opencl"] = r.opencl.toJson();
    if (!r.openclNote.empty())
        j["opencl_note"] = r.openclNote;
    j["schedule_source"] = r.source;
    return j;
}

int runCheckApps(const std::vector<std::string> &rawArgs) {
    Arguments args(rawArgs, {"json", "no-opencl", "show-source", "quiet"},
                   {"beam", "passes", "seed", "weights", "weights-dir", "profile", "apps", "scale", "reps", "timeout",
                    "jobs", "cache"});
    if (!args.ok())
        return usageError("", "check-apps", args.error());
    if (!args.positional().empty())
        return usageError("", "check-apps", "unexpected argument '" + args.positional().front() + "'");

    schedule::AppCheckOptions options;
    options.params.beamSize = static_cast<int>(args.integer("beam", 32));
    options.params.numPasses = static_cast<int>(args.integer("passes", 0));
    options.params.randomDropoutSeed = static_cast<uint64_t>(args.integer("seed", 0));
    options.run.reps = static_cast<int>(args.integer("reps", 3));
    options.run.warmup = 1;
    options.run.scale = args.number("scale", 0.125);
    options.run.timeoutSeconds = args.number("timeout", 300);
    options.compile.jobs = static_cast<int>(args.integer("jobs", 0));
    if (auto c = args.value("cache"))
        options.compile.cacheDir = *c;
    options.runOpenCL = !args.flag("no-opencl");
    if (!args.ok())
        return usageError("", "check-apps", args.error());
    if (options.params.beamSize < 1 || options.params.beamSize > 100000)
        return usageError("", "check-apps", "--beam: expected 1..100000");
    if (options.params.numPasses < 0 || options.params.numPasses > 100)
        return usageError("", "check-apps", "--passes: expected 0..100");
    if (options.run.reps < 1 || !(options.run.scale > 0) || !(options.run.timeoutSeconds > 0) || options.compile.jobs < 0)
        return usageError("", "check-apps", "--reps must be >= 1, --scale and --timeout > 0, --jobs >= 0");

    const std::string profile = args.value("profile").value_or("v100");
    const std::optional<gpu::DeviceFacts> facts = gpu::findProfile(profile);
    if (!facts)
        return fail("--profile: unknown profile '" + profile + "'");
    options.params.device = search::featureParamsFor(*facts);

    std::vector<pipelines::PipelineInfo> apps;
    if (auto list = args.value("apps")) {
        for (const std::string &name : splitList(*list)) {
            auto info = pipelines::findPipeline(name);
            if (!info)
                return fail("--apps: unknown pipeline '" + name + "' (see 'beamscope-cli apps')");
            apps.push_back(*info);
        }
        if (apps.empty())
            return usageError("", "check-apps", "--apps: expected a comma-separated list of pipeline names");
    } else {
        apps = pipelines::builtinPipelines();
    }

    std::string why;
    const std::filesystem::path weightsPath =
        chooseWeights(args.value("weights"), args.value("weights-dir"), why);
    if (weightsPath.empty())
        return fail(why);
    const std::unique_ptr<model::CostModel> model = model::loadCostModel(weightsPath, why);
    if (!model)
        return fail(why);

    StderrProgress progress("check-apps: ", args.flag("json") || args.flag("quiet"), StderrProgress::Style::EveryMessage);
    const std::vector<schedule::AppCheck> rows = schedule::checkApps(apps, *model, options, &progress);
    size_t passed = 0;
    for (const auto &r : rows)
        passed += r.passed(options.runOpenCL) ? 1 : 0;

    if (args.flag("json")) {
        Json j = Json::object();
        j["profile"] = facts->name;
        j["weights"] = weightsPath.string();
        j["beam_size"] = options.params.beamSize;
        j["passes"] = options.params.passes();
        j["scale"] = options.run.scale;
        j["cuda_target"] = bench::benchTarget(bench::TargetKind::Cuda, options.cudaCapability).to_string();
        Json list = Json::array();
        for (const auto &r : rows)
            list.push(rowJson(r, options.runOpenCL));
        j["apps"] = list;
        j["passed"] = static_cast<int>(passed);
        j["failed"] = static_cast<int>(rows.size() - passed);
        std::cout << j.dump(2) << "\n";
    } else {
        std::cout << "profile " << facts->name << ", beam " << options.params.beamSize << ", "
                  << options.params.passes() << " passes, weights " << weightsPath.string() << "; OpenCL runs at "
                  << options.run.scale << " of the estimated extents, strict_float, median of " << options.run.reps
                  << "\n\n";
        std::vector<std::vector<std::string>> table{
            {"app", "search s", "states", "predicted cost", "cuda compile", "opencl run", "max error", "opencl ms"}};
        for (const auto &r : rows) {
            if (!r.searched()) {
                table.push_back({r.app, "-", "-", "-", "-", "-", "-", "-"});
                continue;
            }
            const bool ran = options.runOpenCL && r.opencl.checked;
            table.push_back({r.app, formatNumber(r.searchSeconds, "%.2f"), std::to_string(r.statesEvaluated),
                             formatNumber(r.predictedCost, "%.4g"), r.cuda.ok ? "ok" : "FAILED",
                             openclCell(r, options.runOpenCL), ran ? formatNumber(r.opencl.maxAbsError, "%.3g") : "-",
                             r.opencl.medianMs > 0 ? formatNumber(r.opencl.medianMs, "%.3f") : "-"});
        }
        printTable(std::cout, table);
        std::cout << "\n" << passed << " of " << rows.size() << " apps passed\n";
        for (const auto &r : rows) {
            if (!r.searched())
                std::cout << r.app << ": search: " << r.error << "\n";
            else if (!r.cuda.ok)
                std::cout << r.app << ": CUDA: " << r.cuda.error << "\n";
            if (r.searched() && options.runOpenCL && !r.opencl.ok)
                std::cout << r.app << ": OpenCL: " << r.opencl.message << "\n" << r.opencl.workerLog << "\n";
            if (r.searched() && !r.openclNote.empty())
                std::cout << r.app << ": OpenCL: " << r.openclNote << "\n";
            if (r.searched() && !r.opencl.tolerance.empty())
                std::cout << r.app << ": OpenCL: " << r.opencl.tolerance << "\n";
            if (r.searched() && (args.flag("show-source") || !r.passed(options.runOpenCL)))
                std::cout << r.source << "\n";
        }
    }
    return passed == rows.size() ? kSuccess : kFailure;
}

const CommandRegistration registration({"", "check-apps", kSynopsis,
                                        "autoschedule every built-in app, compile it for CUDA, run it on OpenCL "
                                        "against the host reference",
                                        runCheckApps});

} // namespace

} // namespace beamscope::cli
