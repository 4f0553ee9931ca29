#include "ui/predictions/prediction_job.h"

#include "core/model/cost_model.h"
#include "core/samples/dataset.h"
#include "core/samples/prediction.h"
#include "core/util/progress.h"
#include "core/weights/shipped_weights.h"
#include "core/weights/weights.h"

#include <QFileInfo>

#include <filesystem>
#include <string>

namespace beamscope::ui {

namespace {

using namespace beamscope::samples;

// Loading the samples takes the first half of the bar, predicting the rest.
class HalfProgress : public Progress {
public:
    explicit HalfProgress(Progress *outer) : m_outer(outer) {}
    void report(double fraction, std::string_view message) override
    {
        if (m_outer)
            m_outer->report(0.5 * fraction, message);
    }
    bool cancelled() const override { return m_outer && m_outer->cancelled(); }

private:
    Progress *m_outer;
};

} // namespace

PredictionResult predictSamples(const QStringList &sampleFolders, const QStringList &weightsFiles, int numCores,
                                Progress *progress)
{
    PredictionResult result;
    std::vector<std::filesystem::path> roots;
    for (const QString &folder : sampleFolders)
        roots.emplace_back(folder.toStdString());
    HalfProgress loading(progress);
    const auto loaded = loadSamples(roots, &loading);
    for (const auto &e : loaded.errors)
        result.errors.append(QString::fromStdString(e));
    if (!loaded.ok())
        return result;
    const Dataset &dataset = loaded.dataset;
    result.filesRead = dataset.filesRead;
    result.cancelled = dataset.cancelled;
    for (const auto &skip : dataset.skipped)
        result.skipped.push_back({QString::fromStdString(skip.file.string()), QString::fromStdString(skip.reason)});
    for (const auto &pipeline : dataset.pipelines) {
        MeasuredPipeline measured;
        measured.pipelineId = pipeline.pipelineId;
        measured.app = QString::fromStdString(pipeline.displayName()); // a flat folder's file names, else nothing
        measured.stages = pipeline.stageCount;
        for (const auto &schedule : pipeline.schedules) {
            measured.runtimesMs.push_back(schedule.bestRuntimeMs());
            measured.files.append(QString::fromStdString(schedule.file.string()));
        }
        result.pipelines.push_back(std::move(measured));
    }
    if (result.cancelled)
        return result;

    const double steps = static_cast<double>(std::max<size_t>(1, weightsFiles.size() * dataset.pipelines.size()));
    double done = 0;
    for (const QString &file : weightsFiles) {
        WeightsPredictions out;
        out.path = file;
        out.name = QFileInfo(file).completeBaseName();
        auto w = weights::loadWeights(file.toStdString());
        if (!w.ok()) {
            const auto *first = w.firstError();
            out.error =
                first ? QString::fromStdString(first->format()) : file + QStringLiteral(": cannot load weights");
        } else if (const auto why = model::checkWeights(*w.weights); !why.empty()) {
            out.error = file + QStringLiteral(": ") + QString::fromStdString(why);
        }
        if (!out.error.isEmpty()) {
            done += static_cast<double>(dataset.pipelines.size());
            result.weights.push_back(std::move(out));
            continue;
        }
        const model::CostModel costModel(*w.weights);
        const weights::TrainingSet trained = weights::trainingSetOf(file.toStdString()); // once per file
        std::vector<RankMetrics> metrics;
        // Each pipeline's predicted and measured figures in double, for the bootstrap intervals.
        std::vector<std::vector<double>> predictedD, measuredD;
        for (const auto &pipeline : dataset.pipelines) {
            if (progress && progress->cancelled()) {
                result.cancelled = true;
                return result;
            }
            const auto predicted = predictPipeline(costModel, pipeline, numCores);
            PredictedPipeline p;
            p.predictions = predicted.predictions;
            p.metrics = pipelineRankMetrics(pipeline, predicted.predictions);
            p.inSample = trained.containsPipeline(pipeline.app, pipeline.pipelineHash);
            predictedD.emplace_back(predicted.predictions.begin(), predicted.predictions.end());
            measuredD.emplace_back();
            for (const auto &schedule : pipeline.schedules)
                measuredD.back().push_back(schedule.bestRuntimeMs());
            const ScheduleRanking ranking{predictedD.back(), measuredD.back()};
            p.intervals = bootstrapRankIntervals(std::span(&ranking, 1));
            p.top1 = topKScoreOf(predictedD.back(), measuredD.back(), 1);
            metrics.push_back(p.metrics);
            out.pipelines.push_back(std::move(p));
            done += 1;
            if (progress)
                progress->report(0.5 + 0.5 * done / steps, "predicting with " + out.name.toStdString() + ": pipeline " +
                                                               std::to_string(pipeline.pipelineId));
        }
        out.summary = summarizeRanks(metrics);
        std::vector<ScheduleRanking> rankings;
        for (size_t i = 0; i < predictedD.size(); ++i)
            rankings.push_back({predictedD[i], measuredD[i]});
        out.summaryIntervals = bootstrapRankIntervals(rankings);
        result.weights.push_back(std::move(out));
    }
    if (progress)
        progress->report(1.0, "done");
    return result;
}

QStringList meanCaveats(const WeightsPredictions &weights, const std::vector<MeasuredPipeline> &pipelines)
{
    int inSample = 0, few = 0;
    for (size_t i = 0; i < pipelines.size() && i < weights.pipelines.size(); ++i) {
        inSample += weights.pipelines[i].inSample ? 1 : 0;
        few += pipelines[i].runtimesMs.size() < samples::kFewSchedules ? 1 : 0;
    }
    const int n = static_cast<int>(pipelines.size());
    QStringList out;
    if (inSample > 0)
        out << QObject::tr("%1 of %n pipeline(s) in-sample for %2", nullptr, n).arg(inSample).arg(weights.name);
    if (few > 0)
        out << QObject::tr("%1 of %n with fewer than %2 schedules", nullptr, n).arg(few).arg(samples::kFewSchedules);
    return out;
}

} // namespace beamscope::ui
