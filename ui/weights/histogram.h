#pragma once
// Equal-width histogram of a tensor's finite values (the GUI's view of a value
// distribution; non-finite values are counted apart).

#include <span>
#include <vector>

namespace beamscope::ui {

struct Histogram {
    double low = 0, high = 0; // range of the bins: min and max of the finite values
    std::vector<long> counts; // bin i covers [low + i*w, low + (i+1)*w), the last one closed
    long nonFinite = 0;

    double binWidth() const { return counts.empty() ? 0 : (high - low) / static_cast<double>(counts.size()); }
    long total() const;
};

// bins >= 1. When every finite value is equal the range is that value +- 0.5.
Histogram computeHistogram(std::span<const float> values, int bins);

} // namespace beamscope::ui
