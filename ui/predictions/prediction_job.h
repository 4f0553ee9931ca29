#pragma once
// Predictions of one or two weights files over one sample set, made with the
// same core calls as `beamscope-cli predict` (loadSamples, predictPipeline,
// pipelineRankMetrics, summarizeRanks). Plain blocking code: the Predictions
// workspace runs it on a worker thread; tests call it directly too.

#include "core/samples/bootstrap_interval.h"
#include "core/samples/epoch_record.h"
#include "core/samples/rank_metrics.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace beamscope {
class Progress;
}

namespace beamscope::ui {

struct MeasuredPipeline {
    int32_t pipelineId = 0;
    QString app;
    int stages = 0;
    std::vector<float> runtimesMs; // best runtime per distinct schedule, in the dataset's (hash) order
    QStringList files;             // the file of each schedule
};

struct PredictedPipeline {
    std::vector<float> predictions; // per schedule, same order as MeasuredPipeline::runtimesMs
    samples::RankMetrics metrics;
    double top1 = 0;                  // best runtime among the top-ranked schedule / best runtime
    samples::RankIntervals intervals; // 95% bootstrap intervals over the pipeline's schedules
    bool inSample = false;            // these weights were trained on the pipeline's app
};

struct WeightsPredictions {
    QString path;
    QString name;                             // file name without .weights
    QString error;                            // the file could not be used; pipelines is empty then
    std::vector<PredictedPipeline> pipelines; // parallel to PredictionResult::pipelines
    samples::RankSummary summary;             // means over pipelines
    samples::RankIntervals summaryIntervals;  // of those means, every pipeline resampled within itself
};

struct SkippedFile {
    QString file;
    QString reason;
};

struct PredictionResult {
    std::vector<MeasuredPipeline> pipelines;
    std::vector<WeightsPredictions> weights; // in the order asked for
    std::vector<SkippedFile> skipped;
    QStringList errors; // listing errors (missing folder, bad apps.tsv): nothing was predicted
    size_t filesRead = 0;
    bool cancelled = false;
};

// What a mean over pipelines rests on, for a headline that says it beside the
// figure (E2): how many of the pipelines these weights were trained on, and how
// many have too few schedules to rank; empty when neither.
QStringList meanCaveats(const WeightsPredictions &weights, const std::vector<MeasuredPipeline> &pipelines);

PredictionResult predictSamples(const QStringList &sampleFolders, const QStringList &weightsFiles, int numCores,
                                Progress *progress = nullptr);

} // namespace beamscope::ui
