#pragma once
// Shared by the search tests: pipelines built here (no reference data needed),
// deterministic test weights, and a state builder.

#include "core/model/cost_model.h"
#include "core/search/search_dag.h"
#include "core/search/state.h"

#include <Halide.h>

#include <memory>
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

// A tiling with the given threads and serial tiles per loop (innermost first).
search::StageTiling tiling(std::vector<int64_t> threads, std::vector<int64_t> serial, bool unrolled);

} // namespace beamscope::test
