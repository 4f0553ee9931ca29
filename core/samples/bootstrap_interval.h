#pragma once
// How sure a ranking figure is, from the schedules at hand: a percentile
// bootstrap (schedules drawn with replacement, the figure recomputed, the
// 2.5th and 97.5th percentiles kept). On a dozen schedules Spearman's interval
// is wide (often -0.2 .. 0.9), and two weights files whose intervals overlap
// that much cannot be told apart on those samples, whatever their means say.
//
// Deterministic: the draws come from a seeded generator, so a figure and its
// interval are the same in the CLI, the explorer and every rerun.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace beamscope::samples {

struct Interval {
    double low = NAN, high = NAN; // NaN when undefined (fewer than 3 schedules, or no finite resample)
    bool defined() const { return std::isfinite(low) && std::isfinite(high); }
    bool overlaps(const Interval &other) const
    {
        return defined() && other.defined() && low <= other.high && other.low <= high;
    }
};

// One pipeline's schedules: predicted costs and measured runtimes, parallel.
struct ScheduleRanking {
    std::span<const double> predicted, measuredMs;
};

struct RankIntervals {
    size_t schedules = 0;
    Interval spearman, kendall, top1, top5;
};

// 95% intervals of the mean over pipelines of each pipeline's Spearman, Kendall
// tau-b and top-k scores, each resample drawing every pipeline's schedules anew
// within that pipeline (schedules are never ranked across pipelines).
RankIntervals bootstrapRankIntervals(std::span<const ScheduleRanking> pipelines, int resamples = 1000,
                                     uint64_t seed = 1);

// The 2.5th and 97.5th percentiles of bootstrap resamples of a figure (linearly interpolated);
// non-finite values are left out, and fewer than 10 finite ones give an undefined interval.
Interval percentileInterval(std::vector<double> values);

// The mean of the finite values (a figure undefined for one pipeline is left out), NaN when none is.
double finiteMean(std::span<const double> values);

// The top-k score of one pipeline (core/samples/weights_comparison.h topKScore) from plain arrays.
double topKScoreOf(std::span<const double> predicted, std::span<const double> measuredMs, size_t k);

// Fewer schedules than this make every ranking figure a guess; the views say so.
inline constexpr size_t kFewSchedules = 20;

} // namespace beamscope::samples
