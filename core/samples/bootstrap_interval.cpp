#include "core/samples/bootstrap_interval.h"

#include "core/samples/rank_metrics.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace beamscope::samples {

double topKScoreOf(std::span<const double> predicted, std::span<const double> measuredMs, size_t k)
{
    const size_t n = std::min(predicted.size(), measuredMs.size());
    if (n == 0 || k == 0)
        return NAN;
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    // Ties in the prediction keep the given order, so the score is deterministic.
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return predicted[a] < predicted[b]; });
    double bestPicked = INFINITY, best = INFINITY;
    for (size_t i = 0; i < n; i++) {
        best = std::min(best, measuredMs[order[i]]);
        if (i < k)
            bestPicked = std::min(bestPicked, measuredMs[order[i]]);
    }
    return bestPicked / best;
}

double finiteMean(std::span<const double> values)
{
    double sum = 0;
    size_t n = 0;
    for (double v : values)
        if (std::isfinite(v)) {
            sum += v;
            ++n;
        }
    return n ? sum / double(n) : NAN;
}

Interval percentileInterval(std::vector<double> values)
{
    values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }),
                 values.end());
    if (values.size() < 10)
        return {};
    std::sort(values.begin(), values.end());
    const auto at = [&](double q) {
        const double pos = q * double(values.size() - 1);
        const auto lo = static_cast<size_t>(std::floor(pos));
        const size_t hi = std::min(values.size() - 1, lo + 1);
        return values[lo] + (pos - double(lo)) * (values[hi] - values[lo]);
    };
    return {at(0.025), at(0.975)};
}

RankIntervals bootstrapRankIntervals(std::span<const ScheduleRanking> pipelines, int resamples, uint64_t seed)
{
    RankIntervals out;
    for (const ScheduleRanking &p : pipelines)
        out.schedules += std::min(p.predicted.size(), p.measuredMs.size());
    std::mt19937_64 rng(seed);
    std::vector<double> sp, kt, t1, t5;
    std::vector<double> pred, meas, pipeSp, pipeKt, pipeT1, pipeT5;
    for (int r = 0; r < resamples; ++r) {
        pipeSp.clear();
        pipeKt.clear();
        pipeT1.clear();
        pipeT5.clear();
        for (const ScheduleRanking &p : pipelines) {
            const size_t n = std::min(p.predicted.size(), p.measuredMs.size());
            if (n < 3)
                continue; // no ranking figure is defined on fewer
            std::uniform_int_distribution<size_t> pick(0, n - 1);
            pred.resize(n);
            meas.resize(n);
            for (size_t i = 0; i < n; ++i) {
                const size_t j = pick(rng);
                pred[i] = p.predicted[j];
                meas[i] = p.measuredMs[j];
            }
            pipeSp.push_back(spearman(pred, meas));
            pipeKt.push_back(kendallTauB(pred, meas));
            pipeT1.push_back(topKScoreOf(pred, meas, 1));
            pipeT5.push_back(topKScoreOf(pred, meas, 5));
        }
        sp.push_back(finiteMean(pipeSp));
        kt.push_back(finiteMean(pipeKt));
        t1.push_back(finiteMean(pipeT1));
        t5.push_back(finiteMean(pipeT5));
    }
    out.spearman = percentileInterval(std::move(sp));
    out.kendall = percentileInterval(std::move(kt));
    out.top1 = percentileInterval(std::move(t1));
    out.top5 = percentileInterval(std::move(t5));
    return out;
}

} // namespace beamscope::samples
