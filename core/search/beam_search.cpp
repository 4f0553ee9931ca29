#include "core/search/beam_search.h"

#include "core/search/cost_pruning.h"
#include "core/search/search_space.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <unordered_set>

namespace beamscope::search {

void packFeatures(const std::vector<ScheduleFeatures> &features, std::vector<float> &out) {
    for (const ScheduleFeatures &f : features)
        for (double v : f.values)
            out.push_back(static_cast<float>(v));
}

BeamSearch::BeamSearch(const SearchDag &dag, const model::CostModel &model, AutoscheduleParams params)
    : m_dag(dag), m_model(model), m_params(std::move(params)) {
    const int stages = static_cast<int>(dag.costStages().size());
    m_full = m_model.embedPipeline(dag.pipelineFeatures(), stages);
    m_prefix.resize(static_cast<size_t>(stages) + 1);
}

const model::PipelineEmbedding &BeamSearch::embedding(int stages) const {
    if (stages == m_full.numStages)
        return m_full;
    std::optional<model::PipelineEmbedding> &e = m_prefix[static_cast<size_t>(stages)];
    if (!e) {
        // Each stage's embedding depends only on that stage, so a prefix is a slice.
        model::PipelineEmbedding p;
        p.numStages = stages;
        p.head1.assign(m_full.head1.begin(), m_full.head1.begin() + stages * model::kHead1Channels);
        p.conv1Stage1.assign(m_full.conv1Stage1.begin(), m_full.conv1Stage1.begin() + stages * model::kConv1Channels);
        e = std::move(p);
    }
    return *e;
}

double BeamSearch::evaluate(const State &state, std::vector<float> *stageCosts) const {
    const std::vector<ScheduleFeatures> f = computeFeatures(state, m_params.device);
    const int stages = static_cast<int>(f.size());
    if (stages == 0) {
        if (stageCosts)
            stageCosts->clear();
        return 0;
    }
    std::vector<float> packed;
    packFeatures(f, packed);
    float prediction = 0;
    std::vector<float> costs(static_cast<size_t>(stages));
    m_model.evaluate(embedding(stages), packed, 1, m_params.device.parallelism, std::span<float>(&prediction, 1), costs);
    if (stageCosts)
        *stageCosts = costs;
    return prediction;
}

namespace {

struct Candidate {
    State state;
    double cost = 0;
    int64_t traceId = -1;
    size_t order = 0;
};

} // namespace

SearchResult BeamSearch::run(SearchTrace *trace, Progress *progress) {
    const auto start = std::chrono::steady_clock::now();
    SearchResult result;
    std::mt19937_64 rng(m_params.randomDropoutSeed);
    const int depthCount = static_cast<int>(m_dag.scheduleOrder().size());
    const int passes = m_params.passes();
    // permitted[depth]: location hashes seen in earlier passes' beams.
    std::vector<std::unordered_set<uint64_t>> permitted(static_cast<size_t>(depthCount) + 1);
    double bestCost = std::numeric_limits<double>::infinity();

    if (trace) {
        for (const dag::StageRef &r : m_dag.costStages())
            trace->stageNames.push_back(m_dag.dag().stage(r).name);
        trace->params["beam_size"] = m_params.beamSize;
        trace->params["num_passes"] = passes;
        trace->params["random_dropout"] = m_params.randomDropout;
        trace->params["random_dropout_seed"] = static_cast<int64_t>(m_params.randomDropoutSeed);
        trace->params["search_space_options"] = m_params.options.toString();
        trace->params["parallelism"] = m_params.device.parallelism;
        trace->params["shared_memory_limit_kb"] = static_cast<int64_t>(m_params.device.sharedMemoryLimitBytes / 1024);
        trace->params["shared_memory_sm_limit_kb"] = static_cast<int64_t>(m_params.device.sharedMemorySmLimitBytes / 1024);
        trace->params["active_block_limit"] = m_params.device.activeBlockLimit;
        trace->params["active_warp_limit"] = m_params.device.activeWarpLimit;
    }
    int64_t bestTraceId = -1;

    for (int pass = 0; pass < passes; pass++) {
        const size_t maxTilings = static_cast<size_t>(m_params.maxChildrenPerDecision) << std::min(pass, 2);
        std::vector<Candidate> beam;
        beam.push_back(Candidate{State(m_dag), 0, -1, 0});
        for (int depth = 0; depth < depthCount; depth++) {
            if (progress) {
                if (progress->cancelled()) {
                    result.cancelled = true;
                    break;
                }
                progress->report((pass + double(depth) / depthCount) / passes,
                                 "pass " + std::to_string(pass + 1) + ", scheduling " +
                                     m_dag.node(m_dag.scheduleOrder()[static_cast<size_t>(depth)]).name);
            }
            // Expand every beam state.
            std::vector<Candidate> children;
            std::vector<Decision> decisions;
            std::vector<int64_t> parents;
            // Featurize every child; those Halide rejects before costing are dropped.
            std::vector<float> packed;
            for (const Candidate &b : beam) {
                for (Child &c : generateChildren(b.state, m_params, maxTilings, rng)) {
                    if (pass > 0 && !permitted[static_cast<size_t>(depth) + 1].empty() &&
                        !permitted[static_cast<size_t>(depth) + 1].count(c.state.structuralHash(0)))
                        continue;
                    const std::vector<ScheduleFeatures> features = computeFeatures(c.state, m_params.device);
                    if (!rejectionBeforeCosting(c.state, features).empty())
                        continue;
                    packFeatures(features, packed);
                    children.push_back(Candidate{std::move(c.state), 0, -1, children.size()});
                    decisions.push_back(std::move(c.decision));
                    parents.push_back(b.traceId);
                }
            }
            if (children.empty())
                break;
            // Cost the whole batch at once.
            const int stages = children.front().state.scheduledStageCount();
            std::vector<float> predictions(children.size());
            m_model.evaluate(embedding(stages), packed, static_cast<int>(children.size()), m_params.device.parallelism,
                             predictions, {});
            result.statesEvaluated += static_cast<int64_t>(children.size());
            for (size_t i = 0; i < children.size(); i++) {
                children[i].cost = std::isfinite(predictions[i]) ? predictions[i] : std::numeric_limits<double>::max();
                if (trace) {
                    TraceNode n;
                    n.parent = parents[i];
                    n.pass = pass;
                    n.depth = depth + 1;
                    n.decision = decisions[i].text;
                    const FuncSchedule *f = children[i].state.scheduleOf(decisions[i].node);
                    n.detail = decisions[i].toJson(m_dag, *f);
                    n.cost = children[i].cost;
                    children[i].traceId = trace->add(std::move(n));
                }
            }
            // Keep the cheapest, skipping exact duplicates.
            std::stable_sort(children.begin(), children.end(),
                             [](const Candidate &a, const Candidate &b) { return a.cost < b.cost; });
            std::vector<Candidate> next;
            std::unordered_set<uint64_t> seen;
            for (Candidate &c : children) {
                if (static_cast<int>(next.size()) >= m_params.beamSize)
                    break;
                if (!seen.insert(c.state.structuralHash(2)).second)
                    continue;
                next.push_back(std::move(c));
            }
            for (Candidate &c : next) {
                permitted[static_cast<size_t>(depth) + 1].insert(c.state.structuralHash(0));
                if (trace && c.traceId >= 0) {
                    TraceNode *n = trace->find(c.traceId);
                    n->inBeam = true;
                    const std::vector<ScheduleFeatures> f = computeFeatures(c.state, m_params.device);
                    for (const ScheduleFeatures &sf : f) {
                        std::array<float, 73> row{};
                        for (size_t k = 0; k < row.size(); k++)
                            row[k] = static_cast<float>(sf.values[k]);
                        n->features.push_back(row);
                    }
                    evaluate(c.state, &n->stageCosts);
                    n->loopNest = c.state.dump();
                }
            }
            beam = std::move(next);
        }
        if (result.cancelled)
            break;
        if (!beam.empty() && beam.front().state.complete()) {
            result.passCosts.push_back(beam.front().cost);
            if (beam.front().cost < bestCost) {
                bestCost = beam.front().cost;
                result.best = beam.front().state;
                bestTraceId = beam.front().traceId;
            }
        }
    }
    if (result.best) {
        result.cost = evaluate(*result.best, &result.stageCosts);
        result.features = computeFeatures(*result.best, m_params.device);
    }
    result.searchSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (trace) {
        trace->summary.bestId = bestTraceId;
        trace->summary.bestCost = result.cost;
        trace->summary.statesEvaluated = result.statesEvaluated;
        trace->summary.searchSeconds = result.searchSeconds;
    }
    if (progress)
        progress->report(1.0, "search finished");
    return result;
}

} // namespace beamscope::search
