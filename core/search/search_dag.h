#pragma once
// What the search needs of a FunctionDAG, precomputed once per pipeline: every
// symbolic bound compiled for fast evaluation, the regions each Func has when
// computed at root, which scalar widths a stage vectorizes at, and a stage
// index for the cost model's stage axis.
//
// Every per-Func table is read through a checked index: a node, stage, loop or
// edge out of range (or a region with the wrong number of dimensions) is an
// internal error, a std::logic_error naming the Func, the stage and the index,
// never a read past the end. A zero-dimensional Func (f() = ...) has no loops at
// all, so code that wants the storage dim of a stage's vector loop asks
// vectorDim(), which knows that case, rather than loopDim().

#include "core/dag/constant_extents.h"
#include "core/dag/function_dag.h"
#include "core/search/compiled_expr.h"
#include "core/util/small_vector.h"

#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace beamscope::search {

using dag::Span;
// Up to six dimensions inline (Halide's apps have at most five); more go to the heap.
using Region = SmallVector<Span, 6>;

// The points of a region (the product of its extents; 1 for a region without dimensions).
inline int64_t volume(const Region &r)
{
    int64_t v = 1;
    for (const Span &s : r)
        v *= s.extent();
    return v;
}

class SearchDag {
public:
    explicit SearchDag(const dag::FunctionDAG &dag);

    const dag::FunctionDAG &dag() const { return m_dag; }
    int nodeCount() const { return static_cast<int>(m_dag.nodes.size()); }
    const dag::Node &node(int n) const { return m_dag.nodes[nodeAt(n, "node")]; }
    const dag::Stage &stage(int node, int stage) const { return m_dag.stage(dag::StageRef{node, stage}); }
    const dag::Edge &edge(int e) const { return m_dag.edges[edgeAt(e, "edge")]; }

    Region requiredToComputed(int node, const Region &required) const;
    Region loopBounds(int node, int stage, const Region &computed) const;
    Region producerRegion(int edge, const Region &consumerLoops) const;

    // Regions when every Func is computed at root over the output estimates.
    const Region &rootRequired(int node) const { return m_rootRequired[nodeAt(node, "rootRequired")]; }
    const Region &rootComputed(int node) const { return m_rootComputed[nodeAt(node, "rootComputed")]; }
    const Region &rootLoops(int node, int stage) const
    {
        return m_rootLoops[nodeAt(node, "rootLoops")][stageAt(node, stage, "rootLoops")];
    }

    // The Func's name as a fresh Halide process prints it in a loop-nest dump: Halide numbers a
    // repeated name in the order the Funcs were made ("transpose", "transpose$1", ...), counting
    // every pipeline built before in the same process, and a fresh process has built only this one.
    const std::string &dumpName(int node) const { return m_dumpNames[nodeAt(node, "dumpName")]; }

    // Which extents are compile-time constants (dag/constant_extents.h): Halide's dumps mark them 'c'.
    const dag::ExtentConstancy &constancy() const { return m_constancy; }

    // The number of loops of a stage: 0 for a zero-dimensional Func (Halide's
    // FunctionDAG gives it none, its only loop being the synthetic __outermost).
    int loopCount(int node, int stage) const
    {
        return static_cast<int>(m_loopDim[nodeAt(node, "loopCount")][stageAt(node, stage, "loopCount")].size());
    }
    // The storage dimension a stage loop iterates (-1 for reduction loops and
    // loops over expressions).
    int loopDim(int node, int stage, int loop) const
    {
        const std::vector<int> &dims = m_loopDim[nodeAt(node, "loopDim")][stageAt(node, stage, "loopDim")];
        if (loop < 0 || static_cast<size_t>(loop) >= dims.size())
            badLoop("loopDim", node, stage, loop);
        return dims[static_cast<size_t>(loop)];
    }
    // Halide's vector_dim for a stage vectorized over `loop`: the storage dim that
    // loop iterates, 0 (the default innermost storage dim) when it is a reduction
    // loop, and 0 for a stage without loops, where Halide vectorizes nothing and
    // keeps vector_dim 0 (SearchSpace offers dim 0 when a Func has no dim to pick).
    int vectorDim(int node, int stage, int loop) const
    {
        if (loopCount(node, stage) == 0)
            return 0;
        const int dim = loopDim(node, stage, loop);
        return dim < 0 ? 0 : dim;
    }
    // Native vector width (lanes) of a stage's widest type on the x86-64 host
    // part of the target, as Halide's stage vector_size.
    int vectorSize(int node) const { return m_vectorSize[nodeAt(node, "vectorSize")]; }
    // Store Jacobian of a stage: storage dim d as a function of loop j
    // (identity for pure definitions; unknown where an update writes an expression).
    const std::vector<std::vector<dag::JacobianEntry>> &storeJacobian(int node, int stage) const
    {
        return m_storeJacobian[nodeAt(node, "storeJacobian")][stageAt(node, stage, "storeJacobian")];
    }

    // The cost-model stage axis: slot of (node, stage), -1 for inputs.
    int stageSlot(int node, int stage) const
    {
        return m_stageSlot[nodeAt(node, "stageSlot")][stageAt(node, stage, "stageSlot")];
    }
    const std::vector<dag::StageRef> &costStages() const { return m_costStages; }
    // Non-input nodes in scheduling order (outputs first, each after all its consumers).
    const std::vector<int> &scheduleOrder() const { return m_scheduleOrder; }
    // Pipeline features [S][40][7] in cost-model order.
    const std::vector<float> &pipelineFeatures() const { return m_pipelineFeatures; }
    // Costs the search with other pipeline features of the same stages: another featurizer's
    // (Halide's own .featurization, where a newer Halide lowers an expression otherwise than
    // Halide 14), to tell their effect apart. Throws std::invalid_argument on a size mismatch.
    void replacePipelineFeatures(std::vector<float> features);

    // Whether a stage reads `producer`, directly or through other Funcs.
    bool stageReads(int node, int stage, int producer) const
    {
        return m_stageReads[nodeAt(node, "stageReads")][stageAt(node, stage, "stageReads")]
                           [nodeAt(producer, "stageReads")] != 0;
    }

    // Whether any stage of `node` reads `producer`, directly or through other Funcs.
    bool nodeReads(int node, int producer) const
    {
        return m_nodeReads[nodeAt(node, "nodeReads")][nodeAt(producer, "nodeReads")] != 0;
    }

    // Nodes that read node n directly (deduplicated, in edge order).
    const std::vector<int> &consumers(int node) const { return m_consumers[nodeAt(node, "consumers")]; }

    // Halide's expr_branching of a Func's definition with a set of Funcs inlined
    // into it, named by `key`; computed by `compute` the first time a key is
    // asked for. The memo belongs to the DAG (every state of the pipeline shares
    // it) and is safe to use from several threads at once: a search featurizing
    // children in parallel, or the explorer emitting a state while one runs.
    template <typename Compute>
    int branching(const std::string &key, Compute &&compute) const
    {
        {
            std::shared_lock lock(m_branchingMutex);
            if (auto it = m_branching.find(key); it != m_branching.end())
                return it->second;
        }
        const int value = compute(); // outside the lock: it walks the definition's Exprs
        std::unique_lock lock(m_branchingMutex);
        return m_branching.try_emplace(key, value).first->second;
    }

private:
    mutable std::shared_mutex m_branchingMutex;
    mutable std::unordered_map<std::string, int> m_branching;

    // The checked indexes (inline: the featurizer reads these tables per loop); `table`
    // names the accessor in the error.
    size_t nodeAt(int node, const char *table) const
    {
        if (node < 0 || node >= nodeCount())
            badNode(table, node);
        return static_cast<size_t>(node);
    }
    size_t stageAt(int node, int stage, const char *table) const
    {
        if (stage < 0 || static_cast<size_t>(stage) >= m_dag.nodes[nodeAt(node, table)].stages.size())
            badStage(table, node, stage);
        return static_cast<size_t>(stage);
    }
    size_t edgeAt(int edge, const char *table) const
    {
        if (edge < 0 || static_cast<size_t>(edge) >= m_dag.edges.size())
            badEdge(table, edge);
        return static_cast<size_t>(edge);
    }
    // Packs a region of `node` into the (min, max) slots its compiled bounds read,
    // checking its dimension count; the packed part of `slots`.
    std::span<const int64_t> regionSlots(int node, const Region &region, const char *table,
                                         std::span<int64_t> slots) const;
    [[noreturn]] void badNode(const char *table, int node) const;
    [[noreturn]] void badStage(const char *table, int node, int stage) const;
    [[noreturn]] void badLoop(const char *table, int node, int stage, int loop) const;
    [[noreturn]] void badEdge(const char *table, int edge) const;
    [[noreturn]] void badRegion(const char *table, int node, size_t given, size_t expected, const char *what) const;

    const dag::FunctionDAG &m_dag;
    std::vector<std::vector<CompiledExpr>> m_computedMin, m_computedMax;      // [node][dim]
    std::vector<std::vector<std::vector<CompiledExpr>>> m_loopMin, m_loopMax; // [node][stage][loop]
    std::vector<std::vector<CompiledExpr>> m_edgeMin, m_edgeMax;              // [edge][producer dim]
    std::vector<Region> m_rootRequired, m_rootComputed;
    std::vector<std::vector<Region>> m_rootLoops;
    dag::ExtentConstancy m_constancy;
    std::vector<std::vector<std::vector<int>>> m_loopDim;
    std::vector<std::vector<std::vector<std::vector<dag::JacobianEntry>>>> m_storeJacobian;
    std::vector<int> m_vectorSize;
    std::vector<std::vector<int>> m_stageSlot;
    std::vector<dag::StageRef> m_costStages;
    std::vector<int> m_scheduleOrder;
    std::vector<float> m_pipelineFeatures;
    std::vector<std::string> m_dumpNames;
    std::vector<std::vector<int>> m_consumers;
    std::vector<std::vector<std::vector<char>>> m_stageReads; // [node][stage][producer node]
    std::vector<std::vector<char>> m_nodeReads;               // [node][producer node]
};

} // namespace beamscope::search
