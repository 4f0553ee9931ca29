// beamscope-cli compare-weights: several weights files judged on the same
// measured samples (core/samples/weights_comparison.h): per app and overall,
// Spearman, Kendall tau-b, pairwise accuracy, top-1 and top-5 scores. Typical
// use: Halide's V100 hold-one-out files against weights retrained hold-one-out
// on samples measured here. Wiring only.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "app/cli/text_table.h"
#include "core/samples/dataset.h"
#include "core/samples/weights_comparison.h"
#include "core/util/json.h"

#include <cmath>
#include <iostream>

namespace beamscope::cli {

namespace {

using namespace beamscope::samples;

constexpr const char *kSynopsis =
    "--samples DIR... --weights A [--weights B ...] [--num-cores N] [--json]  (A: a weights file, a shipped name, a "
    "folder of <app>.weights, or halide-hold-one-out)";

Json number(double v) { return std::isfinite(v) ? Json(v) : Json(); }

int runCompareWeights(const std::vector<std::string> &args)
{
    Arguments a(args, {"json"}, {"samples", "weights", "num-cores"});
    if (!a.ok())
        return usageError("", "compare-weights", a.error());
    std::vector<std::filesystem::path> roots;
    for (const auto &v : a.values("samples"))
        roots.emplace_back(v);
    for (const auto &v : a.positional())
        roots.emplace_back(v);
    if (a.values("samples").empty())
        return usageError("", "compare-weights", "--samples is required");
    if (a.values("weights").empty())
        return usageError("", "compare-weights", "--weights is required (once per weights to compare)");
    const long long numCores = a.integer("num-cores", 80);
    if (!a.ok())
        return usageError("", "compare-weights", a.error());
    if (numCores < 1 || numCores > 1000000)
        return usageError("", "compare-weights", "--num-cores: expected a positive integer");

    std::vector<WeightsChoice> choices;
    for (const std::string &w : a.values("weights")) {
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
    const std::vector<ChoiceScore> scores = compareWeights(loaded.dataset, choices, static_cast<int>(numCores));

    if (a.flag("json")) {
        Json out = Json::array();
        for (const ChoiceScore &s : scores) {
            Json j = Json::object();
            j["weights"] = s.label;
            j["apps_scored"] = static_cast<uint64_t>(s.appsScored);
            for (auto [key, v] : {std::pair{"spearman", s.spearman}, {"kendall", s.kendall},
                                  {"pairwise_accuracy", s.pairwiseAccuracy}, {"top1", s.top1}, {"top5", s.top5}})
                j[key] = number(v);
            Json apps = Json::array();
            for (const AppScore &app : s.apps) {
                Json e = Json::object();
                e["app"] = app.app;
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
                }
                apps.push(e);
            }
            j["apps"] = apps;
            out.push(j);
        }
        std::cout << out.dump(2) << "\n";
        return kSuccess;
    }

    std::vector<std::vector<std::string>> rows = {
        {"app", "weights", "schedules", "spearman", "kendall", "pairwise", "top-1", "top-5"}};
    for (const ChoiceScore &s : scores) {
        for (const AppScore &app : s.apps) {
            if (!app.error.empty()) {
                rows.push_back({app.app, s.label, std::to_string(app.schedules), "-", "-", "-", "-", "-"});
                continue;
            }
            rows.push_back({app.app, s.label, std::to_string(app.schedules), formatNumber(app.rank.spearman, "%.3f"),
                            formatNumber(app.rank.kendall, "%.3f"), formatNumber(app.rank.pairwiseAccuracy, "%.3f"),
                            formatNumber(app.top1, "%.3f"), formatNumber(app.top5, "%.3f")});
        }
    }
    for (const ChoiceScore &s : scores)
        rows.push_back({"overall (" + std::to_string(s.appsScored) + " apps)", s.label, "",
                        formatNumber(s.spearman, "%.3f"), formatNumber(s.kendall, "%.3f"),
                        formatNumber(s.pairwiseAccuracy, "%.3f"), formatNumber(s.top1, "%.3f"),
                        formatNumber(s.top5, "%.3f")});
    printTable(std::cout, rows);
    std::cout << "top-k: best runtime among the model's k best-ranked schedules / best runtime (1 is perfect)\n";
    std::cout << std::flush;
    for (const ChoiceScore &s : scores)
        for (const AppScore &app : s.apps)
            if (!app.error.empty())
                std::cerr << "note: " << app.app << " with " << s.label << ": " << app.error << "\n";
    return kSuccess;
}

const CommandRegistration registration{Command{
    "", "compare-weights", kSynopsis,
    "rank quality of several weights on measured samples, per app and overall (Spearman, Kendall, pairwise, top-k)",
    runCompareWeights}};

} // namespace

} // namespace beamscope::cli
