#include "core/search/schedule_features.h"

#include "core/model/schedule_feature_names.h"

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
    // (No reserve here: one per call would defeat the vector's geometric growth.)
    for (const ScheduleFeatures &f : features)
        for (double v : f.values)
            out.push_back(static_cast<float>(v));
}

} // namespace beamscope::search
