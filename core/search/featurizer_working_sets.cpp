// The features of Funcs inlined into a stage, and every stage's working sets.
#include "core/search/featurizer_internal.h"

namespace beamscope::search::featurizing {

void Featurizer::inlinedFeatures()
{
    // Halide's loop-nest order: kernels in scheduling order, a Func's stages last update first,
    // each stage followed by the Funcs computed in its thread loop, then those in its block.
    // outer_parallelism and num_blocks of an inlined Func are the last consumer's.
    std::vector<std::pair<const FuncSchedule *, int>> order;
    std::function<void(const FuncSchedule &)> visit = [&](const FuncSchedule &f) {
        for (int s = static_cast<int>(f.stages.size()); s-- > 0;) {
            order.emplace_back(&f, s);
            for (ComputeLocation nested : {ComputeLocation::ThreadLevel, ComputeLocation::BlockLevel})
                for (const FuncSchedule &g : st.funcs())
                    if (g.location == nested && g.consumer == f.node && g.consumerStage == s)
                        visit(g);
        }
    };
    for (const FuncSchedule &f : st.funcs())
        if (f.location == ComputeLocation::Root)
            visit(f);
    // For every non-inlined stage, the Funcs inlined into it and their call counts
    // (multiplied along chains of inlined Funcs).
    for (const auto &[fp, stageIndex] : order) {
        const FuncSchedule &f = *fp;
        {
            const int s = stageIndex;
            ScheduleFeatures *consumer = featOf(f.node, s);
            if (!consumer)
                continue;
            const StageCtx &c = contexts[static_cast<size_t>(d.stageSlot(f.node, s))];
            // Calls per point of this stage to each inlined Func, summed over every path through
            // other inlined Funcs (Halide's inlined map: one entry per Func).
            std::vector<std::pair<int, int64_t>> inlinedCalls;
            struct Item {
                int node, stage;
                int64_t calls;
            };
            std::vector<Item> pending{{f.node, s, 1}};
            while (!pending.empty()) {
                const Item it = pending.back();
                pending.pop_back();
                for (int e : d.stage(it.node, it.stage).incomingEdges) {
                    const dag::Edge &edge = d.edge(e);
                    const FuncSchedule *pf = st.scheduleOf(edge.producer);
                    if (!pf || pf->location != ComputeLocation::Inlined)
                        continue;
                    const int64_t calls = it.calls * std::max(1, edge.calls);
                    auto known = std::find_if(inlinedCalls.begin(), inlinedCalls.end(),
                                              [&](const auto &p) { return p.first == edge.producer; });
                    if (known == inlinedCalls.end())
                        inlinedCalls.emplace_back(edge.producer, calls);
                    else
                        known->second += calls;
                    pending.push_back(Item{edge.producer, 0, calls});
                }
            }
            for (const auto &[producer, calls] : inlinedCalls) {
                // Halide's LoopNest::get_sites leaves an inlined Func's produce site at the last
                // innermost loop it is inlined into (children order, as here); that loop's
                // vector_dim is its consumer Func's.
                inlinedSiteVectorDim[producer] = c.funcVectorDim;
                ScheduleFeatures *in = featOf(producer, 0);
                if (!in)
                    continue;
                (*in)[Feature::InlinedCalls] += double(calls) * double(c.perProduction * c.instances);
                (*in)[Feature::NumScalars] += double(calls) * (*consumer)[Feature::NumScalars];
                const double ipe = (*consumer)[Feature::InnermostPureLoopExtent];
                double &mine = (*in)[Feature::InnermostPureLoopExtent];
                mine = mine > 0 ? std::min(mine, ipe) : ipe;
                (*in)[Feature::InnerParallelism] = 1;
                (*in)[Feature::OuterParallelism] = double(c.blocks);
                (*in)[Feature::NumBlocks] = double(c.blocks);
                (*in)[Feature::NumWarpsPerBlock] +=
                    double(calls) * double(c.threadSerialTotal) * c.thread.numWarpsPerBlock * double(c.blocks);
                (*in)[Feature::NumThreadsPerBlock] += double(c.thread.numThreads);
                (*in)[Feature::PointsComputedPerThread] += double(calls) * double(c.threadSerialTotal);
            }
        }
    }
}

namespace {

// How many store_at sets of Halide's loop nest hold a Func computed inside a kernel, each adding
// its production size to the working set of that loop and of every loop around it. Stored at
// root, a block-level Func is also in its block's set; a thread-level one in its block's and its
// thread's, and inside the serial loop in that loop's set as well.
int storeSitesBelowRoot(const FuncSchedule &g)
{
    if (g.location == ComputeLocation::BlockLevel)
        return 1;
    if (g.location != ComputeLocation::ThreadLevel)
        return 0;
    if (!g.storedAtRoot)
        return 1;
    return g.insideSerialLoop ? 3 : 2;
}

} // namespace

void Featurizer::workingSets()
{
    auto productionBytes = [&](const FuncSchedule &f) {
        double b = double(d.node(f.node).bytesPerPoint);
        for (const Span &s : st.computedRegion(f.node))
            b *= double(s.extent());
        return b;
    };
    // Root: Halide's tree walk adds each Func's production size once for every store_at set it is in.
    double rootSet = 0;
    for (const FuncSchedule &f : st.funcs())
        if (f.location != ComputeLocation::Inlined)
            rootSet += productionBytes(f) * double(std::max(1, storeSitesBelowRoot(f) + (f.storedAtRoot ? 1 : 0)));
    // Below the root, each store site adds the Func's production size to its loop's set and to the
    // set of every loop around it (all on the path to the loop the Func is computed in).
    std::map<std::array<int, 3>, double> loopSet; // (node, stage, level) -> bytes
    auto key = [](const LoopLevel &l) { return std::array<int, 3>{l.node, l.stage, l.level}; };
    auto setOf = [&](const LoopLevel &l) {
        const auto it = loopSet.find(key(l));
        return it == loopSet.end() ? 0.0 : it->second;
    };
    // The path to each Func computed inside a kernel, and where on it the thread loop it runs in is.
    std::vector<LoopPath> paths(st.funcs().size());
    std::vector<size_t> threadLoopAt(st.funcs().size(), 0);
    for (size_t k = 0; k < st.funcs().size(); k++) {
        const FuncSchedule &g = st.funcs()[k];
        if (storeSitesBelowRoot(g) == 0)
            continue;
        const LoopPath &path = paths[k] = st.realizationPath(g.node);
        if (g.location == ComputeLocation::ThreadLevel) {
            const auto [owner, ownerStage] = st.threadLoopOf(g.node);
            threadLoopAt[k] = static_cast<size_t>(std::find(path.begin(), path.end(), LoopLevel{owner, ownerStage, 2}) -
                                                  path.begin());
        }
        // Its sites on that path: the kernel's block (stored at root too, or block-level), its
        // thread loop, the serial loop it is computed in.
        std::vector<size_t> at;
        if (g.location == ComputeLocation::BlockLevel || g.storedAtRoot)
            at.push_back(0);
        if (g.location == ComputeLocation::ThreadLevel)
            at.push_back(threadLoopAt[k]);
        if (g.location == ComputeLocation::ThreadLevel && g.insideSerialLoop && g.storedAtRoot)
            at.push_back(path.size() - 1);
        const double b = productionBytes(g);
        for (size_t i = 0; i < path.size(); i++)
            loopSet[key(path[i])] +=
                b * double(std::count_if(at.begin(), at.end(), [&](size_t site) { return site >= i; }));
    }
    for (size_t k = 0; k < st.funcs().size(); k++) {
        const FuncSchedule &f = st.funcs()[k];
        if (f.location == ComputeLocation::Inlined)
            continue;
        for (size_t s = 0; s < f.stages.size(); s++) {
            ScheduleFeatures *ft = featOf(f.node, static_cast<int>(s));
            if (!ft)
                continue;
            const int stage = static_cast<int>(s);
            if (f.location == ComputeLocation::Root) {
                (*ft)[Feature::WorkingSet] = setOf({f.node, stage, 1});
                (*ft)[Feature::WorkingSetAtThread] = setOf({f.node, stage, 2});
                (*ft)[Feature::WorkingSetAtTask] = setOf({f.node, stage, 1});
                continue;
            }
            const LoopPath &path = paths[k];
            // Where it is produced: its block, its thread loop, or the serial loop it is computed in.
            const LoopLevel produced = f.location == ComputeLocation::BlockLevel ? path.front()
                                       : f.insideSerialLoop && f.storedAtRoot    ? path.back()
                                                                                 : path[threadLoopAt[k]];
            (*ft)[Feature::WorkingSetAtRealization] = setOf(produced);
            (*ft)[Feature::WorkingSetAtProduction] = setOf(produced);
            (*ft)[Feature::WorkingSetAtTask] = setOf(path.front());
            if (f.location == ComputeLocation::BlockLevel) {
                // The Funcs computed in its own thread loop.
                (*ft)[Feature::WorkingSet] = setOf({f.node, stage, 2});
                (*ft)[Feature::WorkingSetAtThread] = setOf({f.node, stage, 2});
            } else {
                // The Funcs computed in its serial loop.
                (*ft)[Feature::WorkingSet] = setOf({f.node, stage, 3});
            }
        }
    }
    for (ScheduleFeatures &ft : feats)
        ft[Feature::WorkingSetAtRoot] = rootSet;
    for (const FuncSchedule &f : st.funcs())
        if (f.location == ComputeLocation::Root || f.storedAtRoot)
            for (size_t s = 0; s < f.stages.size(); s++)
                if (ScheduleFeatures *ft = featOf(f.node, static_cast<int>(s))) {
                    (*ft)[Feature::WorkingSetAtRealization] = rootSet;
                    if (f.location == ComputeLocation::Root)
                        (*ft)[Feature::WorkingSetAtProduction] = rootSet;
                }
}

} // namespace beamscope::search::featurizing
