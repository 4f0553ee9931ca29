#include "core/study/loop_figures.h"

#include "core/samples/bootstrap_interval.h"
#include "core/samples/rank_metrics.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace beamscope::study {

RankFigures rankFigures(std::span<const double> predicted, std::span<const double> measuredMs)
{
    RankFigures r;
    r.schedules = std::min(predicted.size(), measuredMs.size());
    const samples::RankMetrics m = samples::rankMetrics(predicted, measuredMs);
    r.spearman = m.spearman;
    r.kendall = m.kendall;
    if (r.schedules >= 2) {
        // A top-k score of 1 means the fastest measured schedule is among the model's first k.
        r.top1 = samples::topKScoreOf(predicted, measuredMs, 1) <= 1.0 ? 1.0 : 0.0;
        r.top5 = samples::topKScoreOf(predicted, measuredMs, 5) <= 1.0 ? 1.0 : 0.0;
    }
    return r;
}

std::vector<LoopBatch> loopBatches(std::vector<samples::ScheduleRecord> records)
{
    std::sort(records.begin(), records.end(),
              [](const auto &x, const auto &y) { return std::pair(x.batch, x.index) < std::pair(y.batch, y.index); });
    std::map<int, LoopBatch> byBatch;
    for (const samples::ScheduleRecord &r : records) {
        LoopBatch &b = byBatch[r.batch];
        b.batch = r.batch;
        if (r.status != samples::Status::Ok)
            continue;
        if (r.index == 0)
            b.pickMs = r.runtimeMs;
        b.predicted.push_back(r.predictedCost);
        b.measuredMs.push_back(r.runtimeMs);
    }
    std::vector<LoopBatch> out;
    double best = INFINITY;
    for (auto &[batch, b] : byBatch) {
        for (double ms : b.measuredMs)
            best = std::min(best, ms);
        b.bestSoFarMs = std::isfinite(best) ? best : NAN;
        b.outOfSample = rankFigures(b.predicted, b.measuredMs);
        out.push_back(std::move(b));
    }
    return out;
}

} // namespace beamscope::study
