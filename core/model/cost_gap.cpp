#include "core/model/cost_gap.h"

#include "core/util/parallel_for.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace beamscope::model {

namespace {

// The prediction as evaluate() forms it: stage costs summed in float, left to
// right, here with stage `changed` costing `cost` instead.
float totalWith(const std::vector<float> &stageCosts, int changed, float cost)
{
    float total = 0;
    for (size_t s = 0; s < stageCosts.size(); s++)
        total += static_cast<int>(s) == changed ? cost : stageCosts[s];
    return total;
}

double worstError(const std::vector<float> &totals, std::span<const CostTarget> targets)
{
    double worst = 0;
    for (size_t t = 0; t < targets.size(); t++)
        worst = std::max(worst, std::abs(totals[t] - targets[t].cost) / std::abs(targets[t].cost));
    return worst;
}

// One stage seen alone: its pipeline features and, per target, that target's
// schedule features of the stage and the stage's single-stage embedding.
class StageProbe {
public:
    StageProbe(int stage, std::span<const float> pipeline, std::span<const CostTarget> targets,
               const CostGapOptions &options)
        : m_pipeline(pipeline.begin(), pipeline.end()), m_targets(targets), m_numCores(options.numCores)
    {
        for (const CostTarget &t : targets) {
            m_embeddings.push_back(t.model->embedPipeline(m_pipeline, 1));
            const auto f =
                t.scheduleFeatures.subspan(static_cast<size_t>(stage) * kScheduleFeatureCount, kScheduleFeatureCount);
            m_schedules.emplace_back(f.begin(), f.end());
        }
    }

    std::span<const float> schedule(size_t t) const { return m_schedules[t]; }
    std::span<const float> pipeline() const { return m_pipeline; }

    // The stage's cost under target t for each of `count` schedule-feature vectors.
    std::vector<float> scheduleCosts(size_t t, std::span<const float> vectors, int count) const
    {
        std::vector<float> costs(static_cast<size_t>(count));
        m_targets[t].model->evaluate(m_embeddings[t], vectors, count, m_numCores, costs, {});
        return costs;
    }

    // The stage's cost under target t with schedule feature i set to x.
    float withScheduleFeature(size_t t, int i, float x) const
    {
        std::vector<float> v = m_schedules[t];
        v[static_cast<size_t>(i)] = x;
        return scheduleCosts(t, v, 1)[0];
    }

    // The stage's cost under target t with pipeline cell c set to x.
    float withPipelineFeature(size_t t, int c, float x) const
    {
        std::vector<float> p = m_pipeline;
        p[static_cast<size_t>(c)] = x;
        const PipelineEmbedding e = m_targets[t].model->embedPipeline(p, 1);
        float cost = 0;
        m_targets[t].model->evaluate(e, m_schedules[t], 1, m_numCores, std::span<float>(&cost, 1), {});
        return cost;
    }

private:
    std::vector<float> m_pipeline;
    std::span<const CostTarget> m_targets;
    int m_numCores;
    std::vector<PipelineEmbedding> m_embeddings;
    std::vector<std::vector<float>> m_schedules;
};

// Values tried for a schedule feature now at v: a geometric ladder around it
// (features span bytes to counts, so steps are relative), small integer steps, and 0.
std::vector<float> scheduleLadder(float v)
{
    std::vector<float> xs{0.0f};
    if (v > 0) {
        for (int k = -48; k <= 48; k++)
            xs.push_back(static_cast<float>(v * std::exp2(k / 4.0)));
        for (int d = -4; d <= 4; d++)
            if (v + static_cast<float>(d) >= 0)
                xs.push_back(v + static_cast<float>(d));
    } else {
        for (int k = -20; k <= 64; k++)
            xs.push_back(static_cast<float>(std::exp2(k / 2.0)));
    }
    std::sort(xs.begin(), xs.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
    return xs;
}

class StageScan {
public:
    StageScan(int stage, const StageProbe &probe, const std::vector<std::vector<float>> &stageCosts,
              std::span<const CostTarget> targets)
        : m_stage(stage), m_probe(probe), m_stageCosts(stageCosts), m_targets(targets)
    {}

    std::vector<CostGapCandidate> run(bool scanSchedule, int maxPipelineDelta)
    {
        for (int i = 0; scanSchedule && i < kScheduleFeatureCount; i++)
            scanScheduleFeature(i);
        for (int c = 0; c < kPipelineFeaturesPerStage; c++)
            scanPipelineFeature(c, maxPipelineDelta);
        return std::move(m_candidates);
    }

private:
    float fittedTotal(float stageCost) const { return totalWith(m_stageCosts[0], m_stage, stageCost); }

    void add(FeatureKind kind, int index, float from, float to, std::vector<float> stageCost)
    {
        CostGapCandidate c;
        c.change = FeatureChange{m_stage, kind, index, from, to};
        for (size_t t = 0; t < m_targets.size(); t++)
            c.totals.push_back(totalWith(m_stageCosts[t], m_stage, stageCost[t]));
        c.worstRelativeError = worstError(c.totals, m_targets);
        m_candidates.push_back(std::move(c));
    }

    // Solves for the value that makes the first target's total right (bisection
    // between ladder values whose totals straddle it) and judges it by the others.
    void scanScheduleFeature(int i)
    {
        const std::span<const float> schedule = m_probe.schedule(0);
        const float from = schedule[static_cast<size_t>(i)];
        const std::vector<float> xs = scheduleLadder(from);
        std::vector<float> vectors;
        for (float x : xs) {
            vectors.insert(vectors.end(), schedule.begin(), schedule.end());
            vectors[vectors.size() - kScheduleFeatureCount + static_cast<size_t>(i)] = x;
        }
        const std::vector<float> costs = m_probe.scheduleCosts(0, vectors, static_cast<int>(xs.size()));
        const double goal = m_targets[0].cost;
        const auto miss = [&](float cost) { return static_cast<double>(fittedTotal(cost)) - goal; };
        std::vector<float> roots;
        for (size_t k = 0; k + 1 < xs.size(); k++) {
            const double a = miss(costs[k]), b = miss(costs[k + 1]);
            if (a == 0)
                roots.push_back(xs[k]);
            if ((a < 0) == (b < 0) || b == 0)
                continue;
            float lo = xs[k], hi = xs[k + 1];
            const bool rising = a < 0;
            for (int step = 0; step < 60; step++) {
                const float mid = static_cast<float>((static_cast<double>(lo) + hi) / 2);
                if (mid <= lo || mid >= hi)
                    break;
                const bool below = miss(m_probe.withScheduleFeature(0, i, mid)) < 0;
                (below == rising ? lo : hi) = mid;
            }
            roots.push_back(std::abs(miss(m_probe.withScheduleFeature(0, i, lo))) <=
                                    std::abs(miss(m_probe.withScheduleFeature(0, i, hi)))
                                ? lo
                                : hi);
        }
        if (miss(costs.back()) == 0)
            roots.push_back(xs.back());
        std::erase(roots, from); // the value it has: no change
        if (roots.empty())
            return; // no value of this feature reaches the first target
        // Of several values that fit the first target, the one the other targets agree with best.
        CostGapCandidate best;
        best.worstRelativeError = std::numeric_limits<double>::infinity();
        for (float x : roots) {
            std::vector<float> stageCost;
            for (size_t t = 0; t < m_targets.size(); t++)
                stageCost.push_back(m_probe.withScheduleFeature(t, i, x));
            add(FeatureKind::Schedule, i, from, x, std::move(stageCost));
            if (m_candidates.back().worstRelativeError < best.worstRelativeError)
                best = m_candidates.back();
            m_candidates.pop_back();
        }
        m_candidates.push_back(std::move(best));
    }

    void scanPipelineFeature(int c, int maxDelta)
    {
        const float from = m_probe.pipeline()[static_cast<size_t>(c)];
        for (int d = -maxDelta; d <= maxDelta; d++) {
            const float to = from + static_cast<float>(d);
            if (d == 0 || to < 0)
                continue;
            std::vector<float> stageCost;
            for (size_t t = 0; t < m_targets.size(); t++)
                stageCost.push_back(m_probe.withPipelineFeature(t, c, to));
            add(FeatureKind::Pipeline, c, from, to, std::move(stageCost));
        }
    }

    int m_stage;
    const StageProbe &m_probe;
    const std::vector<std::vector<float>> &m_stageCosts;
    std::span<const CostTarget> m_targets;
    std::vector<CostGapCandidate> m_candidates;
};

bool better(const CostGapCandidate &a, const CostGapCandidate &b)
{
    if (a.worstRelativeError != b.worstRelativeError)
        return a.worstRelativeError < b.worstRelativeError;
    if (a.change.stage != b.change.stage)
        return a.change.stage < b.change.stage;
    if (a.change.kind != b.change.kind)
        return a.change.kind < b.change.kind;
    if (a.change.index != b.change.index)
        return a.change.index < b.change.index;
    return a.change.to < b.change.to;
}

} // namespace

CostGapReport explainCostGap(std::span<const float> pipelineFeatures, int numStages,
                             std::span<const CostTarget> targets, const CostGapOptions &options)
{
    if (targets.empty())
        throw ModelError("cost gap: no target cost given");
    if (numStages <= 0 || pipelineFeatures.size() != static_cast<size_t>(numStages) * kPipelineFeaturesPerStage)
        throw ModelError("cost gap: expected " + std::to_string(numStages) + " stages of 280 pipeline features, " +
                         "found " + std::to_string(pipelineFeatures.size()) + " values");
    for (size_t t = 0; t < targets.size(); t++) {
        const CostTarget &target = targets[t];
        if (!target.model || !(target.cost > 0) || !std::isfinite(target.cost))
            throw ModelError("cost gap: target " + std::to_string(t) + ": expected a model and a positive cost, " +
                             "found " + std::to_string(target.cost));
        if (target.scheduleFeatures.size() != static_cast<size_t>(numStages) * kScheduleFeatureCount)
            throw ModelError("cost gap: target " + std::to_string(t) + ": expected " + std::to_string(numStages) +
                             " stages of 73 schedule features, found " +
                             std::to_string(target.scheduleFeatures.size()) + " values");
    }

    CostGapReport report;
    report.numStages = numStages;
    report.scheduleScanned.assign(static_cast<size_t>(numStages), true);
    for (const CostTarget &t : targets) {
        const Evaluation e = t.model->evaluate(pipelineFeatures, t.scheduleFeatures, numStages, 1, options.numCores);
        report.stageCosts.push_back(e.costPerStage);
        report.totals.push_back(e.predictions[0]);
        for (size_t s = 0; s < report.scheduleScanned.size(); s++) {
            const auto mine = t.scheduleFeatures.subspan(s * kScheduleFeatureCount, kScheduleFeatureCount);
            const auto first = targets[0].scheduleFeatures.subspan(s * kScheduleFeatureCount, kScheduleFeatureCount);
            if (!std::equal(mine.begin(), mine.end(), first.begin()))
                report.scheduleScanned[s] = false;
        }
    }

    std::vector<std::vector<CostGapCandidate>> perStage(static_cast<size_t>(numStages));
    parallelFor(static_cast<size_t>(numStages), options.threads, [&](size_t s) {
        const StageProbe probe(static_cast<int>(s),
                               pipelineFeatures.subspan(s * kPipelineFeaturesPerStage, kPipelineFeaturesPerStage),
                               targets, options);
        perStage[s] = StageScan(static_cast<int>(s), probe, report.stageCosts, targets)
                          .run(report.scheduleScanned[s], options.maxPipelineDelta);
    });
    for (auto &candidates : perStage)
        report.candidates.insert(report.candidates.end(), std::make_move_iterator(candidates.begin()),
                                 std::make_move_iterator(candidates.end()));
    const size_t keep = std::min(report.candidates.size(), static_cast<size_t>(std::max(0, options.maxCandidates)));
    std::partial_sort(report.candidates.begin(), report.candidates.begin() + static_cast<std::ptrdiff_t>(keep),
                      report.candidates.end(), better);
    report.candidates.resize(keep);
    return report;
}

} // namespace beamscope::model
