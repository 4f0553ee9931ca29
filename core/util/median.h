#pragma once
// The median of a list of numbers: the middle one, or the mean of the two
// middle ones. One definition for the study's intervals, the campaign's
// summary and a samples folder's summary.

#include <vector>

namespace beamscope {

double median(std::vector<double> values); // NaN when empty

} // namespace beamscope
