#include "core/search/featurization.h"

#include <stdexcept>
#include <string>

namespace beamscope::search {

std::vector<float> featurization(const SearchDag &dag, const std::vector<ScheduleFeatures> &features)
{
    const std::vector<dag::StageRef> &stages = dag.costStages();
    if (features.size() != stages.size())
        throw std::invalid_argument("featurization: " + std::to_string(features.size()) +
                                    " stages of schedule features, expected " + std::to_string(stages.size()));
    std::vector<float> out;
    out.reserve(stages.size() * (kScheduleFeatureCount + dag::kScalarTypeCount * (dag::kFeatureRows + 1)));
    for (size_t s = 0; s < stages.size(); s++) {
        // Halide keeps schedule features in doubles and stores them as floats.
        for (double v : features[s].values)
            out.push_back(static_cast<float>(v));
        const dag::PipelineFeatures &pf = dag.stage(stages[s].node, stages[s].stage).features;
        for (int used : pf.typesInUse)
            out.push_back(static_cast<float>(used));
        for (const auto &row : pf.matrix)
            for (int count : row)
                out.push_back(static_cast<float>(count));
    }
    return out;
}

} // namespace beamscope::search
