#pragma once
// Reads tests/fixtures/halide/pipelines/<name>/pipeline_features.txt and stages.tsv.

#include "core/dag/pipeline_features.h"

#include <filesystem>
#include <string>
#include <vector>

namespace beamscope::test {

struct GoldenStage {
    std::string func;
    int definition = 0;
    dag::PipelineFeatures features;
};

// Throws std::runtime_error naming the file and line on malformed input.
std::vector<GoldenStage> readGoldenFeatures(const std::filesystem::path &file);

// One edge of golden/pipelines/<name>/dag_dump.txt (Halide's FunctionDAG::dump()).
struct GoldenEdge {
    std::string producer, consumer;     // consumer: "f" (pure) or "f.update(k)"
    std::vector<std::string> footprint; // "Min 0: expr", "Max 0: expr", ...
    // Each Jacobian as "count: [row] [row]", rows of "1", "0", "1/2" or "_".
    std::vector<std::string> jacobians;
};
std::vector<GoldenEdge> readGoldenEdges(const std::filesystem::path &file);

} // namespace beamscope::test
