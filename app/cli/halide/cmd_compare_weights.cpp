// beamscope-cli compare-weights: several weights files judged on the same
// measured samples (core/samples/weights_comparison.h): per app and overall,
// Spearman, Kendall tau-b, pairwise accuracy, top-1 and top-5 scores. Typical
// use: Halide's V100 hold-one-out files against weights retrained hold-one-out
// on samples measured here. --measure-picks also searches each app with each
// weights file and times the schedule it picks on this device
// (core/autotune/measure_pick.h). Wiring only.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "app/cli/text_table.h"
#include "core/gpu/device_facts.h"
#include "core/bench/targets.h"
#include "core/autotune/measure_pick.h"
#include "core/samples/dataset.h"
#include "core/samples/weights_comparison.h"
#include "core/util/atomic_file.h"
#include "core/util/json.h"

#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <map>

namespace beamscope::cli {

namespace {

using namespace beamscope::samples;

constexpr const char *kSynopsis =
    "--samples DIR... --weights A [--weights B ...] [--num-cores N] [--measure-picks [--target opencl|cuda] "
    "[--profile v100|local|NAME] [--pick-beam N] [--scale F] [--reps N]] [--json]  (A: a weights file, a shipped name, "
    "a folder of <app>.weights, or halide-hold-one-out)";

// What the first sample folder's autotune manifest says: its target kind and output scale.
Json manifestOf(const std::filesystem::path &root)
{
    const std::optional<std::string> text = readTextFile(root / "manifest.json");
    const JsonParseResult parsed = text ? parseJson(*text) : JsonParseResult{};
    return parsed.value ? *parsed.value : Json();
}

Json number(double v) { return std::isfinite(v) ? Json(v) : Json(); }

struct CompareOptions {
    SampleRoots samples;
    std::vector<std::string> weights;
    int numCores = 80;
    bool measurePicks = false, json = false;
    std::optional<std::string> target, profile;
    int pickBeam = 32, reps = 10;
    std::optional<double> scale;
};

int runCompareWeights(const CompareOptions &o)
{
    const std::vector<std::filesystem::path> roots = o.samples.paths();
    const Json manifest = manifestOf(roots.front());
    const Json *device = manifest.find("device");
    const Json *params = manifest.find("parameters");
    const std::string manifestKind = device && device->find("kind") ? device->find("kind")->toString() : "";
    const double manifestScale =
        params && params->find("benchmark_scale") ? params->find("benchmark_scale")->toNumber(1.0) : 1.0;
    const bool measurePicks = o.measurePicks;
    const std::string targetName = o.target.value_or(manifestKind.empty() ? "opencl" : manifestKind);
    const int pickBeam = o.pickBeam;
    const double scale = o.scale.value_or(manifestScale);
    const std::optional<bench::TargetKind> target = bench::parseTargetKind(targetName);
    // --target is checked while parsing; this is the manifest's kind.
    if (!target || *target == bench::TargetKind::Host)
        return usageError("", "compare-weights", "--target: expected opencl or cuda, found '" + targetName + "'");

    std::vector<WeightsChoice> choices;
    for (const std::string &w : o.weights) {
        std::string error;
        WeightsChoice c = weightsChoiceFor(w, error);
        if (c.label.empty()) {
            std::cerr << "beamscope-cli compare-weights: --weights " << w << ": " << error << "\n";
            return kFailure;
        }
        choices.push_back(std::move(c));
    }
    const LoadedSamples loaded = loadSamples(roots);
    for (const std::string &e : loaded.errors)
        std::cerr << "beamscope-cli compare-weights: " << e << "\n";
    if (!loaded.ok())
        return kFailure;
    if (loaded.dataset.pipelines.empty()) {
        std::cerr << "beamscope-cli compare-weights: no usable sample in " << loaded.dataset.filesRead
                  << " file(s) read\n";
        return kFailure;
    }
    const std::vector<ChoiceScore> scores = compareWeights(loaded.dataset, choices, o.numCores);

    // (choice, app) -> the runtime of the schedule the search picks with that choice's file.
    std::map<std::pair<size_t, std::string>, autotune::PickMeasurement> picks;
    if (measurePicks) {
        autotune::PickOptions po;
        po.target = *target;
        std::string why;
        const std::string profile = o.profile.value_or(*target == bench::TargetKind::Cuda ? "local" : "v100");
        const auto facts = gpu::resolveProfile(profile, why);
        if (!facts) {
            std::cerr << "beamscope-cli compare-weights: --profile " << why << "\n";
            return kFailure;
        }
        po.device = *facts;
        if (*target == bench::TargetKind::Cuda) {
            const gpu::LocalDeviceQuery q = gpu::queryLocalDevice();
            if (!q.device) {
                std::cerr << "beamscope-cli compare-weights: --target cuda: " << q.status << "\n";
                return kFailure;
            }
            po.cudaCapability = bench::halideCudaCapability(q.device->computeCapability());
        }
        po.beamSize = pickBeam;
        po.run.scale = scale;
        po.run.reps = o.reps;
        po.run.timeoutSeconds = 60;
        for (size_t c = 0; c < scores.size(); c++)
            for (const AppScore &app : scores[c].apps) {
                if (!app.error.empty() || app.unnamed)
                    continue; // a pipeline no app names cannot be built again to search it
                std::cerr << "compare-weights: " << app.app << " with " << scores[c].label << ": searching (beam "
                          << pickBeam << ") and timing its pick on " << targetName << "\n";
                picks[{c, app.app}] = autotune::measurePick(app.app, app.weights, po);
            }
    }
    auto pickOf = [&](size_t c, const std::string &app) -> const autotune::PickMeasurement * {
        auto it = picks.find({c, app});
        return it == picks.end() ? nullptr : &it->second;
    };

    if (o.json) {
        Json out = Json::array();
        for (size_t c = 0; c < scores.size(); c++) {
            const ChoiceScore &s = scores[c];
            Json j = Json::object();
            j["weights"] = s.label;
            j["apps_scored"] = static_cast<uint64_t>(s.appsScored);
            for (auto [key, v] : {std::pair{"spearman", s.spearman},
                                  {"kendall", s.kendall},
                                  {"pairwise_accuracy", s.pairwiseAccuracy},
                                  {"top1", s.top1},
                                  {"top5", s.top5}})
                j[key] = number(v);
            Json common = Json::object();
            common["apps"] = static_cast<uint64_t>(s.common.apps);
            for (auto [key, v] : {std::pair{"spearman", s.common.spearman},
                                  {"kendall", s.common.kendall},
                                  {"pairwise_accuracy", s.common.pairwiseAccuracy},
                                  {"top1", s.common.top1},
                                  {"top5", s.common.top5}})
                common[key] = number(v);
            j["common_apps"] = common;
            Json apps = Json::array();
            for (const AppScore &app : s.apps) {
                Json e = Json::object();
                e["app"] = app.app;
                if (app.unnamed)
                    e["unnamed"] = true;
                e["weights_file"] = app.weights.string();
                e["schedules"] = static_cast<uint64_t>(app.schedules);
                if (!app.error.empty()) {
                    e["error"] = app.error;
                } else {
                    e["spearman"] = number(app.rank.spearman);
                    e["kendall"] = number(app.rank.kendall);
                    e["pairwise_accuracy"] = number(app.rank.pairwiseAccuracy);
                    e["top1"] = number(app.top1);
                    e["top5"] = number(app.top5);
                    Json intervals = Json::object();
                    for (auto [key, iv] : {std::pair{"spearman", app.intervals.spearman},
                                           {"kendall", app.intervals.kendall},
                                           {"top1", app.intervals.top1},
                                           {"top5", app.intervals.top5}}) {
                        Json pair = Json::array();
                        pair.push(number(iv.low));
                        pair.push(number(iv.high));
                        intervals[key] = pair;
                    }
                    e["bootstrap_95"] = intervals;
                    e["in_sample"] = app.inSample;
                    if (const auto *p = pickOf(c, app.app)) {
                        Json pick = Json::object();
                        pick["ok"] = p->ok;
                        if (p->ok) {
                            pick["runtime_ms"] = p->runtimeMs;
                            pick["predicted_cost"] = p->predictedCost;
                        } else {
                            pick["error"] = p->error;
                        }
                        e["pick"] = pick;
                    }
                }
                apps.push(e);
            }
            j["apps"] = apps;
            out.push(j);
        }
        std::cout << out.dump(2) << "\n";
        return kSuccess;
    }

    const auto interval = [](const Interval &iv) {
        return iv.defined() ? "[" + formatNumber(iv.low, "%.2f") + ", " + formatNumber(iv.high, "%.2f") + "]"
                            : std::string("-");
    };
    std::vector<std::vector<std::string>> rows = {
        {"app", "weights", "schedules", "spearman", "95% interval", "kendall", "pairwise", "top-1", "top-5"}};
    if (measurePicks)
        rows.front().push_back("pick ms");
    for (size_t c = 0; c < scores.size(); c++) {
        const ChoiceScore &s = scores[c];
        for (const AppScore &app : s.apps) {
            if (!app.error.empty()) {
                rows.push_back({app.app, s.label, std::to_string(app.schedules), "-", "-", "-", "-", "-", "-"});
                continue;
            }
            rows.push_back({app.app + (app.inSample ? " (in-sample)" : ""), s.label, std::to_string(app.schedules),
                            formatNumber(app.rank.spearman, "%.3f"), interval(app.intervals.spearman),
                            formatNumber(app.rank.kendall, "%.3f"), formatNumber(app.rank.pairwiseAccuracy, "%.3f"),
                            formatNumber(app.top1, "%.3f"), formatNumber(app.top5, "%.3f")});
            if (const auto *p = pickOf(c, app.app))
                rows.back().push_back(p->ok ? formatNumber(p->runtimeMs, "%.4g") : "failed");
        }
    }
    for (const ChoiceScore &s : scores)
        rows.push_back({"mean over " + std::to_string(s.appsScored) + " app(s)", s.label, "",
                        formatNumber(s.spearman, "%.3f"), "", formatNumber(s.kendall, "%.3f"),
                        formatNumber(s.pairwiseAccuracy, "%.3f"), formatNumber(s.top1, "%.3f"),
                        formatNumber(s.top5, "%.3f")});
    if (scores.size() > 1)
        for (const ChoiceScore &s : scores)
            rows.push_back({"mean over the " + std::to_string(s.common.apps) + " app(s) every choice scored", s.label,
                            "", formatNumber(s.common.spearman, "%.3f"), "", formatNumber(s.common.kendall, "%.3f"),
                            formatNumber(s.common.pairwiseAccuracy, "%.3f"), formatNumber(s.common.top1, "%.3f"),
                            formatNumber(s.common.top5, "%.3f")});
    printTable(std::cout, rows);
    std::cout << "top-k: best runtime among the model's k best-ranked schedules / best runtime (1 is perfect)\n"
                 "95% interval: Spearman's percentile bootstrap over the app's schedules (1000 resamples); "
                 "in-sample: the file was trained on this app\n";
    for (size_t c = 0; c < scores.size(); c++)
        for (size_t a = 0; a < scores[c].apps.size(); a++)
            if (scores[c].apps[a].error.empty())
                for (const std::string &caveat : rowCaveats(scores, c, a))
                    std::cout << "note: " << scores[c].apps[a].app << " with " << scores[c].label << ": " << caveat
                              << "\n";
    std::cout << std::flush;
    for (const ChoiceScore &s : scores)
        for (const AppScore &app : s.apps)
            if (!app.error.empty())
                std::cerr << "note: " << app.app << " with " << s.label << ": " << app.error << "\n";
    if (!scores.empty()) {
        size_t unnamed = 0;
        for (const AppScore &app : scores.front().apps)
            unnamed += app.unnamed ? 1 : 0;
        if (unnamed > 0)
            std::cerr
                << "note: " << unnamed
                << " pipeline(s) have no app name (no apps.tsv, sample pipeline id or folder names them): each is "
                   "scored on its own, never ranked against another\n";
    }
    for (const auto &[key, p] : picks)
        if (!p.ok)
            std::cerr << "note: the pick for " << key.second << " with " << scores[key.first].label
                      << " was not timed: " << p.error << "\n";
    if (measurePicks)
        std::cout << "pick ms: the schedule the search (beam " << pickBeam
                  << ") picks with that weights file, timed on " << targetName
                  << (*target == bench::TargetKind::OpenCL ? " (PoCL: a CPU device)" : "") << "\n";
    return kSuccess;
}

CommandRun defineCompareWeights(CLI::App &app)
{
    auto o = std::make_shared<CompareOptions>();
    addSampleRoots(app, o->samples);
    addRepeated(app, "--weights", o->weights,
                "weights to judge (once per weights): a file, a shipped name, a folder of <app>.weights, or "
                "halide-hold-one-out")
        ->required();
    addInteger(app, "--num-cores", o->numCores, "the parallelism the cost model assumes", 1, 1000000);
    addFlag(app, "--measure-picks", o->measurePicks,
            "also search each app with each weights file and time the schedule it picks");
    addText(app, "--target", o->target,
            "--measure-picks: where picks run (default: the samples' manifest's, else opencl)")
        ->check(oneOf({"opencl", "cuda"}));
    addText(app, "--profile", o->profile, "--measure-picks: the GPU profile (default: local for cuda, else v100)");
    addInteger(app, "--pick-beam", o->pickBeam, "--measure-picks: the beam size", 1, 100000);
    addNumber(app, "--scale", o->scale,
              "--measure-picks: output extents, the estimates times this (default: the "
              "manifest's)",
              0, std::numeric_limits<double>::infinity(), true);
    addInteger(app, "--reps", o->reps, "--measure-picks: timed runs per pick", 1, std::numeric_limits<int>::max());
    addJsonFlag(app, o->json);
    return [o](const std::vector<std::string> &) { return runCompareWeights(*o); };
}

const CommandRegistration registration{Command{
    "", "compare-weights", kSynopsis,
    "rank quality of several weights on measured samples, per app and overall (Spearman, Kendall, pairwise, top-k)",
    defineCompareWeights}};

} // namespace

} // namespace beamscope::cli
