#include "core/util/median.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace beamscope {

double median(std::vector<double> values)
{
    if (values.empty())
        return NAN;
    // A partial sort: the upper middle in place, the lower middle the largest below it.
    const size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
    const double upper = values[mid];
    if (values.size() % 2)
        return upper;
    return (*std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid)) + upper) / 2;
}

} // namespace beamscope
