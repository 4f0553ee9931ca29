#include "core/study/runtime_interval.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace beamscope::study {

using samples::percentileInterval;

namespace {

// A resample of `n` indices drawn with replacement.
std::vector<size_t> draw(size_t n, std::mt19937_64 &rng)
{
    std::uniform_int_distribution<size_t> pick(0, n - 1);
    std::vector<size_t> out(n);
    for (size_t &i : out)
        i = pick(rng);
    return out;
}

double pairedRatio(const PairedRounds &rounds, const std::vector<size_t> &indices)
{
    std::vector<double> a, b;
    a.reserve(indices.size());
    b.reserve(indices.size());
    for (size_t i : indices) {
        a.push_back(rounds.numeratorMs[i]);
        b.push_back(rounds.denominatorMs[i]);
    }
    return median(std::move(a)) / median(std::move(b));
}

size_t pairCount(const PairedRounds &rounds)
{
    return std::min(rounds.numeratorMs.size(), rounds.denominatorMs.size());
}

std::vector<size_t> allIndices(size_t n)
{
    std::vector<size_t> out(n);
    for (size_t i = 0; i < n; i++)
        out[i] = i;
    return out;
}

} // namespace

RuntimeEstimate medianWithInterval(std::span<const double> runsMs, int resamples, uint64_t seed)
{
    RuntimeEstimate out;
    out.runs = runsMs.size();
    out.medianMs = median({runsMs.begin(), runsMs.end()});
    if (runsMs.size() < 3)
        return out;
    std::mt19937_64 rng(seed);
    std::vector<double> medians;
    medians.reserve(static_cast<size_t>(resamples));
    for (int r = 0; r < resamples; r++) {
        std::vector<double> v;
        for (size_t i : draw(runsMs.size(), rng))
            v.push_back(runsMs[i]);
        medians.push_back(median(std::move(v)));
    }
    out.interval = percentileInterval(std::move(medians));
    return out;
}

RatioEstimate ratioOfMedians(const PairedRounds &rounds, int resamples, uint64_t seed)
{
    RatioEstimate out;
    const size_t n = pairCount(rounds);
    if (n == 0)
        return out;
    out.ratio = pairedRatio(rounds, allIndices(n));
    if (n < 3)
        return out;
    std::mt19937_64 rng(seed);
    std::vector<double> ratios;
    for (int r = 0; r < resamples; r++)
        ratios.push_back(pairedRatio(rounds, draw(n, rng)));
    out.interval = percentileInterval(std::move(ratios));
    return out;
}

RatioEstimate geomeanOfRatios(std::span<const PairedRounds> apps, int resamples, uint64_t seed)
{
    RatioEstimate out;
    std::vector<const PairedRounds *> used;
    for (const PairedRounds &a : apps)
        if (pairCount(a) > 0)
            used.push_back(&a);
    if (used.empty())
        return out;
    const auto geomean = [&](const std::vector<double> &ratios) {
        double logSum = 0;
        for (double r : ratios)
            logSum += std::log(r);
        return std::exp(logSum / double(ratios.size()));
    };
    std::vector<double> point;
    for (const PairedRounds *a : used)
        point.push_back(pairedRatio(*a, allIndices(pairCount(*a))));
    out.ratio = geomean(point);
    std::mt19937_64 rng(seed);
    std::vector<double> resampled;
    for (int r = 0; r < resamples; r++) {
        std::vector<double> ratios;
        for (const PairedRounds *a : used)
            ratios.push_back(pairedRatio(*a, draw(pairCount(*a), rng)));
        resampled.push_back(geomean(ratios));
    }
    out.interval = percentileInterval(std::move(resampled));
    return out;
}

} // namespace beamscope::study
