#pragma once
// What one training epoch achieved, kept in the checkpoint so a resumed run
// reports its whole history.

#include <cstddef>

namespace beamscope::samples {

// Means over pipelines of the per-pipeline rank metrics (pipelines where a
// metric is undefined are left out of its mean; NaN when none is left).
struct RankSummary {
    size_t pipelines = 0;
    double spearman = 0;
    double kendall = 0;
    double pairwiseAccuracy = 0;
};

struct EpochRecord {
    int epoch = 0;             // 0 = the weights before training
    double trainingLoss = 0;   // mean batch loss (epoch >= 1: before each step, as Halide prints it)
    double validationLoss = 0; // mean batch loss on validation after the epoch; NaN without validation batches
    size_t trainingBatches = 0;
    size_t validationBatches = 0;
    RankSummary validation; // ranking of every validation schedule after the epoch
};

} // namespace beamscope::samples
