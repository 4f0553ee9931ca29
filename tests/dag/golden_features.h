#pragma once
// Reads shared/golden/pipelines/<name>/pipeline_features.txt and stages.tsv.

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

} // namespace beamscope::test
