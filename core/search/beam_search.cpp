#include "core/search/beam_search.h"

#include "core/search/cost_pruning.h"
#include "core/search/search_space.h"
#include "core/search/state_from_decisions.h"
#include "core/search/structural_hash.h"
#include "core/search/thread_info.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <unordered_map>
#include <random>
#include <set>
#include <unordered_set>

namespace beamscope::search {

void packFeatures(const std::vector<ScheduleFeatures> &features, std::vector<float> &out)
{
    for (const ScheduleFeatures &f : features)
        for (double v : f.values)
            out.push_back(static_cast<float>(v));
}

BeamSearch::BeamSearch(const SearchDag &dag, const model::CostModel &model, AutoscheduleParams params)
    : m_dag(dag), m_model(model), m_params(std::move(params))
{
    const int stages = static_cast<int>(dag.costStages().size());
    m_full = m_model.embedPipeline(dag.pipelineFeatures(), stages);
    m_prefix.resize(static_cast<size_t>(stages) + 1);
}

const model::PipelineEmbedding &BeamSearch::embedding(int stages) const
{
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

double BeamSearch::evaluate(const State &state, std::vector<float> *stageCosts) const
{
    const std::vector<ScheduleFeatures> f = computeFeatures(state, m_params.device);
    const int stages = static_cast<int>(f.size());
    if (stages == 0) {
        if (stageCosts)
            stageCosts->clear();
        return 0;
    }
    std::vector<float> packed;
    packFeatures(f, packed);
    return evaluatePacked(packed, stages, stageCosts);
}

double BeamSearch::evaluatePacked(std::span<const float> packed, int stages, std::vector<float> *stageCosts) const
{
    if (stages == 0) {
        if (stageCosts)
            stageCosts->clear();
        return 0;
    }
    float prediction = 0;
    std::vector<float> costs(static_cast<size_t>(stages));
    m_model.evaluate(embedding(stages), packed, 1, m_params.device.parallelism, std::span<float>(&prediction, 1),
                     costs);
    if (stageCosts)
        *stageCosts = costs;
    return prediction;
}

namespace {

struct Candidate {
    State state;
    double cost = 0; // the cost model's prediction
    double rank = 0; // cost with the coarse-to-fine penalty applied
    bool penalized = false;
    bool fixed = false; // made by a decision fixed by the start state
    int64_t traceId = -1;
    size_t order = 0; // generation order: its feature rows in the depth's packed batch
};

// Halide's StateQueue: a binary heap on the (penalised) cost alone. The children of
// a depth enter it in generation order before they are costed, so with equal keys
// the heap is that order; once they are costed the heap is rebuilt (make_heap), then
// states are popped and deferred states pushed back with the standard heap
// algorithms. Ties between equal costs therefore fall where Halide's heap leaves
// them, not in generation order (conv_relu, beam 1, depth 2: 27 children tie at the
// lowest cost and Halide expands the last generated). Halide's Linux builds use
// libstdc++, as Beamscope does, so the same algorithms give the same order.
class Queue {
public:
    explicit Queue(std::vector<Candidate *> inGenerationOrder) : m_heap(std::move(inGenerationOrder))
    {
        std::make_heap(m_heap.begin(), m_heap.end(), Costlier{});
    }
    bool empty() const { return m_heap.empty(); }
    Candidate *top() const { return m_heap.front(); }
    void pop()
    {
        std::pop_heap(m_heap.begin(), m_heap.end(), Costlier{});
        m_heap.pop_back();
    }
    void push(Candidate *c)
    {
        m_heap.push_back(c);
        std::push_heap(m_heap.begin(), m_heap.end(), Costlier{});
    }

private:
    struct Costlier {
        bool operator()(const Candidate *a, const Candidate *b) const { return a->rank > b->rank; }
    };
    std::vector<Candidate *> m_heap;
};

// The search's parameters as the trace records them.
TraceParams traceParams(const AutoscheduleParams &p, int totalPasses, bool prePass, int startDepth)
{
    TraceParams t;
    t.beamSize = p.beamSize;
    t.numPasses = totalPasses;
    t.randomDropout = p.randomDropout;
    t.randomDropoutSeed = p.randomDropoutSeed;
    t.searchSpaceOptions = p.options.toString();
    t.disableSubtiling = p.disableSubtiling;
    t.randomizeTilings = p.randomizeTilings;
    t.freezeInlineComputeRoot = p.freezeInlineComputeRoot;
    // With the pre-pass, the trace's pass 0 is the pre-pass and pass k is Halide's pass k - 1.
    t.prePass = prePass;
    t.startDepth = startDepth;
    t.parallelism = p.device.parallelism;
    t.sharedMemoryLimitKb = static_cast<int64_t>(p.device.sharedMemoryLimitBytes / 1024);
    t.sharedMemorySmLimitKb = static_cast<int64_t>(p.device.sharedMemorySmLimitBytes / 1024);
    t.activeBlockLimit = p.device.activeBlockLimit;
    t.activeWarpLimit = p.device.activeWarpLimit;
    return t;
}

// One depth's children, from every beam state, each featurized once: its rows
// are in `packed` at position `order`, for the batch costing and for the trace.
struct Generation {
    std::vector<Candidate> children;
    std::vector<Decision> decisions;
    std::vector<int64_t> parents;
    std::vector<float> packed;
};

// Children Halide rejects before costing are dropped, unless every child would
// be (then they are kept, so that a pass never stalls).
Generation expandBeam(const std::vector<Candidate> &beam, const AutoscheduleParams &params, const GenerateOptions &go,
                      bool fixedChildren, std::mt19937_64 &rng)
{
    Generation kept, rejected;
    for (const Candidate &b : beam) {
        for (Child &c : generateChildren(b.state, params, go, rng)) {
            std::vector<ScheduleFeatures> features = computeFeatures(c.state, params.device);
            Generation &into = rejectionBeforeCosting(c.state, features).empty() ? kept : rejected;
            packFeatures(features, into.packed);
            into.children.push_back(Candidate{std::move(c.state), 0, 0, false, fixedChildren, -1, 0});
            into.decisions.push_back(std::move(c.decision));
            into.parents.push_back(b.traceId);
        }
    }
    Generation &out = kept.children.empty() ? rejected : kept;
    for (size_t i = 0; i < out.children.size(); i++)
        out.children[i].order = i;
    return std::move(out);
}

// Halide's beam step: pop the cheapest; in coarse-to-fine passes a state pays
// a penalty (cost x n) for being the n-th popped with its hash at granularity
// pass + 1, and 10 more when its hash at granularity pass - 1 matched no
// ancestor of the good states of the passes before; a penalized state that is
// no longer the cheapest goes back into the queue. Exact duplicates are skipped.
// What is left in the queue stays there for the blessing of the pass's result.
std::vector<Candidate *> chooseBeam(Queue &queue, size_t want, bool penalize, int pass,
                                    const std::unordered_set<uint64_t> &permitted)
{
    std::unordered_map<uint64_t, int> seenAtFiner;
    std::unordered_set<uint64_t> exact;
    std::vector<Candidate *> picked;
    while (picked.size() < want && !queue.empty()) {
        Candidate *c = queue.top();
        queue.pop();
        if (penalize && !c->penalized) {
            int penalty = ++seenAtFiner[coarseToFineHash(c->state, pass + 1)];
            if (pass > 0 && !permitted.count(coarseToFineHash(c->state, pass - 1)))
                penalty += 10;
            if (penalty > 1) {
                c->penalized = true;
                c->rank *= penalty;
                if (!queue.empty() && c->rank > queue.top()->rank) {
                    queue.push(c);
                    continue;
                }
            }
        }
        if (!exact.insert(coarseToFineHash(c->state, kExactGranularity)).second)
            continue;
        picked.push_back(c);
    }
    return picked;
}

// The pass's result and the states within 20% of it (up to the beam size, in
// queue order, no further penalties), which bless their ancestors for the
// next pass.
std::vector<Candidate *> blessed(Candidate *result, Queue &queue, size_t beamSize)
{
    const double limit = 1.2 * result->rank;
    std::vector<Candidate *> out{result};
    while (!queue.empty() && out.size() < beamSize && queue.top()->rank <= limit) {
        out.push_back(queue.top());
        queue.pop();
    }
    return out;
}

} // namespace

SearchResult BeamSearch::run(SearchTrace *trace, Progress *progress)
{
    const auto start = std::chrono::steady_clock::now();
    SearchResult result;
    std::mt19937_64 rng(m_params.randomDropoutSeed);
    const std::vector<int> &order = m_dag.scheduleOrder();
    const int depthCount = static_cast<int>(order.size());
    const std::string pipelineName = trace ? trace->pipeline : std::string("the pipeline");

    // Decisions fixed for every state: the start state's (strict), and after
    // the pre-pass the frozen inline / compute_root choices (dropped when not legal).
    std::vector<std::optional<FuncSchedule>> fixed(static_cast<size_t>(m_dag.nodeCount()));
    std::vector<bool> strict(static_cast<size_t>(m_dag.nodeCount()), false);
    const State startState = stateFromDecisions(m_dag, m_params.startDecisions, pipelineName);
    if (const std::string why = startState.legalityProblem(kMaxThreadsPerBlock, m_params.device.sharedMemoryLimitBytes,
                                                           m_params.device.activeWarpLimit);
        !why.empty())
        throw std::invalid_argument("start state: " + why);
    for (const FuncSchedule &f : startState.funcs()) {
        fixed[static_cast<size_t>(f.node)] = f;
        strict[static_cast<size_t>(f.node)] = true;
    }
    result.startDepth = startState.numScheduled();

    const int totalPasses = m_params.passes();
    const bool prePass = m_params.freezeInlineComputeRoot && totalPasses > 1;
    const int mainPasses = prePass ? totalPasses - 1 : totalPasses;
    // Halide penalizes only when there is more than one pass to refine over.
    const bool coarseToFine = m_params.beamSize > 1 && mainPasses > 1;
    std::unordered_set<uint64_t> permitted;
    double bestCost = std::numeric_limits<double>::infinity();
    int64_t bestTraceId = -1;

    if (trace) {
        for (const dag::StageRef &r : m_dag.costStages())
            trace->stageNames.push_back(m_dag.dag().stage(r).name);
        trace->params = traceParams(m_params, totalPasses, prePass, startState.numScheduled());
    }

    for (int run = 0; run < totalPasses && !result.cancelled; run++) {
        const int pass = prePass ? run - 1 : run; // -1: the pre-pass
        std::vector<Candidate> beam;
        beam.push_back(Candidate{State(m_dag), 0, 0, false, false, -1, 0});
        std::optional<Candidate> passBest;
        for (int depth = 0; depth < depthCount; depth++) {
            const int node = order[static_cast<size_t>(depth)];
            if (progress) {
                if (progress->cancelled()) {
                    result.cancelled = true;
                    break;
                }
                progress->report((run + double(depth) / depthCount) / totalPasses,
                                 (pass < 0 ? std::string("pre-pass") : "pass " + std::to_string(pass + 1)) +
                                     ", scheduling " + m_dag.node(node).name);
            }
            GenerateOptions go;
            go.maxTilings = static_cast<size_t>(std::max(1, m_params.maxChildrenPerDecision));
            go.maxRootTilings = static_cast<size_t>(std::max(0, m_params.maxRootTilings));
            go.pass = pass; // the pre-pass (-1) groups randomized tilings by the decision count only, as Halide
            go.prePass = pass < 0;
            go.fixed = fixed[static_cast<size_t>(node)] ? &*fixed[static_cast<size_t>(node)] : nullptr;
            go.fixedIsStrict = strict[static_cast<size_t>(node)];

            Generation g = expandBeam(beam, m_params, go, go.fixed && strict[static_cast<size_t>(node)], rng);
            std::vector<Candidate> &children = g.children;
            if (children.empty()) {
                if (go.fixed && go.fixedIsStrict)
                    throw std::invalid_argument("start state: the decision for " + m_dag.node(node).name +
                                                " is not legal in " + pipelineName);
                break;
            }
            // Cost the whole batch at once.
            const int stages = children.front().state.scheduledStageCount();
            std::vector<float> predictions(children.size());
            m_model.evaluate(embedding(stages), g.packed, static_cast<int>(children.size()),
                             m_params.device.parallelism, predictions, {});
            result.statesEvaluated += static_cast<int64_t>(children.size());
            for (size_t i = 0; i < children.size(); i++) {
                children[i].cost = std::isfinite(predictions[i]) ? predictions[i] : std::numeric_limits<double>::max();
                children[i].rank = children[i].cost;
                if (trace) {
                    TraceNode n;
                    n.parent = g.parents[i];
                    n.pass = run;
                    n.depth = depth + 1;
                    n.decision = g.decisions[i].text;
                    const FuncSchedule *f = children[i].state.scheduleOf(g.decisions[i].node);
                    n.detail = g.decisions[i].toJson(m_dag, *f);
                    n.cost = children[i].cost;
                    n.fixed = children[i].fixed;
                    children[i].traceId = trace->add(std::move(n));
                }
            }

            const bool last = depth + 1 == depthCount;
            std::vector<Candidate *> inGenerationOrder;
            for (Candidate &c : children)
                inGenerationOrder.push_back(&c);
            Queue queue(std::move(inGenerationOrder));
            std::vector<Candidate *> picked = chooseBeam(queue, last ? 1 : static_cast<size_t>(m_params.beamSize),
                                                         coarseToFine && pass >= 0, pass, permitted);
            if (last && !picked.empty()) {
                picked = blessed(picked.front(), queue, static_cast<size_t>(m_params.beamSize));
                if (coarseToFine && pass >= 0 && pass + 1 < mainPasses)
                    for (const Candidate *b : picked)
                        for (int prefix = 0; prefix <= b->state.numScheduled(); prefix++)
                            permitted.insert(coarseToFineHash(b->state, pass, prefix));
            }
            std::vector<Candidate> next;
            for (Candidate *c : picked)
                next.push_back(std::move(*c));
            for (Candidate &c : next) {
                if (trace && c.traceId >= 0) {
                    TraceNode *n = trace->find(c.traceId);
                    n->inBeam = true;
                    // The rows this state was costed with: featurized once, when it was a child.
                    const size_t rowFloats = static_cast<size_t>(stages) * kScheduleFeatureCount;
                    const std::span<const float> rows(g.packed.data() + c.order * rowFloats, rowFloats);
                    for (int st = 0; st < stages; st++) {
                        std::array<float, 73> row{};
                        std::copy_n(rows.begin() + static_cast<std::ptrdiff_t>(st) * kScheduleFeatureCount, row.size(),
                                    row.begin());
                        n->features.push_back(row);
                    }
                    evaluatePacked(rows, stages, &n->stageCosts);
                    n->loopNest = c.state.dump();
                }
            }
            beam = std::move(next);
            if (last && !beam.empty())
                passBest = beam.front();
        }
        if (result.cancelled || !passBest || !passBest->state.complete())
            continue;
        if (pass < 0) {
            result.prePassCost = passBest->cost;
            result.frozen = freezeLowestCostStages(passBest->state, fixed);
            if (trace)
                trace->params.frozen = result.frozen;
            continue;
        }
        // Halide keeps whichever pass found the cheapest state (not necessarily the last).
        result.passCosts.push_back(passBest->cost);
        if (passBest->cost < bestCost) {
            bestCost = passBest->cost;
            result.best = passBest->state;
            bestTraceId = passBest->traceId;
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

std::vector<std::string> BeamSearch::freezeLowestCostStages(const State &best,
                                                            std::vector<std::optional<FuncSchedule>> &fixed) const
{
    // Per Func, the sum of its stages' costs in the pre-pass winner.
    std::vector<float> stageCosts;
    evaluate(best, &stageCosts);
    std::vector<std::pair<double, int>> costs;
    for (int node : m_dag.scheduleOrder()) {
        double c = 0;
        for (size_t s = 0; s < m_dag.node(node).stages.size(); s++) {
            const int slot = m_dag.stageSlot(node, static_cast<int>(s));
            if (slot >= 0 && static_cast<size_t>(slot) < stageCosts.size())
                c += stageCosts[static_cast<size_t>(slot)];
        }
        costs.emplace_back(c, node);
    }
    std::stable_sort(costs.begin(), costs.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    const double count = static_cast<double>(costs.size());
    const size_t toFreeze = costs.empty() ? 0 : static_cast<size_t>(count - std::log2(count));
    std::vector<std::string> names;
    for (size_t i = 0; i < toFreeze && i < costs.size(); i++) {
        const int node = costs[i].second;
        if (fixed[static_cast<size_t>(node)])
            continue; // fixed by the start state already
        const FuncSchedule *f = best.scheduleOf(node);
        if (!f || (f->location != ComputeLocation::Inlined && f->location != ComputeLocation::Root))
            continue;
        fixed[static_cast<size_t>(node)] = *f;
        names.push_back(m_dag.node(node).name);
    }
    return names;
}

} // namespace beamscope::search
