#pragma once
// The featurization of a searched schedule, as Halide's autoscheduler writes it
// to HL_FEATURE_FILE and featurization_to_sample copies it into a `.sample`:
// per stage in cost-model order, the 73 schedule features, the 7 types_in_use
// flags and the 40 x 7 pipeline features ([row][type]), all float32.

#include "core/dag/function_dag.h"
#include "core/search/schedule_features.h"
#include "core/search/search_dag.h"

#include <vector>

namespace beamscope::search {

// features: one per cost stage (SearchResult::features). Throws
// std::invalid_argument when their count is not the DAG's stage count.
std::vector<float> featurization(const SearchDag &dag, const std::vector<ScheduleFeatures> &features);

} // namespace beamscope::search
