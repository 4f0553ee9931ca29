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
#include "core/util/key_value.h"

#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>

namespace beamscope::cli {

namespace {

const char *const kSynopsis =
    "[--beam N] [--passes P] [--seed S] [--weights W | --weights-dir DIR] [--profile v100|NAME] [--apps a,b,...] "
    "[--scale F] [--reps N] [--timeout S] [--jobs N] [--cache DIR] [--no-opencl] [--show-source] [--json]";

int fail(const std::string &message)
{
    std::cerr << "beamscope-cli check-apps: " << message << "\n";
    return kFailure;
}

// "ok", "ok (tolerance)" or the failure in a few words; the whole message goes to --json and stderr.
std::string openclCell(const schedule::AppCheck &r, bool ran)
{
    if (!r.searched() || !ran)
        return "-";
    const bench::Measurement &m = r.opencl;
    if (m.ok && !r.openclNote.empty())
        return "ok (PoCL cbs)";
    if (m.ok)
        return m.tolerance.empty() ? "ok" : "ok (math tol.)";
    if (r.outputNotComparable())
        return "ran, not compared";
    return bench::failureName(m.failure);
}

Json rowJson(const schedule::AppCheck &r, bool ranOpenCL)
{
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
    if (ranOpenCL) {
        j["opencl"] = r.opencl.toJson();
        j["output_compared"] = !r.outputNotComparable();
    }
    if (!r.openclNote.empty())
        j["opencl_note"] = r.openclNote;
    j["schedule_source"] = r.source;
    return j;
}

struct CheckAppsOptions {
    schedule::AppCheckOptions check;
    WeightsOptions weights;
    std::string profile = "v100";
    std::optional<std::string> apps, cache;
    bool noOpenCL = false, showSource = false, quiet = false, json = false;
};

int runCheckApps(CheckAppsOptions &o)
{
    schedule::AppCheckOptions &options = o.check;
    if (o.cache)
        options.compile.cacheDir = *o.cache;
    options.runOpenCL = !o.noOpenCL;

    const std::string &profile = o.profile;
    const std::optional<gpu::DeviceFacts> facts = gpu::findProfile(profile);
    if (!facts)
        return fail("--profile: unknown profile '" + profile + "'");
    options.params.device = search::featureParamsFor(*facts);

    std::vector<pipelines::PipelineInfo> apps;
    if (const auto &list = o.apps) {
        for (const std::string &name : splitCommaList(*list)) {
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
    const std::filesystem::path weightsPath = chooseWeights(o.weights.weights, o.weights.weightsDir, why);
    if (weightsPath.empty())
        return fail(why);
    const std::unique_ptr<model::CostModel> model = model::loadCostModel(weightsPath, why);
    if (!model)
        return fail(why);

    StderrProgress progress("check-apps: ", o.json || o.quiet, StderrProgress::Style::EveryMessage);
    const std::vector<schedule::AppCheck> rows = schedule::checkApps(apps, *model, options, &progress);
    size_t passed = 0;
    for (const auto &r : rows)
        passed += r.passed(options.runOpenCL) ? 1 : 0;

    if (o.json) {
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
            if (r.searched() && options.runOpenCL && r.outputNotComparable())
                std::cout << r.app << ": OpenCL: ran to the end; output not compared: the pipeline calls an "
                          << "approximate reciprocal, which the host and the device compute differently ("
                          << r.opencl.message << ")\n";
            else if (r.searched() && options.runOpenCL && !r.opencl.ok)
                std::cout << r.app << ": OpenCL: " << r.opencl.message << "\n" << r.opencl.workerLog << "\n";
            if (r.searched() && !r.openclNote.empty())
                std::cout << r.app << ": OpenCL: " << r.openclNote << "\n";
            if (r.searched() && !r.opencl.tolerance.empty())
                std::cout << r.app << ": OpenCL: " << r.opencl.tolerance << "\n";
            if (r.searched() && (o.showSource || !r.passed(options.runOpenCL)))
                std::cout << r.source << "\n";
        }
    }
    return passed == rows.size() ? kSuccess : kFailure;
}

CommandRun defineCheckApps(CLI::App &app)
{
    auto o = std::make_shared<CheckAppsOptions>();
    schedule::AppCheckOptions &c = o->check;
    c.run.reps = 3;
    c.run.warmup = 1;
    c.run.scale = 0.125;
    c.run.timeoutSeconds = 300;
    addInteger(app, "--beam", c.params.beamSize, "the beam size", 1, 100000);
    addInteger(app, "--passes", c.params.numPasses, "coarse-to-fine passes (0: 1 for beam 1, else 5, as Halide)", 0,
               100);
    addInteger(app, "--seed", c.params.randomDropoutSeed, "the seed of the random dropout");
    addWeightsOptions(app, o->weights);
    addText(app, "--profile", o->profile, "the GPU profile the search sizes schedules for");
    addText(app, "--apps", o->apps, "the apps to check, comma-separated (default: every built-in one)");
    addNumber(app, "--scale", c.run.scale, "the OpenCL run's output extents: the estimates times this", 0,
              std::numeric_limits<double>::infinity(), true);
    addInteger(app, "--reps", c.run.reps, "timed runs per app", 1, std::numeric_limits<int>::max());
    addNumber(app, "--timeout", c.run.timeoutSeconds, "seconds each OpenCL run may take", 0,
              std::numeric_limits<double>::infinity(), true);
    addInteger(app, "--jobs", c.compile.jobs, "parallel compilations (0: one per hardware thread)", 0,
               std::numeric_limits<int>::max());
    addText(app, "--cache", o->cache, "the compiled-library cache folder");
    addFlag(app, "--no-opencl", o->noOpenCL, "compile for CUDA only; run nothing");
    addFlag(app, "--show-source", o->showSource, "print every app's schedule source, not only failing ones'");
    addFlag(app, "--quiet", o->quiet, "no progress on stderr");
    addJsonFlag(app, o->json);
    return [o](const std::vector<std::string> &) { return runCheckApps(*o); };
}

const CommandRegistration registration({"", "check-apps", kSynopsis,
                                        "autoschedule every built-in app, compile it for CUDA, run it on OpenCL "
                                        "against the host reference",
                                        defineCheckApps});

} // namespace

} // namespace beamscope::cli
