// beamscope-cli cost-gap: schedules' features (a generator's .featurization or a
// .sample, one for every target or one per target), the totals another
// featurizer's features of them got under given weights files, and the single
// feature changes that would reconcile them all. Wiring only: the scan is
// core/model/cost_gap.h.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "app/cli/halide/stage_labels.h"
#include "app/cli/text_table.h"
#include "core/model/cost_gap.h"
#include "core/model/cost_model_file.h"
#include "core/model/schedule_feature_names.h"
#include "core/samples/sample.h"
#include "core/util/json.h"
#include "core/util/parallel_for.h"
#include "core/weights/shipped_weights.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>

namespace beamscope::cli {

namespace {

const char *const kSynopsis = "FEATURES... --target WEIGHTS=COST... [--stage-names A,B,...] [--num-cores N] "
                              "[--max-delta D] [--top N] [--json]";

struct CostGapOptions {
    std::vector<std::string> features; // one for all targets, or one per target
    std::vector<std::string> targets;
    std::optional<std::string> stageNames;
    int numCores = 80;
    int maxDelta = 4;
    int top = 20;
    bool json = false;
};

struct LoadedTarget {
    std::string weights; // as given
    std::unique_ptr<model::CostModel> model;
    double cost = 0;
};

std::string featureName(const model::FeatureChange &c)
{
    return c.kind == model::FeatureKind::Schedule ? model::scheduleFeatureName(c.index) : pipelineFeatureLabel(c.index);
}

int runCostGap(const CostGapOptions &options)
{
    std::vector<LoadedTarget> loaded;
    for (const std::string &t : options.targets) {
        const size_t eq = t.rfind('=');
        const std::optional<double> cost = eq == std::string::npos ? std::nullopt : readNumber(t.substr(eq + 1));
        if (!cost || !(*cost > 0))
            return usageError("", "cost-gap",
                              "--target: expected WEIGHTS=COST with a positive cost, found \"" + t + "\"");
        std::string error;
        const auto path = weights::resolveWeightsArgument(t.substr(0, eq), std::nullopt, error);
        if (path.empty()) {
            std::cerr << "beamscope-cli: " << error << "\n";
            return kFailure;
        }
        LoadedTarget target{t.substr(0, eq), model::loadCostModel(path, error), *cost};
        if (!target.model) {
            std::cerr << "beamscope-cli: " << error << "\n";
            return kFailure;
        }
        loaded.push_back(std::move(target));
    }
    if (options.features.size() != 1 && options.features.size() != loaded.size())
        return usageError("", "cost-gap",
                          "expected one FEATURES file for all targets or one per target (" +
                              std::to_string(loaded.size()) + "), found " + std::to_string(options.features.size()));
    std::vector<samples::Sample> read;
    for (const std::string &path : options.features) {
        samples::SampleReadResult r = samples::readFeatures(path);
        if (!r.ok()) {
            std::cerr << "beamscope-cli: " << r.error << "\n";
            return kFailure;
        }
        read.push_back(std::move(*r.sample));
    }
    const int stages = read.front().stageCount();
    // The pipeline features are the algorithm's: every file must hold the same.
    std::vector<float> pipeline;
    std::vector<std::vector<float>> schedules(read.size());
    for (size_t f = 0; f < read.size(); f++) {
        if (read[f].stageCount() != stages) {
            std::cerr << "beamscope-cli: " << options.features[f] << ": " << read[f].stageCount()
                      << " stages, expected " << stages << " (as " << options.features.front() << ")\n";
            return kFailure;
        }
        schedules[f] = samples::scheduleFeaturesOf(read[f]);
        std::vector<float> p = samples::pipelineFeaturesOf(read[f]);
        if (f == 0) {
            pipeline = std::move(p);
        } else if (p != pipeline) {
            const size_t at =
                static_cast<size_t>(std::mismatch(p.begin(), p.end(), pipeline.begin()).first - p.begin());
            std::cerr << "beamscope-cli: " << options.features[f] << ": stage " << at / samples::kPipelineFeatureCount
                      << ": pipeline features differ from " << options.features.front() << "'s (another algorithm?)\n";
            return kFailure;
        }
    }
    std::string error;
    const std::vector<std::string> names = stageLabels(options.stageNames, stages, error);
    if (names.empty()) {
        std::cerr << "beamscope-cli: " << error << "\n";
        return kFailure;
    }

    std::vector<model::CostTarget> targets;
    for (size_t t = 0; t < loaded.size(); t++)
        targets.push_back({loaded[t].model.get(), loaded[t].cost, schedules[read.size() == 1 ? 0 : t]});
    model::CostGapOptions scan;
    scan.numCores = options.numCores;
    scan.maxPipelineDelta = options.maxDelta;
    scan.maxCandidates = options.top;
    scan.threads = defaultThreadCount();
    const model::CostGapReport report = model::explainCostGap(pipeline, stages, targets, scan);

    if (options.json) {
        Json doc = Json::object();
        Json files = Json::array();
        for (const auto &f : options.features)
            files.push(f);
        doc["features"] = std::move(files);
        Json scanned = Json::array();
        for (bool b : report.scheduleScanned)
            scanned.push(b);
        doc["schedule_scanned"] = std::move(scanned);
        Json ts = Json::array();
        for (size_t t = 0; t < loaded.size(); t++) {
            Json j = Json::object();
            j["weights"] = loaded[t].weights;
            j["target"] = loaded[t].cost;
            j["total"] = report.totals[t];
            Json costs = Json::array();
            for (float c : report.stageCosts[t])
                costs.push(c);
            j["stage_costs"] = std::move(costs);
            ts.push(std::move(j));
        }
        doc["targets"] = std::move(ts);
        Json names_ = Json::array();
        for (const auto &n : names)
            names_.push(n);
        doc["stages"] = std::move(names_);
        Json cs = Json::array();
        for (const auto &c : report.candidates) {
            Json j = Json::object();
            j["stage"] = static_cast<int64_t>(c.change.stage);
            j["feature"] = featureName(c.change);
            j["kind"] = c.change.kind == model::FeatureKind::Schedule ? "schedule" : "pipeline";
            j["from"] = c.change.from;
            j["to"] = c.change.to;
            Json totals = Json::array();
            for (float v : c.totals)
                totals.push(v);
            j["totals"] = std::move(totals);
            j["worst_relative_error"] = c.worstRelativeError;
            cs.push(std::move(j));
        }
        doc["candidates"] = std::move(cs);
        std::cout << doc.dump(2) << "\n";
        return kSuccess;
    }

    for (size_t f = 0; f < options.features.size(); f++)
        std::cout << options.features[f] << (f + 1 < options.features.size() ? ", " : "");
    std::cout << ": " << stages << " stages\n\n";
    // A target's column: its weights, and its schedule's file when the targets have several.
    std::vector<std::string> labels;
    for (size_t t = 0; t < loaded.size(); t++) {
        const std::filesystem::path features = options.features[read.size() == 1 ? 0 : t];
        labels.push_back(
            std::filesystem::path(loaded[t].weights).filename().string() +
            (read.size() > 1 ? " @" + (features.parent_path().filename() / features.filename()).string() : ""));
    }
    std::vector<std::vector<std::string>> stageRows{{"stage"}};
    for (const std::string &label : labels)
        stageRows[0].push_back(label);
    for (int s = 0; s < stages; s++) {
        stageRows.push_back({names[static_cast<size_t>(s)]});
        for (size_t t = 0; t < loaded.size(); t++)
            stageRows.back().push_back(formatNumber(report.stageCosts[t][static_cast<size_t>(s)]));
    }
    stageRows.push_back({"total"});
    stageRows.push_back({"target"});
    stageRows.push_back({"relative difference"});
    for (size_t t = 0; t < loaded.size(); t++) {
        stageRows[stageRows.size() - 3].push_back(formatNumber(report.totals[t]));
        stageRows[stageRows.size() - 2].push_back(formatNumber(loaded[t].cost));
        stageRows.back().push_back(formatNumber((report.totals[t] - loaded[t].cost) / loaded[t].cost, "%+.4f"));
    }
    printTable(std::cout, stageRows);
    if (loaded.size() < 2)
        std::cout << "\nwith one target nearly every schedule feature fits it; give two or more targets\n";
    if (const auto alike = std::count(report.scheduleScanned.begin(), report.scheduleScanned.end(), true);
        alike < stages)
        std::cout << "\nthe targets schedule " << stages - alike << " of " << stages
                  << " stages differently: those have their pipeline features scanned only (the algorithm's, common "
                     "to all)\n";
    std::cout << "\nsingle feature changes, closest first\n";
    std::vector<std::vector<std::string>> rows{{"stage", "feature", "from", "to"}};
    for (const std::string &label : labels)
        rows[0].push_back(label);
    rows[0].push_back("worst_rel_error");
    for (const auto &c : report.candidates) {
        rows.push_back({names[static_cast<size_t>(c.change.stage)], featureName(c.change), formatNumber(c.change.from),
                        formatNumber(c.change.to)});
        for (float v : c.totals)
            rows.back().push_back(formatNumber(v));
        rows.back().push_back(formatNumber(c.worstRelativeError, "%.2e"));
    }
    printTable(std::cout, rows);
    return kSuccess;
}

CommandRun defineCostGap(CLI::App &app)
{
    auto o = std::make_shared<CostGapOptions>();
    app.add_option("FEATURES", o->features,
                   ".featurization (a generator's -e featurization) or .sample files: one for all targets, or one "
                   "per target in their order")
        ->required();
    addRepeated(app, "--target", o->targets,
                "WEIGHTS=COST: a weights file (path or shipped name) and the total to explain; repeat it")
        ->required();
    addText(app, "--stage-names", o->stageNames, "the stages' names, comma-separated, in the features' order");
    addInteger(app, "--num-cores", o->numCores, "the parallelism the cost model assumes (Halide: SM count)", 1,
               1000000);
    addInteger(app, "--max-delta", o->maxDelta, "the largest change of a pipeline feature (an op count) tried", 1,
               1000);
    addInteger(app, "--top", o->top, "how many changes to list", 1, 100000);
    addJsonFlag(app, o->json);
    return [o](const std::vector<std::string> &) { return runCostGap(*o); };
}

const CommandRegistration registration{
    Command{"", "cost-gap", kSynopsis,
            "which single feature change of which stage makes the model predict given totals under several "
            "weights files (tracing a cost difference against Halide's)",
            defineCostGap}};

} // namespace

} // namespace beamscope::cli
