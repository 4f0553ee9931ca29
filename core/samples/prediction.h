#pragma once
// Running the cost model over a pipeline's schedules and judging the order
// it puts them in.

#include "core/model/cost_model.h"
#include "core/samples/dataset.h"
#include "core/samples/epoch_record.h"
#include "core/samples/rank_metrics.h"

#include <vector>

namespace beamscope::samples {

struct PipelinePredictions {
    int numStages = 0;
    std::vector<float> predictions;  // per schedule, in the set's (hash) order
    std::vector<float> costPerStage; // [schedule][stage]
};

// Every schedule of the pipeline (unlike Halide's trainer, which predicts only
// schedules inside a batch of more than 8).
PipelinePredictions predictPipeline(const model::CostModel &model, const PipelineSet &pipeline, int numCores);

// Predicted cost against best measured runtime.
RankMetrics pipelineRankMetrics(const PipelineSet &pipeline, const std::vector<float> &predictions);

RankSummary summarizeRanks(const std::vector<RankMetrics> &perPipeline);
RankSummary rankSummary(const model::CostModel &model, const std::vector<PipelineSet> &set, int numCores);

} // namespace beamscope::samples
