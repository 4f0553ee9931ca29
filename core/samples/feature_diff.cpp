#include "core/samples/feature_diff.h"

#include <algorithm>
#include <cmath>

namespace beamscope::samples {

namespace {

bool differ(float a, float b, double tolerance)
{
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) != std::isnan(b);
    return std::abs(static_cast<double>(a) - b) > tolerance * std::max(std::abs(a), std::abs(b));
}

} // namespace

FeatureDiff diffFeatures(const Sample &a, const Sample &b, double relativeTolerance)
{
    FeatureDiff diff;
    if (a.stageCount() != b.stageCount()) {
        diff.error =
            "stage counts differ: " + std::to_string(a.stageCount()) + " against " + std::to_string(b.stageCount());
        return diff;
    }
    for (int s = 0; s < a.stageCount(); s++) {
        const auto ra = a.stageRecord(s), rb = b.stageRecord(s);
        for (int i = 0; i < kStageFloats; i++) {
            const size_t k = static_cast<size_t>(i);
            if (!differ(ra[k], rb[k], relativeTolerance))
                continue;
            FeatureDifference d{s, RecordPart::Schedule, i, ra[k], rb[k]};
            if (i >= kScheduleFeatureCount + kTypesInUseCount)
                d = {s, RecordPart::Pipeline, i - kScheduleFeatureCount - kTypesInUseCount, ra[k], rb[k]};
            else if (i >= kScheduleFeatureCount)
                d = {s, RecordPart::TypesInUse, i - kScheduleFeatureCount, ra[k], rb[k]};
            diff.differences.push_back(d);
        }
    }
    return diff;
}

} // namespace beamscope::samples
