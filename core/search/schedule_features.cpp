#include "core/search/schedule_features.h"

#include "core/model/schedule_feature_names.h"

#include <algorithm>

namespace beamscope::search {

const char *featureName(int index) { return model::scheduleFeatureName(index); }

int featureIndex(const std::string &name) { return model::scheduleFeatureIndex(name); }

ScheduleFeatures::ScheduleFeatures()
{
    (*this)[Feature::NumBlocks] = 1;
    (*this)[Feature::BlockOccupancy] = 1.0 / 1024;
    (*this)[Feature::WarpLaneUtilization] = 1.0 / 32;
    (*this)[Feature::WarpLaneUtilizationAtBlockY] = 1;
    (*this)[Feature::WarpLaneUtilizationAtBlockZ] = 1;
    (*this)[Feature::SharedMemStoreEfficiency] = 1;
    (*this)[Feature::SharedMemLoadEfficiency] = 1;
    (*this)[Feature::GlobalMemStoreEfficiency] = 1;
    (*this)[Feature::GlobalMemLoadEfficiency] = 1;
    (*this)[Feature::SharedMemBlockLimitFactor] = 1;
}

void packFeatures(const std::vector<ScheduleFeatures> &features, std::vector<float> &out)
{
    const size_t first = out.size();
    const size_t needed = first + features.size() * kScheduleFeatureCount;
    // Grown geometrically, as push_back would (one exact reserve per call would copy every time).
    if (out.capacity() < needed)
        out.reserve(std::max(needed, 2 * out.capacity()));
    out.resize(needed);
    float *to = out.data() + first;
    for (const ScheduleFeatures &f : features)
        to = std::transform(f.values.begin(), f.values.end(), to, [](double v) { return static_cast<float>(v); });
}

} // namespace beamscope::search
