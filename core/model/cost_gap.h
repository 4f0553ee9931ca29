#pragma once
// Which single feature of which stage, changed, would make the model predict
// given costs: a way to trace a cost difference against another featurizer
// (Halide's own) when only its totals are known, e.g. Halide's "Best cost" of
// a loop nest under two weights files.
//
// Every stage's cost depends on that stage's features alone (the network is a
// 1x1 convolution over stages), so a change to stage s moves only stage s's
// cost. Under one weights file nearly every schedule feature has some value
// that hits the target, so one target ranks nothing; two or more targets, each
// a separate equation, are what make a change that matches all of them at once
// evidence of where the two featurizers differ. The pipeline (algorithm)
// features are one set for all targets, so their changes are judged across
// targets of different schedules too (the loop nests Halide chose under two
// weights files); a stage's schedule features are scanned only where every
// target schedules that stage alike (equal schedule features).

#include "core/model/cost_model.h"

#include <span>
#include <string>
#include <vector>

namespace beamscope::model {

// One weights file, a schedule's features, and the total the other
// featurizer's features of that schedule got from those weights.
struct CostTarget {
    const CostModel *model = nullptr;
    double cost = 0;
    std::span<const float> scheduleFeatures; // [S][73]
};

enum class FeatureKind { Schedule, Pipeline };

struct FeatureChange {
    int stage = 0;
    FeatureKind kind = FeatureKind::Schedule;
    // Schedule: 0..72. Pipeline: the cell row * 7 + type of the 40 x 7 matrix.
    int index = 0;
    float from = 0;
    float to = 0;
};

struct CostGapCandidate {
    FeatureChange change;
    std::vector<float> totals;     // per target: the predicted total with the change
    double worstRelativeError = 0; // max over targets of |total - target| / target
};

struct CostGapOptions {
    int numCores = 80;
    // Pipeline features are op and access counts: integer changes of at most this much are tried.
    int maxPipelineDelta = 4;
    int maxCandidates = 20;
    int threads = 1;
};

struct CostGapReport {
    int numStages = 0;
    std::vector<std::vector<float>> stageCosts; // [target][stage], as the features are
    std::vector<float> totals;                  // [target]
    std::vector<CostGapCandidate> candidates;   // best (smallest worst error) first
    // Per stage: every target had the same schedule features there, so they were scanned too.
    std::vector<bool> scheduleScanned;
};

// pipelineFeatures [S][40][7] (a sample's layout has them after each stage's
// schedule features). Throws ModelError on sizes that do not fit or no target.
CostGapReport explainCostGap(std::span<const float> pipelineFeatures, int numStages,
                             std::span<const CostTarget> targets, const CostGapOptions &options);

} // namespace beamscope::model
