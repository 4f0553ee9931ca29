#pragma once
// How well several weights files order the schedules measured on this device:
// per app and overall, Spearman, Kendall tau-b and pairwise accuracy of the
// predicted costs against the measured runtimes, and the top-k score
// (TenSet's, as a ratio >= 1): the best measured runtime among the k schedules
// the model ranks fastest, divided by the best measured runtime of all. 1 means
// the model's pick (among k) is the fastest schedule there is.
//
// A weights choice may differ per app: Halide's hold-one-out files, or weights
// retrained hold-one-out here, judge each app with the file that never saw it.

#include "core/samples/bootstrap_interval.h"
#include "core/samples/dataset.h"
#include "core/samples/rank_metrics.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::samples {

struct WeightsChoice {
    std::string label; // as the user named it
    // The weights to judge `app` with; nothing when this choice has none for it
    // (the app is then left out of this choice's figures, and said so).
    std::function<std::optional<std::filesystem::path>(const std::string &app)> weightsFor;
};

struct AppScore {
    std::string app;               // the app, or "pipeline <id> (no app)" for a pipeline nothing names
    bool unnamed = false;          // no apps.tsv, sample pipeline id or folder names this pipeline
    std::filesystem::path weights; // the file used
    size_t pipelines = 0, schedules = 0;
    // Means over the app's pipelines of each pipeline's figures (count: pairs
    // over all of them); NaN where undefined. Never pooled across pipelines.
    RankMetrics rank;
    double top1 = 0, top5 = 0;                 // mean over the app's pipelines
    std::vector<double> predicted, measuredMs; // per schedule (best runtime), for scatter plots
    RankIntervals intervals;                   // 95% bootstrap intervals of spearman, kendall, top1, top5
    // The file was trained on this app's pipelines (a shipped per-app file judging another Halide
    // app): its figures are in-sample and flatter it.
    bool inSample = false;
    std::string error; // the weights did not load, or the app has no weights here
};

struct ChoiceScore {
    std::string label;
    std::vector<AppScore> apps; // in dataset app order
    // Means over the apps scored (each app counts once; NaN entries skipped).
    double spearman = 0, kendall = 0, pairwiseAccuracy = 0, top1 = 0, top5 = 0;
    size_t appsScored = 0;
    // The same means over the apps every choice scored, so that choices with
    // different coverage (Halide's hold-one-out files have none for random
    // pipelines) are compared on the same apps.
    struct Means {
        double spearman = 0, kendall = 0, pairwiseAccuracy = 0, top1 = 0, top5 = 0;
        size_t apps = 0;
    } common;
};

// A choice from what the user typed: "halide-hold-one-out" (Halide's shipped
// per-app files, each trained without its app), a folder of <app>.weights
// (what `retrain --hold-one-out --out-dir` writes), or one weights file or
// shipped name for every app. Empty label and `error` set when it names nothing.
WeightsChoice weightsChoiceFor(const std::string &argument, std::string &error);

// Top-k score of one pipeline: predictions in the set's schedule order.
double topKScore(const PipelineSet &pipeline, const std::vector<float> &predictions, size_t k);

// Schedules are ranked within their pipeline only. A pipeline without an app
// is a row of its own ("pipeline <id> (no app)", unnamed set), never pooled
// with other unnamed ones. numCores: the model's parallelism input (80 for
// Halide's V100 files).
std::vector<ChoiceScore> compareWeights(const Dataset &dataset, const std::vector<WeightsChoice> &choices,
                                        int numCores);

// What a reader must know before trusting one row (choice, app) of a comparison,
// each a short phrase: the reason it has no figures; "in-sample" (the file was
// trained on this app); "12 schedules: a rough guess" (fewer than kFewSchedules);
// "not told apart from B" for each other choice whose Spearman interval overlaps
// this one's. The CLI prints them as notes, the explorer in a column.
std::vector<std::string> rowCaveats(const std::vector<ChoiceScore> &scores, size_t choice, size_t app);

} // namespace beamscope::samples
