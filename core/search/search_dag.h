#pragma once
// What the search needs of a FunctionDAG, precomputed once per pipeline: every
// symbolic bound compiled for fast evaluation, the regions each Func has when
// computed at root, which scalar widths a stage vectorizes at, and a stage
// index for the cost model's stage axis.

#include "core/dag/function_dag.h"
#include "core/search/compiled_expr.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace beamscope::search {

using dag::Span;
using Region = std::vector<Span>;

class SearchDag {
public:
    explicit SearchDag(const dag::FunctionDAG &dag);

    const dag::FunctionDAG &dag() const { return m_dag; }
    int nodeCount() const { return static_cast<int>(m_dag.nodes.size()); }
    const dag::Node &node(int n) const { return m_dag.nodes[static_cast<size_t>(n)]; }
    const dag::Edge &edge(int e) const { return m_dag.edges[static_cast<size_t>(e)]; }

    Region requiredToComputed(int node, const Region &required) const;
    Region loopBounds(int node, int stage, const Region &computed) const;
    Region producerRegion(int edge, const Region &consumerLoops) const;

    // Regions when every Func is computed at root over the output estimates.
    const Region &rootRequired(int node) const { return m_rootRequired[static_cast<size_t>(node)]; }
    const Region &rootComputed(int node) const { return m_rootComputed[static_cast<size_t>(node)]; }
    const Region &rootLoops(int node, int stage) const { return m_rootLoops[static_cast<size_t>(node)][static_cast<size_t>(stage)]; }

    // The storage dimension a stage loop iterates (-1 for reduction loops and
    // loops over expressions), and the loop of a stage over storage dim d.
    int loopDim(int node, int stage, int loop) const { return m_loopDim[static_cast<size_t>(node)][static_cast<size_t>(stage)][static_cast<size_t>(loop)]; }
    // Native vector width (lanes) of a stage's widest type on the x86-64 host
    // part of the target, as Halide's stage vector_size.
    int vectorSize(int node) const { return m_vectorSize[static_cast<size_t>(node)]; }
    // Store Jacobian of a stage: storage dim d as a function of loop j
    // (identity for pure definitions; unknown where an update writes an expression).
    const std::vector<std::vector<dag::JacobianEntry>> &storeJacobian(int node, int stage) const {
        return m_storeJacobian[static_cast<size_t>(node)][static_cast<size_t>(stage)];
    }

    // The cost-model stage axis: slot of (node, stage), -1 for inputs.
    int stageSlot(int node, int stage) const { return m_stageSlot[static_cast<size_t>(node)][static_cast<size_t>(stage)]; }
    const std::vector<dag::StageRef> &costStages() const { return m_costStages; }
    // Non-input nodes in scheduling order (outputs first, each after all its consumers).
    const std::vector<int> &scheduleOrder() const { return m_scheduleOrder; }
    // Pipeline features [S][40][7] in cost-model order.
    const std::vector<float> &pipelineFeatures() const { return m_pipelineFeatures; }

    // Nodes that read node n directly (deduplicated, in edge order).
    const std::vector<int> &consumers(int node) const { return m_consumers[static_cast<size_t>(node)]; }

    // Memo of expr_branching per (stage, set of inlined Funcs); single-threaded use.
    mutable std::unordered_map<std::string, int> branchingCache;

private:
    const dag::FunctionDAG &m_dag;
    std::vector<std::vector<CompiledExpr>> m_computedMin, m_computedMax;            // [node][dim]
    std::vector<std::vector<std::vector<CompiledExpr>>> m_loopMin, m_loopMax;      // [node][stage][loop]
    std::vector<std::vector<CompiledExpr>> m_edgeMin, m_edgeMax;                    // [edge][producer dim]
    std::vector<Region> m_rootRequired, m_rootComputed;
    std::vector<std::vector<Region>> m_rootLoops;
    std::vector<std::vector<std::vector<int>>> m_loopDim;
    std::vector<std::vector<std::vector<std::vector<dag::JacobianEntry>>>> m_storeJacobian;
    std::vector<int> m_vectorSize;
    std::vector<std::vector<int>> m_stageSlot;
    std::vector<dag::StageRef> m_costStages;
    std::vector<int> m_scheduleOrder;
    std::vector<float> m_pipelineFeatures;
    std::vector<std::vector<int>> m_consumers;
};

} // namespace beamscope::search
