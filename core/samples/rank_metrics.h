#pragma once
// How well predicted costs order a pipeline's schedules compared with their
// measured runtimes. The search only needs the order, so these are the
// figures hold-one-out reports.

#include <cstddef>
#include <span>

namespace beamscope::samples {

// Pairs with a NaN on either side are left out of every metric.
struct RankMetrics {
    size_t count = 0; // pairs used (NaN-free)
    // NaN when undefined (fewer than two values, or one side constant).
    double spearman = 0;         // Pearson correlation of average ranks (ties share a rank)
    double kendall = 0;          // Kendall tau-b (tie corrected)
    double pairwiseAccuracy = 0; // pairs with different runtimes ordered right; predicted ties count 1/2
};

double spearman(std::span<const double> a, std::span<const double> b);
double kendallTauB(std::span<const double> a, std::span<const double> b);
double pairwiseAccuracy(std::span<const double> predicted, std::span<const double> actual);

RankMetrics rankMetrics(std::span<const double> predicted, std::span<const double> actual);

} // namespace beamscope::samples
