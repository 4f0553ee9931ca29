#include "core/search/halide_placements.h"

#include "core/search/thread_info.h"

namespace beamscope::search {

namespace {

// Halide's State::calculate_cost drops a child before costing it when its kernels break the
// device limits (thread counts, shared memory); the same checks Beamscope's search makes.
bool passesCostStepChecks(const State &s, const AutoscheduleParams &params)
{
    return s.legalityProblem(kMaxThreadsPerBlock, params.device.sharedMemoryLimitBytes, params.device.activeWarpLimit)
        .empty();
}

// The pure dimension Halide vectorizes a Func over (SearchSpace's vector_dims without a partial
// schedule): the first dimension the root computes at least 16 points of, else dimension 0; an
// output always dimension 0, since its storage layout is not Halide's to choose.
int vectorDimension(const SearchDag &d, int node)
{
    const dag::Node &n = d.node(node);
    if (n.isOutput)
        return 0;
    const Region &computed = d.rootComputed(node);
    for (size_t v = 0; v < computed.size(); v++)
        if (computed[v].extent() >= 16)
            return static_cast<int>(v);
    return 0;
}

// The loop of `stage` that iterates pure dimension `dim` (Halide's vectorized_loop_index), -1
// when none does (an update stage over reduction loops only).
int loopOverDimension(const SearchDag &d, int node, int stage, int dim)
{
    for (int l = 0; l < d.loopCount(node, stage); l++)
        if (d.loopDim(node, stage, l) == dim)
            return l;
    return -1;
}

FuncSchedule inlined(int node)
{
    FuncSchedule f;
    f.node = node;
    f.location = ComputeLocation::Inlined;
    return f;
}

// Computed at root with every stage one untiled loop nest (Halide's compute_here at the root, its
// loops labelled gpu_none until phase 1 tiles them).
FuncSchedule untiledAtRoot(const SearchDag &d, int node, int vectorDim)
{
    FuncSchedule f;
    f.node = node;
    f.location = ComputeLocation::Root;
    f.awaitingGpuTiling = true;
    for (size_t s = 0; s < d.node(node).stages.size(); s++) {
        const int stage = static_cast<int>(s);
        const auto loops = static_cast<size_t>(d.loopCount(node, stage));
        StageTiling t;
        t.threads.assign(loops, 1);
        t.serial.assign(loops, 1);
        const int v = loopOverDimension(d, node, stage, vectorDim);
        t.vectorLoop = std::max(0, v);
        t.hasVectorLoop = v >= 0;
        f.stages.push_back(std::move(t));
    }
    return f;
}

State with(const State &parent, FuncSchedule f)
{
    State s = parent;
    s.add(std::move(f));
    return s;
}

// Halide skips the rest of the search space for a pointwise Func it could inline whose only
// consumer edge is its single use: inlining is then always right (SearchSpace's must_inline
// pruning of pointwise chains, which in v19 returns whatever the producers and consumers are).
bool inliningSettlesIt(const dag::Node &n, bool inlinedChildMade)
{
    return n.isPointwise && inlinedChildMade && n.outgoingEdges.size() == 1;
}

} // namespace

std::vector<State> halidePlacements(const State &parent, const AutoscheduleParams &params)
{
    std::vector<State> out;
    const int node = parent.nextNode();
    if (node < 0)
        return out;
    const SearchDag &d = parent.dag();
    const dag::Node &n = d.node(node);

    // 1) Inline it: a single-stage Func that is not an output.
    bool inlinedChildMade = false;
    if (params.options.inlineFuncs && n.stages.size() == 1 && !n.isOutput) {
        State s = with(parent, inlined(node));
        if (passesCostStepChecks(s, params)) {
            out.push_back(std::move(s));
            inlinedChildMade = true;
        }
    }
    if (inliningSettlesIt(n, inlinedChildMade))
        return out;

    // 2) Realize it: at root first (compute_in_tiles places it in the root loop before descending).
    const int vectorDim = vectorDimension(d, node);
    if (params.options.computeRoot || n.isOutput) {
        State s = with(parent, untiledAtRoot(d, node, vectorDim));
        if (passesCostStepChecks(s, params))
            out.push_back(std::move(s));
    }
    return out;
}

} // namespace beamscope::search
