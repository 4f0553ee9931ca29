#pragma once
// Shared by the search tests: pipelines built here (no reference data needed),
// deterministic test weights, and a state builder.

#include "core/model/cost_model.h"
#include "core/search/golden_tree.h"
#include "core/search/search_dag.h"
#include "core/search/state.h"

#include <Halide.h>

#include <memory>
#include <optional>
#include <string>

namespace beamscope::test {

// Weights with fixed pseudo-random values (a seeded generator, not Halide's
// weights): enough to give states different costs so the beam has to choose.
weights::Weights syntheticWeights(uint32_t seed);

// A pipeline with its DAG and SearchDag kept alive together.
struct BuiltPipeline {
    std::string name;
    std::vector<Halide::Func> outputs;
    std::unique_ptr<dag::FunctionDAG> dag;
    std::unique_ptr<search::SearchDag> searchDag;
    int node(const std::string &func) const; // node id by Func name, -1 when absent
};

BuiltPipeline buildRegistered(const std::string &name); // from core/pipelines' registry
BuiltPipeline fromOutputs(std::string name, std::vector<Halide::Func> outputs);
// box_blur exactly as tests/fixtures/halide/pipelines/PIPELINES.md defines it, built
// here so that fixture tests need no Halide data.
BuiltPipeline goldenBoxBlur();
// Halide v19's dump of a goldenBoxBlur schedule with blur_x computed per block of output (the form
// of tests/fixtures/halide/samples/retrain_set/schedules/box_blur_seed009): realized at root and
// in the block.
extern const char *const kBoxBlurBlockLevelDump;

// A tiling with the given threads and serial tiles per loop (innermost first).
search::StageTiling tiling(std::vector<int64_t> threads, std::vector<int64_t> serial, bool unrolled);

// stencil_chain_u16 (golden) with a Func in a block-level Func's thread loop, as Halide places
// local_laplacian's f155 in f157: output at root in 16 x 16 tiles (16 x 8 threads, 2 serial rows);
// stage_4 per block (18 x 18: 18 x 6 threads x 3 rows); stage_3 per thread of stage_4 (the 3 x 5
// one thread's 1 x 3 points need); stage_2 and stage_1 inlined, or with stage2InItsSerialLoop
// stage_2 computed in stage_3's serial loop (3 x 3 per point, as Halide places camera_pipe's f9
// in f18's). With stage3InItsSerialLoop, stage_3 goes one level in, inside stage_4's serial loop
// (the 3 x 3 one point of stage_4 needs). outputThreadRows: output's thread rows (its serial rows
// make up the 16-row tile); 4 makes the kernel launch stage_4's 108 threads, not output's 128.
search::State funcInABlockLevelFuncsThreadLoop(const BuiltPipeline &stencilChainU16, bool stage2InItsSerialLoop = false,
                                               bool stage3InItsSerialLoop = false, int outputThreadRows = 8);

// One of Halide's recorded search trees, by run ("box_blur/beam1"): from the fixtures, else
// (the beam-32 runs too large to be fixtures) from the folder BEAMSCOPE_SEARCH_TREES names, e.g.
// shared/golden/search_trees, when it is set; nullopt when neither has it. A tree that is there
// but does not read throws, so a broken fixture fails the test instead of skipping it.
std::optional<search::GoldenTree> readTree(const std::string &run);

// The shipped baseline.weights as a cost model (the weights Halide's recorded trees were searched
// with); throws std::runtime_error naming the file when it is missing or does not load.
model::CostModel baselineModel();

} // namespace beamscope::test
