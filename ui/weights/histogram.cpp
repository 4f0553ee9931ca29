#include "ui/weights/histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace beamscope::ui {

long Histogram::total() const { return std::accumulate(counts.begin(), counts.end(), 0L); }

Histogram computeHistogram(std::span<const float> values, int bins)
{
    Histogram h;
    h.counts.assign(static_cast<size_t>(std::max(1, bins)), 0);
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (float v : values) {
        if (!std::isfinite(v)) {
            ++h.nonFinite;
            continue;
        }
        low = std::min(low, static_cast<double>(v));
        high = std::max(high, static_cast<double>(v));
    }
    if (low > high) // no finite values
        return h;
    if (low == high) {
        low -= 0.5;
        high += 0.5;
    }
    h.low = low;
    h.high = high;
    const double n = static_cast<double>(h.counts.size());
    for (float v : values) {
        if (!std::isfinite(v))
            continue;
        const auto bin = static_cast<size_t>(std::floor((v - low) / (high - low) * n));
        ++h.counts[std::min(bin, h.counts.size() - 1)];
    }
    return h;
}

} // namespace beamscope::ui
