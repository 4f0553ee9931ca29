#include "core/samples/prediction.h"

#include <cmath>
#include <limits>

namespace beamscope::samples {

PipelinePredictions predictPipeline(const model::CostModel &model, const PipelineSet &pipeline, int numCores)
{
    PipelinePredictions out;
    out.numStages = pipeline.stageCount;
    const size_t count = pipeline.schedules.size();
    out.predictions.assign(count, 0.0f);
    out.costPerStage.assign(count * static_cast<size_t>(pipeline.stageCount), 0.0f);
    if (count == 0)
        return out;
    std::vector<float> features;
    features.reserve(count * static_cast<size_t>(pipeline.stageCount) * kScheduleFeatureCount);
    for (const auto &schedule : pipeline.schedules)
        features.insert(features.end(), schedule.features.begin(), schedule.features.end());
    const auto embedding = model.embedPipeline(pipeline.pipelineFeatures, pipeline.stageCount);
    model.evaluate(embedding, features, static_cast<int>(count), numCores, out.predictions, out.costPerStage);
    return out;
}

RankMetrics pipelineRankMetrics(const PipelineSet &pipeline, const std::vector<float> &predictions)
{
    std::vector<double> predicted, actual;
    for (size_t i = 0; i < pipeline.schedules.size() && i < predictions.size(); ++i) {
        predicted.push_back(predictions[i]);
        actual.push_back(pipeline.schedules[i].bestRuntimeMs());
    }
    return rankMetrics(predicted, actual);
}

RankSummary summarizeRanks(const std::vector<RankMetrics> &perPipeline)
{
    RankSummary summary;
    summary.pipelines = perPipeline.size();
    auto mean = [&](double RankMetrics::*field) {
        double sum = 0;
        size_t n = 0;
        for (const auto &m : perPipeline)
            if (!std::isnan(m.*field)) {
                sum += m.*field;
                ++n;
            }
        return n == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / static_cast<double>(n);
    };
    summary.spearman = mean(&RankMetrics::spearman);
    summary.kendall = mean(&RankMetrics::kendall);
    summary.pairwiseAccuracy = mean(&RankMetrics::pairwiseAccuracy);
    return summary;
}

RankSummary rankSummary(const model::CostModel &model, const std::vector<PipelineSet> &set, int numCores)
{
    std::vector<RankMetrics> metrics;
    for (const auto &pipeline : set)
        metrics.push_back(pipelineRankMetrics(pipeline, predictPipeline(model, pipeline, numCores).predictions));
    return summarizeRanks(metrics);
}

} // namespace beamscope::samples
