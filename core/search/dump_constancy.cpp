#include "core/search/dump_constancy.h"

namespace beamscope::search {

dag::ExtentFlags DumpConstancy::orPure(dag::ExtentFlags flags, int node, int stage) const
{
    const std::vector<dag::Loop> &loops = m_dag.stage(node, stage).loop;
    for (size_t i = 0; i < flags.size() && i < loops.size(); i++)
        flags[i] = flags[i] || loops[i].pure;
    return flags;
}

dag::ExtentFlags DumpConstancy::own(const LoopLevel &at)
{
    const FuncSchedule *f = m_state.scheduleOf(at.node);
    const size_t loops = m_dag.stage(at.node, at.stage).loop.size();
    if (!f || at.level >= 3 || f->location == ComputeLocation::ThreadLevel)
        return dag::ExtentFlags(loops, true);
    if (f->location == ComputeLocation::Root)
        return orPure(m_dag.constancy().rootLoops(at.node, at.stage), at.node, at.stage);
    return orPure(threadLoop(*f, at.stage), at.node, at.stage); // a block-level Func at its thread loop
}

const DumpConstancy::Bounds &DumpConstancy::boundsAt(int node, const LoopLevel &at)
{
    const auto key = std::make_tuple(node, at.node, at.stage, at.level);
    if (const auto it = m_memo.find(key); it != m_memo.end())
        return it->second;
    const dag::Node &n = m_dag.node(node);
    dag::ExtentFlags required(static_cast<size_t>(n.func.dimensions()), true);
    for (int e : n.outgoingEdges) {
        const dag::Edge &edge = m_dag.edge(e);
        const bool self = edge.consumerNode == at.node && edge.consumerStage == at.stage;
        if (!self && !m_dag.stageReads(at.node, at.stage, edge.consumerNode))
            continue; // a consumer outside this loop's stage
        const dag::ExtentFlags consumerLoops =
            self ? own(at) : boundsAt(edge.consumerNode, at).loops[static_cast<size_t>(edge.consumerStage)];
        const dag::ExtentFlags fp = m_dag.constancy().footprint(e, consumerLoops);
        for (size_t d = 0; d < required.size() && d < fp.size(); d++)
            required[d] = required[d] && fp[d];
    }
    Bounds b;
    b.computed = m_dag.constancy().computed(node, required);
    for (const dag::Stage &s : n.stages)
        b.loops.push_back(m_dag.constancy().loops(node, s.index, b.computed));
    return m_memo.emplace(key, std::move(b)).first->second;
}

dag::ExtentFlags DumpConstancy::realizedAt(int node, const LoopLevel &at) { return boundsAt(node, at).computed; }

dag::ExtentFlags DumpConstancy::threadLoop(const FuncSchedule &f, int stage)
{
    if (f.location == ComputeLocation::Root)
        return orPure(m_dag.constancy().rootLoops(f.node, stage), f.node, stage);
    // A block-level Func's thread line: its loops at its consumer's block loop.
    return boundsAt(f.node, LoopLevel{f.consumer, f.consumerStage, 1}).loops[static_cast<size_t>(stage)];
}

dag::ExtentFlags DumpConstancy::serialLoop(const FuncSchedule &f, int stage)
{
    if (f.location == ComputeLocation::ThreadLevel)
        return boundsAt(f.node, LoopLevel{f.consumer, f.consumerStage, f.insideSerialLoop ? 3 : 2})
            .loops[static_cast<size_t>(stage)];
    return orPure(threadLoop(f, stage), f.node, stage);
}

} // namespace beamscope::search
