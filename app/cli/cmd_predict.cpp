// beamscope-cli predict: the cost model's prediction for every measured
// schedule, beside its runtime, and how well each pipeline's schedules are
// ordered. Wiring only: reading lives in core/samples, the model in core/model.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "app/cli/text_table.h"
#include "core/model/cost_model.h"
#include "core/samples/dataset.h"
#include "core/samples/prediction.h"
#include "core/util/json.h"
#include "core/weights/shipped_weights.h"
#include "core/weights/weights.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace beamscope::cli {

namespace {

using namespace beamscope::samples;

constexpr const char *kSynopsis = "--weights W --samples DIR... [--num-cores N] [--json]";

struct PredictOptions {
    std::optional<std::string> weights;
    SampleRoots samples;
    int numCores = 80;
    bool json = false;
};

int runPredict(const PredictOptions &options)
{
    const std::vector<std::filesystem::path> roots = options.samples.paths();
    const int numCores = options.numCores;
    std::string weightsError; // a path, or a shipped file's name
    const auto weightsPath = weights::resolveWeightsArgument(options.weights, std::nullopt, weightsError).string();
    if (weightsPath.empty()) {
        std::cerr << "beamscope-cli: " << weightsError << "\n";
        return kFailure;
    }
    auto loadedWeights = weights::loadWeights(weightsPath);
    if (!loadedWeights.ok()) {
        const auto *first = loadedWeights.firstError();
        std::cerr << "beamscope-cli: " << (first ? first->format() : weightsPath + ": cannot load weights") << "\n";
        return kFailure;
    }
    if (const auto why = model::checkWeights(*loadedWeights.weights); !why.empty()) {
        std::cerr << "beamscope-cli: " << weightsPath << ": " << why << "\n";
        return kFailure;
    }
    const model::CostModel costModel(*loadedWeights.weights);

    const auto loaded = loadSamples(roots);
    if (!loaded.ok()) {
        for (const auto &e : loaded.errors)
            std::cerr << "beamscope-cli: " << e << "\n";
        return kFailure;
    }
    const Dataset &dataset = loaded.dataset;
    for (const auto &skip : dataset.skipped)
        std::cerr << "skipped " << skip.file.string() << ": " << skip.reason << "\n";
    for (const auto &warning : dataset.warnings)
        std::cerr << "warning: " << warning.file.string() << ": " << warning.message << "\n";
    if (dataset.pipelines.empty()) {
        std::cerr << "beamscope-cli: no usable sample in " << dataset.filesRead << " file(s) read\n";
        return kFailure;
    }

    Json samplesJson = Json::array(), pipelinesJson = Json::array();
    std::vector<std::vector<std::string>> sampleRows{
        {"file", "pipeline", "schedule", "runtime_ms", "prediction", "runs"}};
    std::vector<std::vector<std::string>> pipelineRows{
        {"pipeline", "app", "schedules", "spearman", "kendall", "pairwise_acc"}};
    for (const auto &pipeline : dataset.pipelines) {
        const auto predicted = predictPipeline(costModel, pipeline, numCores);
        for (size_t i = 0; i < pipeline.schedules.size(); ++i) {
            const auto &schedule = pipeline.schedules[i];
            Json item = Json::object();
            item["file"] = schedule.file.string();
            item["pipeline_id"] = pipeline.pipelineId;
            item["schedule_id"] = schedule.scheduleId;
            item["runtime_ms"] = schedule.bestRuntimeMs();
            item["prediction"] = predicted.predictions[i];
            Json stages = Json::array();
            for (int s = 0; s < predicted.numStages; ++s)
                stages.push(
                    predicted.costPerStage[i * static_cast<size_t>(predicted.numStages) + static_cast<size_t>(s)]);
            item["stage_costs"] = std::move(stages);
            item["app"] = pipeline.app;
            item["runs"] = static_cast<uint64_t>(schedule.runtimesMs.size());
            Json duplicates = Json::array();
            for (const auto &d : schedule.duplicates)
                duplicates.push(d.string());
            item["duplicates"] = std::move(duplicates);
            samplesJson.push(std::move(item));
            sampleRows.push_back({schedule.file.filename().string(), std::to_string(pipeline.pipelineId),
                                  std::to_string(schedule.scheduleId), formatNumber(schedule.bestRuntimeMs()),
                                  formatNumber(predicted.predictions[i]), std::to_string(schedule.runtimesMs.size())});
        }
        const auto metrics = pipelineRankMetrics(pipeline, predicted.predictions);
        Json p = Json::object();
        p["pipeline_id"] = pipeline.pipelineId;
        p["count"] = static_cast<uint64_t>(metrics.count);
        p["spearman"] = metrics.spearman;
        p["kendall"] = metrics.kendall;
        p["pairwise_accuracy"] = metrics.pairwiseAccuracy;
        p["app"] = pipeline.app;
        p["stages"] = pipeline.stageCount;
        pipelinesJson.push(std::move(p));
        pipelineRows.push_back({std::to_string(pipeline.pipelineId), pipeline.app.empty() ? "-" : pipeline.app,
                                std::to_string(metrics.count), formatNumber(metrics.spearman, "%.4f"),
                                formatNumber(metrics.kendall, "%.4f"), formatNumber(metrics.pairwiseAccuracy, "%.4f")});
    }
    Json skippedJson = Json::array();
    for (const auto &skip : dataset.skipped) {
        Json s = Json::object();
        s["file"] = skip.file.string();
        s["reason"] = skip.reason;
        skippedJson.push(std::move(s));
    }

    if (options.json) {
        Json doc = Json::object();
        doc["weights"] = weightsPath;
        doc["num_cores"] = static_cast<int64_t>(numCores);
        doc["samples"] = std::move(samplesJson);
        doc["pipelines"] = std::move(pipelinesJson);
        doc["skipped"] = std::move(skippedJson);
        doc["files_read"] = static_cast<uint64_t>(dataset.filesRead);
        std::cout << doc.dump(2) << "\n";
        return kSuccess;
    }
    std::cout << "weights " << weightsPath << ", num_cores " << numCores << ", " << dataset.filesRead
              << " file(s) read, " << dataset.skipped.size() << " skipped\n\n";
    printTable(std::cout, sampleRows);
    std::cout << "\n";
    printTable(std::cout, pipelineRows);
    return kSuccess;
}

CommandRun definePredict(CLI::App &app)
{
    auto o = std::make_shared<PredictOptions>();
    addText(app, "--weights", o->weights, "the cost model's weights: a path or a shipped file's name")->required();
    addSampleRoots(app, o->samples);
    addInteger(app, "--num-cores", o->numCores, "the parallelism the cost model assumes (Halide: SM count)", 1,
               1000000);
    addJsonFlag(app, o->json);
    return [o](const std::vector<std::string> &) { return runPredict(*o); };
}

const CommandRegistration registration{
    Command{"", "predict", kSynopsis,
            "predict the cost of measured .sample schedules; per-pipeline rank correlation with their runtimes",
            definePredict}};

} // namespace

} // namespace beamscope::cli
