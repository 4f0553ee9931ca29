#pragma once
// The names of the cost model's 73 schedule features (head2's inputs), as
// Halide's ScheduleFeatures fields are named: one list for the search's
// features, the trace, the explorer's feature tables and its weights views.

#include <string>

namespace beamscope::model {

const char *scheduleFeatureName(int index);        // e.g. "num_realizations"; "?" outside 0..72
int scheduleFeatureIndex(const std::string &name); // -1 when unknown
// What a feature measures, in a line (schedule_feature_meanings.cpp): the explorer's tooltips.
const char *scheduleFeatureMeaning(int index); // "" outside 0..72

} // namespace beamscope::model
