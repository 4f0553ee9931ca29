#pragma once
// Holds a built-in app against what Halide's own autoscheduler wrote for the
// same app (tests/fixtures/halide/real_apps/<app>/, from shared/golden/real_apps):
// its pipeline features, stage for stage, and its chosen loop nests, read as
// Beamscope states and costed with the same weights.
//
// Plain C++ (no QTest), so the same checks back test_real_apps and the
// one-app report `real-app-report` that a developer runs while writing an app.

#include "core/dag/function_dag.h"
#include "core/model/cost_model.h"
#include "core/search/autoschedule_params.h"
#include "core/search/loop_nest_text.h"
#include "core/search/search_dag.h"
#include "core/search/state.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::test::real_apps {

// One differing cell of a stage record.
struct CellDifference {
    int stage = 0;
    std::string stageName; // Beamscope's, "<func>_s<index>"
    std::string cell;      // "types_in_use.<type>", "<row>.<type>" or a schedule feature's name
    float halide = 0, ours = 0;
};

// Halide's record layouts: Anderson2021 writes 73 schedule features per stage,
// Adams2019 (Halide 14's, for lens_blur) 39; both then 7 types_in_use flags and
// the 40 x 7 pipeline features.
enum class Layout { Anderson2021, Adams2019 };

struct PipelineFeatureReport {
    std::string error; // the file could not be read, or the stage counts differ
    int halideStages = 0, ourStages = 0;
    std::vector<CellDifference> differences;
    bool ok() const { return error.empty() && differences.empty(); }
};

// The types_in_use flags and pipeline features of every stage of `dag` against
// the pipeline part of Halide's featurization `file`.
PipelineFeatureReport comparePipelineFeatures(const search::SearchDag &dag, const std::filesystem::path &file,
                                              Layout layout);

// One of Halide's chosen loop nests read as a Beamscope state and costed.
struct LoopNestReport {
    std::string error; // the dump could not be read as a state of this pipeline
    bool complete = false;
    std::string legality; // empty when legal
    std::vector<std::string> notes;
    double ourCost = 0;
    std::vector<float> ourStageCosts;
    // The schedule features against Halide's featurization of the same loop
    // nest, when one is given (the pipeline part is comparePipelineFeatures').
    std::string featureError;
    std::vector<CellDifference> scheduleDifferences;
};

LoopNestReport costLoopNest(const search::SearchDag &dag, const std::filesystem::path &loopNest,
                            const std::filesystem::path &weights,
                            const std::optional<std::filesystem::path> &featurization);

// Halide's Best cost of its chosen loop nest for (app, weights): beam1.tsv at
// beam 1; at beam 32 beam32_featurizations.tsv, else costs.tsv (lens_blur,
// where Halide wrote the cost but no featurization). nullopt when Halide
// printed none.
std::optional<double> halideBestCost(const std::filesystem::path &fixtures, const std::string &app,
                                     const std::string &weights, bool beam1);

// Any numeric column of those tables (e.g. beam1.tsv's halide_states_added).
std::optional<double> halideTableValue(const std::filesystem::path &table, const std::string &app,
                                       const std::string &weights, const std::string &column);

// The pipeline features of Halide's featurization `file` in the cost model's layout ([S][40][7],
// SearchDag::pipelineFeatures), for SearchDag::replacePipelineFeatures; empty with `error` set
// when the file does not read as `stages` Anderson2021 stage records.
std::vector<float> halidePipelineFeatures(const std::filesystem::path &file, int stages, std::string &error);

// The stage names of the cost model's stage axis, in order.
std::vector<std::string> stageNames(const search::SearchDag &dag);

} // namespace beamscope::test::real_apps
