#pragma once
// How fast a schedule runs, and how sure that is, from repeated timings on a
// noisy device: the median of the rounds with a percentile-bootstrap 95%
// interval, and the ratio of two schedules' medians from rounds that ran
// interleaved (round i of A next to round i of B, so a slow spell of the
// device falls on both). The study's headline is a geomean of such ratios over
// apps; its interval draws every app's rounds anew in each resample.
//
// Deterministic: the draws come from a seeded generator.

#include "core/samples/bootstrap_interval.h"
#include "core/util/median.h"

#include <cstdint>
#include <span>

#include <vector>

namespace beamscope::study {

using samples::Interval;

struct RuntimeEstimate {
    double medianMs = NAN;
    Interval interval; // 95%, of the median
    size_t runs = 0;
};

RuntimeEstimate medianWithInterval(std::span<const double> runsMs, int resamples = 2000, uint64_t seed = 1);

// One app's paired rounds: slower[i] and faster[i] ran back to back.
struct PairedRounds {
    std::span<const double> numeratorMs, denominatorMs;
};

struct RatioEstimate {
    double ratio = NAN; // median(numerator) / median(denominator); > 1: the denominator's schedule is faster
    Interval interval;  // 95%
};

RatioEstimate ratioOfMedians(const PairedRounds &rounds, int resamples = 2000, uint64_t seed = 1);

// The geometric mean over apps of ratioOfMedians, each resample drawing every
// app's rounds (pairs) with replacement.
RatioEstimate geomeanOfRatios(std::span<const PairedRounds> apps, int resamples = 2000, uint64_t seed = 1);

using beamscope::median; // NaN when empty (core/util/median.h)

} // namespace beamscope::study
