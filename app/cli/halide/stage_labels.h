#pragma once
// What the feature commands (cost-gap, samples diff) call a featurization's
// stages and cells: a featurization holds numbers only, so stage names come
// from the user (--stage-names, e.g. from the plugin's BEAMSCOPE_COST_ONLY log).

#include <optional>
#include <string>
#include <vector>

namespace beamscope::cli {

// The names in a comma-separated --stage-names list, "stage N" for every stage
// when there is none; empty with `error` set when the list does not name `stages` stages.
std::vector<std::string> stageLabels(const std::optional<std::string> &list, int stages, std::string &error);

// "pipeline Add.Float": the pipeline feature cell row * 7 + type.
std::string pipelineFeatureLabel(int cell);

} // namespace beamscope::cli
