#include "core/samples/rank_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace beamscope::samples {

namespace {

constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();

// 1-based ranks; tied values share the mean of the ranks they span.
std::vector<double> averageRanks(std::span<const double> values)
{
    std::vector<size_t> order(values.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t j) { return values[i] < values[j]; });
    std::vector<double> ranks(values.size());
    for (size_t start = 0; start < order.size();) {
        size_t end = start + 1;
        while (end < order.size() && values[order[end]] == values[order[start]])
            ++end;
        const double rank = (static_cast<double>(start + 1) + static_cast<double>(end)) / 2.0;
        for (size_t k = start; k < end; ++k)
            ranks[order[k]] = rank;
        start = end;
    }
    return ranks;
}

int sign(double x) { return (x > 0) - (x < 0); }

// Pairs where either value is NaN have no place in an order (and would break
// the sort), so every metric looks only at the rest.
struct Paired {
    std::vector<double> a, b;
};
Paired withoutNaN(std::span<const double> a, std::span<const double> b)
{
    Paired out;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        if (!std::isnan(a[i]) && !std::isnan(b[i])) {
            out.a.push_back(a[i]);
            out.b.push_back(b[i]);
        }
    return out;
}

} // namespace

double spearman(std::span<const double> aIn, std::span<const double> bIn)
{
    const auto paired = withoutNaN(aIn, bIn);
    const std::span<const double> a = paired.a, b = paired.b;
    const size_t n = a.size();
    if (n < 2)
        return kUndefined;
    const auto ra = averageRanks(a.first(n));
    const auto rb = averageRanks(b.first(n));
    const double mean = (static_cast<double>(n) + 1.0) / 2.0; // mean of ranks, ties included
    double sab = 0, saa = 0, sbb = 0;
    for (size_t i = 0; i < n; ++i) {
        const double da = ra[i] - mean, db = rb[i] - mean;
        sab += da * db;
        saa += da * da;
        sbb += db * db;
    }
    if (saa == 0 || sbb == 0)
        return kUndefined;
    return sab / std::sqrt(saa * sbb);
}

double kendallTauB(std::span<const double> aIn, std::span<const double> bIn)
{
    const auto paired = withoutNaN(aIn, bIn);
    const std::span<const double> a = paired.a, b = paired.b;
    const size_t n = a.size();
    if (n < 2)
        return kUndefined;
    // O(n²) is fine for per-pipeline sets (hundreds to a few thousand schedules).
    long long concordant = 0, discordant = 0, tiedA = 0, tiedB = 0;
    for (size_t i = 0; i < n; ++i)
        for (size_t j = i + 1; j < n; ++j) {
            const int sa = sign(a[i] - a[j]), sb = sign(b[i] - b[j]);
            if (sa == 0)
                ++tiedA;
            if (sb == 0)
                ++tiedB;
            if (sa != 0 && sb != 0)
                (sa == sb ? concordant : discordant)++;
        }
    const double pairs = static_cast<double>(n) * static_cast<double>(n - 1) / 2.0;
    const double denominator = std::sqrt((pairs - static_cast<double>(tiedA)) * (pairs - static_cast<double>(tiedB)));
    if (denominator == 0)
        return kUndefined;
    return static_cast<double>(concordant - discordant) / denominator;
}

double pairwiseAccuracy(std::span<const double> predictedIn, std::span<const double> actualIn)
{
    const auto paired = withoutNaN(predictedIn, actualIn);
    const std::span<const double> predicted = paired.a, actual = paired.b;
    const size_t n = predicted.size();
    double correct = 0;
    long long counted = 0;
    for (size_t i = 0; i < n; ++i)
        for (size_t j = i + 1; j < n; ++j) {
            const int truth = sign(actual[i] - actual[j]);
            if (truth == 0)
                continue; // nothing to get right
            ++counted;
            const int guess = sign(predicted[i] - predicted[j]);
            correct += guess == truth ? 1.0 : (guess == 0 ? 0.5 : 0.0);
        }
    return counted == 0 ? kUndefined : correct / static_cast<double>(counted);
}

RankMetrics rankMetrics(std::span<const double> predicted, std::span<const double> actual)
{
    RankMetrics metrics;
    metrics.count = withoutNaN(predicted, actual).a.size();
    metrics.spearman = spearman(predicted, actual);
    metrics.kendall = kendallTauB(predicted, actual);
    metrics.pairwiseAccuracy = pairwiseAccuracy(predicted, actual);
    return metrics;
}

} // namespace beamscope::samples
