#include "app/cli/halide/stage_labels.h"

#include "core/dag/pipeline_features.h"

#include <sstream>

namespace beamscope::cli {

std::vector<std::string> stageLabels(const std::optional<std::string> &list, int stages, std::string &error)
{
    std::vector<std::string> names;
    if (list) {
        std::stringstream in(*list);
        for (std::string name; std::getline(in, name, ',');)
            names.push_back(name);
        if (static_cast<int>(names.size()) != stages) {
            error = "--stage-names: the features have " + std::to_string(stages) + " stages, found " +
                    std::to_string(names.size()) + " names";
            return {};
        }
    }
    for (int s = static_cast<int>(names.size()); s < stages; s++)
        names.push_back("stage " + std::to_string(s));
    return names;
}

std::string pipelineFeatureLabel(int cell)
{
    return "pipeline " + dag::featureRowName(cell / dag::kScalarTypeCount) + "." +
           dag::scalarTypeName(cell % dag::kScalarTypeCount);
}

} // namespace beamscope::cli
