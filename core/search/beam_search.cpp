#include "core/search/beam_search.h"

#include "core/search/cost_pruning.h"
#include "core/search/halide_steps.h"
#include "core/search/halide_structural_hash.h"
#include "core/search/stage_feature_memo.h"
#include "core/search/search_space.h"
#include "core/search/state_from_decisions.h"
#include "core/search/structural_hash.h"
#include "core/search/thread_info.h"
#include "core/util/parallel_for.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <random>
#include <set>
#include <unordered_set>

namespace beamscope::search {

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

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Why no state may schedule `node`, where the regions tell: a Func computed over
// nothing (an estimate, or an RDom, of extent 0 or less) has no tiling to choose.
std::string emptyRegionNote(const SearchDag &dag, const State &state, int node)
{
    const dag::Node &n = dag.node(node);
    const Region computed = state.computedRegion(node);
    for (size_t d = 0; d < computed.size(); d++)
        if (computed[d].extent() <= 0)
            return " (its region is empty: extent " + std::to_string(computed[d].extent()) + " in dimension " +
                   std::to_string(d) + ")";
    for (size_t st = 0; st < n.stages.size(); st++) {
        const Region loops = state.stageLoops(node, static_cast<int>(st));
        for (size_t j = 0; j < loops.size() && j < n.stages[st].loop.size(); j++)
            if (loops[j].extent() <= 0)
                return " (stage " + std::to_string(st) + "'s loop over " + n.stages[st].loop[j].var + " has extent " +
                       std::to_string(loops[j].extent()) + ": an RDom or an estimate of extent 0 or less?)";
    }
    return {};
}

// The states a beam state descends from, for the blessing at the end of a pass (Halide blesses
// the structural hash of every ancestor of the good states).
struct Lineage {
    std::shared_ptr<const Lineage> parent;
    uint64_t blessingHash = 0; // its structural hash at the pass's granularity
};

struct Candidate {
    // Its state. A child of Halide's steps keeps only what its parent's decision made (the parent
    // stays in the beam for the whole depth) until the search takes it off the queue: a depth has
    // up to tens of thousands of children, each state of a large app tens of kilobytes.
    std::optional<State> state;
    const State *parentState = nullptr;
    std::optional<FuncSchedule> decided; // the Func the decision added (or retiled, with `retiled`)
    bool retiled = false;
    double cost = 0; // the cost model's prediction; a pass-through's is its parent's (penalised) rank
    double rank = 0; // the queue's key: cost with the coarse-to-fine penalty applied
    bool penalized = false;
    bool fixed = false;       // made by a decision fixed by the start state
    bool passThrough = false; // Halide's copy of its parent at a step with nothing to decide
    int64_t traceId = -1;
    size_t order = 0;                         // costed children: their place in the depth's predictions
    int decisions = 0;                        // decisions made: Halide's (two per DAG node), or Funcs scheduled
    std::shared_ptr<const Lineage> lineage;   // its parent's, null for the initial state
    std::shared_ptr<const LoopNestText> nest; // its dump read once, for the structural hashes
    // Its featurization (Halide's steps), which its own children's featurizations start from.
    std::shared_ptr<const Featurization> featurization;

    // Its state, made from its parent's the first time it is asked for.
    State &materialized()
    {
        if (!state)
            state = stateWithDecision(*parentState, decided, retiled);
        return *state;
    }
    // The schedule the decision gave `node`.
    const FuncSchedule &scheduleOf(int node) const { return state ? *state->scheduleOf(node) : *decided; }
};

// Halide's cost model evaluates its queue when the 1025th state is enqueued, and once more when
// the depth's children are all generated (DefaultCostModel::enqueue, batch_size).
constexpr size_t kCostBatch = 1024;

// Halide's StateQueue: a binary heap on the (penalised) cost alone. Halide pushes each child as
// it is generated, with the key it has then: 0 for a child waiting for the cost model (its cost
// is set when its batch of 1024 is evaluated, without re-heaping), its parent's cost for a
// pass-through. Once the depth's costs are all in, the heap is rebuilt (make_heap); states are
// then popped, and deferred states pushed back, with the standard heap algorithms. Ties between
// equal costs therefore fall where Halide's heap leaves them (conv_relu, beam 1, depth 3: 27
// children tie at the lowest cost and Halide expands the last generated). Halide's Linux builds
// use libstdc++, as Beamscope does, so the same algorithms give the same order.
class Queue {
public:
    explicit Queue(std::vector<Candidate *> inGenerationOrder)
    {
        std::vector<Candidate *> costed;
        for (Candidate *c : inGenerationOrder) {
            if (!c->passThrough) {
                if (!costed.empty() && costed.size() % kCostBatch == 0)
                    for (size_t j = costed.size() - kCostBatch; j < costed.size(); j++)
                        costed[j]->rank = costed[j]->cost;
                c->rank = 0;
                costed.push_back(c);
            }
            m_heap.push_back(c);
            std::push_heap(m_heap.begin(), m_heap.end(), Costlier{});
        }
        for (Candidate *c : costed)
            c->rank = c->cost;
        std::make_heap(m_heap.begin(), m_heap.end(), Costlier{});
    }
    bool empty() const { return m_heap.empty(); }
    size_t size() const { return m_heap.size(); }
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
TraceParams traceParams(const AutoscheduleParams &p, int totalPasses, bool prePass, int startDepth, bool halideSteps)
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
    t.halideSteps = halideSteps;
    t.startDepth = startDepth;
    t.parallelism = p.device.parallelism;
    t.sharedMemoryLimitKb = static_cast<int64_t>(p.device.sharedMemoryLimitBytes / 1024);
    t.sharedMemorySmLimitKb = static_cast<int64_t>(p.device.sharedMemorySmLimitBytes / 1024);
    t.activeBlockLimit = p.device.activeBlockLimit;
    t.activeWarpLimit = p.device.activeWarpLimit;
    return t;
}

// The cost model on `count` children's feature rows, one prediction each.
using CostRows = std::function<void(std::span<const float> rows, size_t count, std::span<float> predictions)>;

// One depth's children, from every beam state in the order the beam was taken. A costed child's
// prediction is costs[order]; its feature rows wait in `packed` (from child `flushed` on) until a
// batch is full, so a depth of tens of thousands of children never holds all their rows at once.
struct Generation {
    std::vector<Candidate> children;
    std::vector<Decision> decisions;
    std::vector<int64_t> parents;
    std::vector<float> packed;
    std::vector<float> costs;
    size_t costed = 0, flushed = 0;

    // Empties it for the next depth, keeping its buffers' memory.
    void clear()
    {
        children.clear();
        decisions.clear();
        parents.clear();
        packed.clear();
        costs.clear();
        costed = flushed = 0;
    }

    void costPending(const CostRows &cost)
    {
        if (costed == flushed)
            return;
        costs.resize(costed);
        cost(packed, costed - flushed, std::span<float>(costs).subspan(flushed));
        flushed = costed;
        packed.clear();
    }
};

// Children costed per call to the cost model: enough to keep its threads busy.
constexpr size_t kCostChunk = 4096;

// What one step of the search may decide, the same for every beam state of a depth.
struct StepRules {
    bool halideSteps = true;
    GenerateOptions perFunc; // Beamscope's one decision per Func
    StepOptions halide;      // Halide's two steps
    bool fixedChildren = false;
};

// Halide's steps: the children of each beam state, pass-throughs included, in generation order.
// Beamscope's per-Func steps: every child costed; children Halide rejects before costing are
// dropped unless every child would be (then they are kept, so that a pass never stalls).
// blessingHash: the structural hash each beam state's children remember it by.
template <typename BlessingHash>
Generation expandBeam(std::vector<Candidate> &beam, const AutoscheduleParams &params, const StepRules &rules,
                      int threads, std::mt19937_64 &rng, const BlessingHash &blessingHash, const CostRows &cost,
                      Generation &spare)
{
    // Halide's steps draw no random numbers, so the beam states expand in parallel, a few at a time
    // (a state's children with their features take megabytes); their children are then taken in
    // beam order, as if one after the other.
    std::vector<std::vector<StepChild>> halideChildren(rules.halideSteps ? beam.size() : 0);
    StepOptions options = rules.halide;
    // Threads the beam leaves idle judge each state's tilings.
    options.threads = std::max<int>(1, threads / static_cast<int>(std::max<size_t>(1, beam.size())));
    const size_t inFlight = 2 * static_cast<size_t>(std::max(1, threads));
    const auto expandFrom = [&](size_t first) {
        const size_t count = std::min(inFlight, beam.size() - first);
        parallelFor(count, threads, [&](size_t k) {
            Candidate &b = beam[first + k];
            // A beam state's children start from its own featurization, made here once rather than
            // kept for every child of the depth (thousands of them, most never picked).
            const State &state = b.materialized();
            if (!b.featurization && state.numScheduled() > 0)
                b.featurization =
                    std::make_shared<const Featurization>(computeFeatures(state, params.device, nullptr, true));
            halideChildren[first + k] = halideStepChildren(state, b.decisions, params, options, b.featurization.get());
        });
    };
    // The children and their rows go into the last depth's buffers: a depth's children and a chunk
    // of their rows take tens of megabytes on a large app, which the allocator maps afresh for each
    // new vector; growing fresh ones each depth (copying them, faulting their pages in) took a
    // quarter of interpolate's search and a tenth of conv_layer's.
    Generation kept = std::move(spare), rejected;
    kept.clear();
    for (size_t i = 0; i < beam.size(); i++) {
        if (rules.halideSteps && i % inFlight == 0)
            expandFrom(i);
        Candidate &b = beam[i];
        auto lineage = std::make_shared<const Lineage>(Lineage{b.lineage, blessingHash(b)});
        // A child of Halide's steps comes as its parent's decision (`decided`), one of Beamscope's
        // per-Func steps as a whole state.
        const auto take = [&](Generation &into, std::optional<State> state, std::optional<FuncSchedule> decided,
                              bool retiled, std::span<const float> rows, Decision d, bool passThrough) {
            Candidate c;
            if (rules.halideSteps) {
                c.parentState = &b.materialized();
                c.decided = std::move(decided);
                c.retiled = retiled;
            } else {
                c.state = std::move(state);
            }
            c.fixed = rules.fixedChildren;
            c.passThrough = passThrough;
            c.decisions = b.decisions + 1;
            c.lineage = lineage;
            if (passThrough) {
                c.cost = c.rank = b.rank; // Halide copies the parent's cost, penalty included
                c.featurization = b.featurization;
            } else {
                c.order = into.costed++;
                if (into.packed.capacity() < into.packed.size() + rows.size())
                    into.packed.reserve(std::max(
                        {2 * into.packed.capacity(), into.packed.size() + rows.size(), kCostChunk * rows.size()}));
                into.packed.insert(into.packed.end(), rows.begin(), rows.end());
            }
            into.children.push_back(std::move(c));
            into.decisions.push_back(std::move(d));
            into.parents.push_back(b.traceId);
        };
        if (rules.halideSteps) {
            for (StepChild &c : halideChildren[i])
                take(kept, std::nullopt, std::move(c.decided), c.retiled, c.rows, std::move(c.decision), c.passThrough);
            std::vector<StepChild>().swap(halideChildren[i]);
            if (kept.costed - kept.flushed >= kCostChunk)
                kept.costPending(cost);
            continue;
        }
        for (Child &c : generateChildren(b.materialized(), params, rules.perFunc, rng)) {
            const std::vector<ScheduleFeatures> features = computeFeatures(c.state, params.device);
            Generation &into = rejectionBeforeCosting(c.state, features).empty() ? kept : rejected;
            std::vector<float> rows;
            packFeatures(features, rows);
            take(into, std::move(c.state), std::nullopt, false, rows, std::move(c.decision), false);
        }
    }
    Generation &chosen = kept.children.empty() ? rejected : kept;
    chosen.costPending(cost);
    if (&chosen != &kept)
        spare = std::move(kept);
    return std::move(chosen);
}

// Halide's random dropout (AutoSchedule.cpp random_dropout): each state taken off the queue is
// skipped with the chance that leaves `percent` of the whole search's paths of `decisions` steps.
bool dropOut(int percent, int decisions, std::mt19937 &rng)
{
    if (percent >= 100)
        return false;
    const double keep = 100 * std::pow(percent / 100.0, 1.0 / decisions);
    return static_cast<double>(rng() % 100) >= keep;
}

// Halide's beam step: pop the cheapest; in coarse-to-fine passes a state pays a penalty (cost x n)
// for being the n-th popped with its hash at granularity pass + 1, and 10 more when its hash at
// granularity pass - 1 matched no ancestor of the good states of the passes before; a penalized
// state that is no longer the cheapest goes back into the queue. What is left in the queue stays
// there for the blessing of the pass's result. Beamscope's per-Func steps also skip exact
// duplicates (its children of different parents may coincide; Halide's never do).
template <typename Hash>
std::vector<Candidate *> chooseBeam(Queue &queue, size_t want, bool penalize, int pass,
                                    const std::unordered_set<uint64_t> &permitted, Hash &hash, bool skipDuplicates,
                                    const std::function<bool(size_t)> &dropped)
{
    std::unordered_map<uint64_t, int> seenAtFiner;
    std::unordered_set<uint64_t> exact;
    std::vector<Candidate *> picked;
    while (picked.size() < want && !queue.empty()) {
        Candidate *c = queue.top();
        queue.pop();
        if (penalize && !c->penalized) {
            int penalty = ++seenAtFiner[hash(*c, pass + 1)];
            if (pass > 0 && !permitted.count(hash(*c, pass - 1)))
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
        if (dropped(queue.size()))
            continue;
        if (skipDuplicates && !exact.insert(hash(*c, kExactGranularity)).second)
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

Json passThroughDetail(const SearchDag &dag, int node)
{
    Json j = Json::object();
    j["func"] = dag.node(node).name;
    j["pass_through"] = true;
    return j;
}

} // namespace

SearchResult BeamSearch::run(SearchTrace *trace, Progress *progress)
{
    const auto start = std::chrono::steady_clock::now();
    const FeaturizationTotals featurizedBefore = featurizationTotals();
    SearchPhases phases;
    SearchResult result;
    std::mt19937_64 rng(m_params.randomDropoutSeed);
    std::mt19937 dropoutRng(static_cast<uint32_t>(m_params.randomDropoutSeed));
    const std::vector<int> &order = m_dag.scheduleOrder();
    // Halide's steps unless a search option asks for what only the per-Func search models.
    const bool halideSteps = m_params.halideSteps && !m_params.randomizeTilings && !m_params.disableSubtiling;
    const int depthCount = halideSteps ? halideDecisionCount(m_dag) : static_cast<int>(order.size());
    const std::string pipelineName = trace ? trace->pipeline : std::string("the pipeline");
    const int threads = m_params.threads > 0 ? m_params.threads : defaultThreadCount();

    // Decisions fixed for every state: the start state's (strict), and after
    // the pre-pass the frozen inline / compute_root choices (dropped when not legal).
    std::vector<std::optional<FuncSchedule>> fixed(static_cast<size_t>(m_dag.nodeCount()));
    std::vector<bool> strict(static_cast<size_t>(m_dag.nodeCount()), false);
    const State startState = stateFromDecisions(m_dag, m_params.startDecisions, pipelineName);
    if (const std::string why = startState.legalityProblem(kMaxThreadsPerBlock, m_params.device.sharedMemoryLimitBytes,
                                                           m_params.device.activeWarpLimit);
        !why.empty())
        throw std::invalid_argument("start state: " + why);
    int startDepth = 0; // in the trace's depths: on Halide's steps, the decisions up to the last fixed one
    for (const FuncSchedule &f : startState.funcs()) {
        fixed[static_cast<size_t>(f.node)] = f;
        strict[static_cast<size_t>(f.node)] = true;
        startDepth = halideSteps ? 2 * (f.node + 1) - (f.awaitingGpuTiling ? 1 : 0) : startDepth + 1;
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
    const auto hash = [&](Candidate &c, int granularity) {
        if (!halideSteps)
            return coarseToFineHash(c.materialized(), granularity);
        if (granularity >= 0 && !c.nest)
            c.nest = std::make_shared<const LoopNestText>(c.materialized().halideLoopNestTree());
        return granularity < 0 ? static_cast<uint64_t>(c.decisions)
                               : halideStructuralHash(*c.nest, c.decisions, granularity);
    };
    // Halide drops states as it takes them off the queue (while more than one is left); the
    // per-Func search drops children as it generates them (search_space.h).
    const auto dropped = [&](size_t leftInQueue) {
        return halideSteps && leftInQueue > 1 && dropOut(m_params.randomDropout, depthCount, dropoutRng);
    };

    if (trace) {
        for (const dag::StageRef &r : m_dag.costStages())
            trace->stageNames.push_back(m_dag.dag().stage(r).name);
        trace->params = traceParams(m_params, totalPasses, prePass, startDepth, halideSteps);
    }

    RootTilingCandidates rootTilingCandidates(m_params.device.parallelism);
    StageFeatureMemo stageFeatureMemo;
    Generation spareGeneration; // the last depth's, its buffers reused by the next
    for (int run = 0; run < totalPasses && !result.cancelled; run++) {
        const int pass = prePass ? run - 1 : run; // -1: the pre-pass
        std::vector<Candidate> beam;
        beam.emplace_back();
        beam.back().state = State(m_dag);
        std::optional<Candidate> passBest;
        for (int depth = 0; depth < depthCount; depth++) {
            const int node = halideSteps ? halideStepNode(depth) : order[static_cast<size_t>(depth)];
            if (progress) {
                if (progress->cancelled()) {
                    result.cancelled = true;
                    break;
                }
                const std::string step =
                    halideSteps ? (halideStepPhase(depth) == 0 ? "placing " : "tiling ") : std::string("scheduling ");
                progress->report((run + double(depth) / depthCount) / totalPasses,
                                 (pass < 0 ? std::string("pre-pass") : "pass " + std::to_string(pass + 1)) + ", " +
                                     step + m_dag.node(node).name);
            }
            StepRules rules;
            rules.halideSteps = halideSteps;
            const FuncSchedule *fixedHere =
                fixed[static_cast<size_t>(node)] ? &*fixed[static_cast<size_t>(node)] : nullptr;
            const bool strictHere = strict[static_cast<size_t>(node)];
            rules.perFunc.maxTilings = static_cast<size_t>(std::max(1, m_params.maxChildrenPerDecision));
            rules.perFunc.maxRootTilings = static_cast<size_t>(std::max(0, m_params.maxRootTilings));
            // The pre-pass (-1) groups randomized tilings by the decision count only, as Halide.
            rules.perFunc.pass = pass;
            rules.perFunc.prePass = pass < 0;
            rules.perFunc.fixed = fixedHere;
            rules.perFunc.fixedIsStrict = strictHere;
            rules.halide.prePass = pass < 0;
            rules.halide.maxRootTilings = rules.perFunc.maxRootTilings;
            rules.halide.describeDecisions = trace != nullptr;
            rules.halide.rootTilingCandidates = &rootTilingCandidates;
            stageFeatureMemo.clear();
            rules.halide.stageFeatureMemo = &stageFeatureMemo;
            // A fixed decision is taken at the Func's first step; its second has nothing left to decide.
            rules.halide.fixed = halideStepPhase(depth) == 0 ? fixedHere : nullptr;
            rules.halide.fixedIsStrict = strictHere;
            rules.fixedChildren = fixedHere && strictHere;

            // Halide blesses the ancestors of a pass's good states by their hash at the pass's
            // granularity; only coarse-to-fine passes before the last one need it.
            const bool blessing = coarseToFine && pass >= 0 && pass + 1 < mainPasses;
            const auto expandStarted = Clock::now();
            const double modelBefore = phases.model;
            Generation g = expandBeam(
                beam, m_params, rules, threads, rng,
                [&](Candidate &b) { return blessing ? hash(b, pass) : uint64_t{0}; },
                [&](std::span<const float> rows, size_t count, std::span<float> predictions) {
                    const auto modelStarted = Clock::now();
                    const int rowStages = static_cast<int>(rows.size() / (count * kScheduleFeatureCount));
                    m_model.evaluate(embedding(rowStages), rows, static_cast<int>(count), m_params.device.parallelism,
                                     predictions, {}, 0, threads);
                    phases.model += secondsSince(modelStarted);
                },
                spareGeneration);
            phases.expand += secondsSince(expandStarted) - (phases.model - modelBefore);
            const auto recordStarted = Clock::now();
            std::vector<Candidate> &children = g.children;
            if (children.empty()) {
                if (fixedHere && strictHere)
                    throw std::invalid_argument("start state: the decision for " + m_dag.node(node).name +
                                                " is not legal in " + pipelineName);
                const std::string step =
                    halideSteps ? (halideStepPhase(depth) == 0 ? "placing " : "tiling ") : std::string("scheduling ");
                result.failure = "the search stopped at depth " + std::to_string(depth) + " of " +
                                 std::to_string(depthCount) + (pass < 0 ? " (pre-pass)" : "") + ", " + step +
                                 m_dag.node(node).name + ": none of the " + std::to_string(beam.size()) +
                                 " state(s) in the beam has a legal choice for it" +
                                 emptyRegionNote(m_dag, beam.front().materialized(), node);
                break;
            }
            const std::vector<float> &predictions = g.costs;
            result.statesEvaluated += static_cast<int64_t>(g.costed);
            result.statesAdded += static_cast<int64_t>(children.size());
            for (size_t i = 0; i < children.size(); i++) {
                Candidate &c = children[i];
                if (!c.passThrough) {
                    const float p = predictions[c.order];
                    c.cost = std::isfinite(p) ? p : std::numeric_limits<double>::max();
                    c.rank = c.cost;
                }
                if (trace) {
                    TraceNode n;
                    n.parent = g.parents[i];
                    n.pass = run;
                    n.depth = c.decisions;
                    n.decision = g.decisions[i].text;
                    n.detail = c.passThrough ? passThroughDetail(m_dag, g.decisions[i].node)
                                             : g.decisions[i].toJson(m_dag, c.scheduleOf(g.decisions[i].node));
                    n.cost = c.cost;
                    n.fixed = c.fixed;
                    n.passThrough = c.passThrough;
                    c.traceId = trace->add(std::move(n));
                }
            }

            phases.record += secondsSince(recordStarted);
            const auto selectStarted = Clock::now();
            const bool last = depth + 1 == depthCount;
            std::vector<Candidate *> inGenerationOrder;
            for (Candidate &c : children)
                inGenerationOrder.push_back(&c);
            Queue queue(std::move(inGenerationOrder));
            std::vector<Candidate *> picked =
                chooseBeam(queue, last ? 1 : static_cast<size_t>(m_params.beamSize), coarseToFine && pass >= 0, pass,
                           permitted, hash, !halideSteps, dropped);
            if (last && !picked.empty()) {
                picked = blessed(picked.front(), queue, static_cast<size_t>(m_params.beamSize));
                if (coarseToFine && pass >= 0 && pass + 1 < mainPasses)
                    for (Candidate *b : picked) {
                        permitted.insert(hash(*b, pass));
                        for (const Lineage *l = b->lineage.get(); l; l = l->parent.get())
                            permitted.insert(l->blessingHash);
                    }
            }
            std::vector<Candidate> next;
            for (Candidate *c : picked) {
                c->materialized(); // its parent, in the beam being replaced, goes
                c->parentState = nullptr;
                next.push_back(std::move(*c));
            }
            // At the last depth the beam is the pass's result (the rest were only blessed).
            if (trace)
                for (size_t i = 0; i < (last ? std::min<size_t>(1, next.size()) : next.size()); i++)
                    recordExpanded(*trace, next[i].traceId, next[i].passThrough, *next[i].state);
            beam = std::move(next);
            if (last && !beam.empty())
                passBest = beam.front();
            spareGeneration = std::move(g);
            phases.select += secondsSince(selectStarted);
        }
        if (result.cancelled || !passBest || !passBest->state->complete())
            continue;
        if (pass < 0) {
            result.prePassCost = passBest->cost;
            result.frozen = freezeLowestCostStages(*passBest->state, fixed);
            if (trace)
                trace->params.frozen = result.frozen;
            continue;
        }
        // Halide keeps whichever pass found the cheapest state (not necessarily the last).
        result.passCosts.push_back(passBest->cost);
        if (passBest->cost < bestCost) {
            bestCost = passBest->cost;
            result.best = *passBest->state;
            bestTraceId = passBest->traceId;
        }
    }
    if (result.best)
        result.failure.clear(); // a later pass found what an earlier one did not
    if (result.best) {
        result.cost = evaluate(*result.best, &result.stageCosts);
        result.features = computeFeatures(*result.best, m_params.device);
    }
    result.searchSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const FeaturizationTotals featurizedAfter = featurizationTotals();
    phases.featurizations = featurizedAfter.calls - featurizedBefore.calls;
    phases.featurizeThreadSeconds = featurizedAfter.threadSeconds - featurizedBefore.threadSeconds;
    result.phases = phases;
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

void BeamSearch::recordExpanded(SearchTrace &trace, int64_t traceId, bool passThrough, const State &state) const
{
    TraceNode *n = traceId >= 0 ? trace.find(traceId) : nullptr;
    if (!n)
        return;
    n->inBeam = true;
    if (passThrough) {
        // The same state as its parent: the explorer shows the parent's rows, costs and nest.
        if (const TraceNode *p = trace.find(n->parent)) {
            n->features = p->features;
            n->stageCosts = p->stageCosts;
            n->loopNest = p->loopNest;
        }
        return;
    }
    // The rows this state was costed with (a whole featurization gives a child's very features).
    std::vector<float> rows;
    packFeatures(computeFeatures(state, m_params.device), rows);
    const int stages = static_cast<int>(rows.size() / kScheduleFeatureCount);
    for (int st = 0; st < stages; st++) {
        std::array<float, 73> row{};
        std::copy_n(rows.begin() + static_cast<std::ptrdiff_t>(st) * kScheduleFeatureCount, row.size(), row.begin());
        n->features.push_back(row);
    }
    evaluatePacked(rows, stages, &n->stageCosts);
    n->loopNest = state.dump();
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
