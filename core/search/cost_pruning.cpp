#include "core/search/cost_pruning.h"

#include <algorithm>

namespace beamscope::search {

namespace {
// Far above kMaxInlinedCalls, far below int64 overflow when multiplied by an edge's calls.
constexpr int64_t kCallsCeiling = int64_t(1) << 40;

int64_t saturatingMulAdd(int64_t sum, int64_t a, int64_t b)
{
    const int64_t product = a > kCallsCeiling / std::max<int64_t>(1, b) ? kCallsCeiling : a * b;
    return std::min(kCallsCeiling, sum + product);
}
} // namespace

bool alwaysConsideredInline(const State &state, int node)
{
    const SearchDag &d = state.dag();
    const dag::Node &n = d.node(node);
    if (n.isOutput || n.stages.size() > 1)
        return false;
    if (n.trivialToInline)
        return true;
    if (!n.isPointwise)
        return false;
    const auto inlined = [&](int m) {
        const FuncSchedule *f = state.scheduleOf(m);
        return f && f->location == ComputeLocation::Inlined;
    };
    std::vector<char> done(static_cast<size_t>(d.nodeCount()));
    std::vector<int> pending{node}, ownLoopNest;
    while (!pending.empty()) {
        const int m = pending.back();
        pending.pop_back();
        if (done[static_cast<size_t>(m)])
            continue;
        done[static_cast<size_t>(m)] = 1;
        for (int e : d.node(m).outgoingEdges) {
            const int consumer = d.edge(e).consumerNode;
            if (inlined(consumer))
                pending.push_back(consumer);
            else if (std::find(ownLoopNest.begin(), ownLoopNest.end(), consumer) == ownLoopNest.end())
                ownLoopNest.push_back(consumer);
        }
    }
    return ownLoopNest.size() == 1;
}

int64_t maxInlinedCalls(const State &state)
{
    const SearchDag &d = state.dag();
    const size_t nodes = static_cast<size_t>(d.nodeCount());
    // Called on every child the search generates: its scratch stays with the thread.
    thread_local std::vector<char> inlined, known;
    thread_local std::vector<int64_t> memo;
    inlined.assign(nodes, 0);
    known.resize(nodes);
    memo.resize(nodes);
    bool anyInlined = false;
    for (const FuncSchedule &f : state.funcs())
        if (f.location == ComputeLocation::Inlined) {
            inlined[static_cast<size_t>(f.node)] = 1;
            anyInlined = true;
        }
    if (!anyInlined)
        return 0;
    int64_t result = 0;
    for (const FuncSchedule &consumer : state.funcs()) {
        if (consumer.location == ComputeLocation::Inlined)
            continue;
        const std::vector<dag::Stage> &stages = d.node(consumer.node).stages;
        for (size_t s = 0; s < stages.size(); s++) {
            // Every chain of inlined calls into this stage ends in an edge from an inlined Func, so
            // a stage no inlined Func calls directly is called by none (and most are not).
            const std::vector<int> &incoming = stages[s].incomingEdges;
            if (std::none_of(incoming.begin(), incoming.end(),
                             [&](int e) { return inlined[static_cast<size_t>(d.edge(e).producer)]; }))
                continue;
            // Calls per point of this stage to inlined Func f: direct calls plus,
            // through every inlined consumer g of f, calls(g) x calls of f per point of g.
            std::fill(known.begin(), known.end(), 0);
            const auto calls = [&](const auto &self, int f) -> int64_t {
                if (known[static_cast<size_t>(f)])
                    return memo[static_cast<size_t>(f)];
                int64_t total = 0;
                for (int e : d.node(f).outgoingEdges) {
                    const dag::Edge &edge = d.edge(e);
                    const int64_t perCall = std::max(1, edge.calls);
                    if (edge.consumerNode == consumer.node && edge.consumerStage == static_cast<int>(s))
                        total = std::min(kCallsCeiling, total + perCall);
                    else if (inlined[static_cast<size_t>(edge.consumerNode)])
                        total = saturatingMulAdd(total, self(self, edge.consumerNode), perCall);
                }
                known[static_cast<size_t>(f)] = 1;
                memo[static_cast<size_t>(f)] = total;
                return total;
            };
            for (const FuncSchedule &f : state.funcs())
                if (f.location == ComputeLocation::Inlined)
                    result = std::max(result, calls(calls, f.node));
        }
    }
    return result;
}

std::string rejectionBeforeCosting(const State &state, const std::vector<ScheduleFeatures> &features)
{
    const SearchDag &d = state.dag();
    for (size_t slot = 0; slot < features.size(); slot++) {
        const dag::StageRef &r = d.costStages()[slot];
        if (d.node(r.node).isWrapper || alwaysConsideredInline(state, r.node))
            continue;
        const ScheduleFeatures &f = features[slot];
        if (f[Feature::PointsComputedTotal] + f[Feature::InlinedCalls] >
            kMaxRecomputeFactor * f[Feature::PointsComputedMinimum])
            return d.node(r.node).name + ": computes more than " + std::to_string(int(kMaxRecomputeFactor)) +
                   "x its minimum points";
    }
    const int64_t calls = maxInlinedCalls(state);
    if (calls >= kMaxInlinedCalls)
        return std::to_string(calls) + " inlined calls per point (limit " + std::to_string(kMaxInlinedCalls) + ")";
    return {};
}

} // namespace beamscope::search
