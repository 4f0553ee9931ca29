// A scheduled stage's GPU memory features: global, shared and register
// loads and stores per block or thread and their efficiencies.
#include "core/search/featurizer_internal.h"

namespace beamscope::search::featurizing {

// Whether every loop of the stage has a compile-time constant extent where Halide's unrolled_loops
// looks (the loop just outside the innermost). For root and block-level Funcs that is a loop out
// of a split, constant for pure loops; for a thread-level Func it is its own serial loop, whose
// extent is its region per thread, not constant where a clamp or a select decides it (lens_blur's
// f54 reads channel min(c, 3) .. 3): the flags its dump prints (dump_constancy.h).
bool Featurizer::loopsHaveConstantExtent(const StageCtx &c) const
{
    if (c.f->location != ComputeLocation::ThreadLevel)
        return true;
    const dag::ExtentFlags flags = dumpConstancy.serialLoop(*c.f, c.stage);
    return std::all_of(flags.begin(), flags.end(), [](bool constant) { return constant; });
}

// The region of `node` required at its store site (Halide's store_bounds): at
// root for inputs, root and unscheduled Funcs, per block for block-level Funcs.
SmallVector<int64_t, 6> Featurizer::storeSiteExtents(int node) const
{
    const FuncSchedule *f = st.scheduleOf(node);
    Region r;
    if (f && f->location != ComputeLocation::Root && f->location != ComputeLocation::Inlined && !f->storedAtRoot)
        r = st.requiredAt(node, f->consumer, f->consumerStage, f->location == ComputeLocation::BlockLevel ? 1 : 2,
                          &requiredAtMemo);
    if (r.empty())
        r = d.rootRequired(node);
    SmallVector<int64_t, 6> out;
    for (const Span &s : r)
        out.push_back(s.extent());
    return out;
}

// Halide's points_accessed_per_thread: loads a thread issues along one edge
// chain, either the producer region one unrolled block of the serial loops
// reads times the other non-invariant serial extents, or (when smaller) the
// call count times every non-invariant serial extent, with shared loads along
// a unit-stride loop merged into vectors.
int64_t Featurizer::pointsAccessedPerThread(const StageCtx &c, const ScheduleFeatures &feat, std::span<const int> chain,
                                            const RationalJacobian &thread, const RationalJacobian &serial,
                                            bool scheduled, int innermostDim, MemoryType memory) const
{
    const StageTiling &t = *c.t;
    const dag::Stage &stage = d.stage(c.node, c.stage);
    const bool unrolled = feat[Feature::UnrolledLoopExtent] > 1;
    int64_t nonInvariant = 1, nonInvariantRolled = 1;
    // Halide's tile sits inside its representative thread (the middle block's middle thread), which
    // matters where a clamp or a select makes the region depend on the position.
    const Region threadLoops = st.stageLoopsAt(c.node, c.stage, 2);
    Region box(c.loops.size());
    for (size_t j = 0; j < c.loops.size(); j++) {
        int64_t extent = 1;
        if (j < t.serial.size() && !thread.columnIsZero(j)) {
            nonInvariant *= t.serial[j];
            if (stage.loop[j].pure && unrolled)
                extent = t.serial[j];
            else
                nonInvariantRolled *= t.serial[j];
        }
        // The middle tile of the thread's serial loop, as Halide's parallelize_in_tiles places it.
        const Span &serialSpan = j < threadLoops.size() ? threadLoops[j] : c.loops[j];
        const int64_t tiles = j < t.serial.size() ? ceilDiv(t.serial[j], extent) : 1;
        const int64_t min = serialSpan.min + (tiles / 2) * extent;
        box[j] = Span{min, min + extent - 1};
    }
    Region required;
    for (size_t k = 0; k < chain.size(); k++) {
        const dag::Edge &e = d.edge(chain[k]);
        if (k > 0) {
            const int through = d.edge(chain[k - 1]).producer;
            box = d.loopBounds(through, e.consumerStage, d.requiredToComputed(through, required));
        }
        required = d.producerRegion(chain[k], box);
    }
    int64_t points = 1;
    for (const Span &s : required)
        points *= s.extent();
    const int64_t byRegion = points * nonInvariantRolled;
    const int64_t byLoops = thread.count * nonInvariant;
    if (byLoops > byRegion)
        return byRegion * c.serialAroundRealization;
    int64_t result = byLoops;
    if (memory == MemoryType::Shared) {
        int vector = 1;
        const int producerDims = static_cast<int>(serial.rows);
        for (int dim = scheduled ? innermostDim : 0; dim < (scheduled ? innermostDim + 1 : producerDims); dim++)
            for (size_t j = 0; j < t.serial.size(); j++)
                if (vectorizableAlong(serial, dim, j))
                    vector = std::max(vector, vectorizedAccessSize(t.serial[j], d.node(c.node).bytesPerPoint));
        if (result % vector == 0)
            result /= vector;
    }
    // The loads of a Func realized inside a serial loop cannot be hoisted out of that loop.
    return result * c.serialAroundRealization;
}

// num_{global,shared}_mem_{loads,stores}_per_block and their efficiencies, as
// Anderson2021's compute_features computes them at a stage's innermost loop.
void Featurizer::memoryFeatures(const StageCtx &c, ScheduleFeatures &feat) const
{
    const FuncSchedule &f = *c.f;
    const StageTiling &t = *c.t;
    const dag::Node &n = d.node(c.node);
    const dag::Stage &stage = d.stage(c.node, c.stage);
    const size_t loops = stage.loop.size();
    if (loops == 0)
        return;
    const WarpLayout warps = makeWarpLayout(c.thread);
    // Thread dims x, y, z: the loops of this stage with the thread loops' variables.
    const dag::Stage &owner = d.stage(c.threadOwnerNode, c.threadOwnerStage);
    SmallVector<int, 3> threadLoops;
    for (int idx : c.thread.loopIndices) {
        int found = -1;
        if (idx >= 0 && static_cast<size_t>(idx) < owner.loop.size())
            for (size_t j = 0; j < loops; j++)
                if (stage.loop[j].var == owner.loop[static_cast<size_t>(idx)].var) {
                    found = static_cast<int>(j);
                    break;
                }
        threadLoops.push_back(found);
    }
    // Extents of this stage's loops inside one thread (the strides of the thread loops).
    SmallVector<int64_t, 8> innerSerial(loops, 1);
    const Region perThreadLoops = st.stageLoopsAt(c.node, c.stage, 2);
    for (size_t j = 0; j < loops; j++)
        innerSerial[j] = f.location == ComputeLocation::ThreadLevel ? perThreadLoops[j].extent()
                                                                    : (j < t.serial.size() ? t.serial[j] : 1);
    MemTotals globalLoads, sharedLoads;

    // Stores (register Funcs have none); an update's stores also count as loads.
    const MemoryType mine = f.featureMemory();
    const auto &storeJac = d.storeJacobian(c.node, c.stage);
    if (!storeJac.empty() && mine != MemoryType::Register) {
        const RationalJacobian jac = RationalJacobian::fromStore(storeJac, loops);
        const Region computed = st.computedRegion(c.node);
        int actualDim = c.funcVectorDim;
        if (!(static_cast<size_t>(actualDim) < computed.size() &&
              computed[static_cast<size_t>(actualDim)].extent() > 1))
            for (size_t i = 0; i < computed.size(); i++)
                if (computed[i].extent() > 1) {
                    actualDim = static_cast<int>(i);
                    break;
                }
        double requests = double(c.threadSerialTotal);
        int vector = 1;
        for (size_t j = 0; j < loops && j < t.serial.size(); j++) {
            if (jac.columnIsZero(j))
                requests /= double(t.serial[j]);
            else if (mine == MemoryType::Shared && vectorizableAlong(jac, actualDim, j))
                vector = std::max(vector, vectorizedAccessSize(t.serial[j], n.bytesPerPoint));
        }
        requests /= vector;
        const MemKind kind = mine == MemoryType::Shared ? MemKind::Shared : MemKind::Global;
        const MemTotals stores = countAccesses(kind, jac.scaledColumns(innerSerial), c.funcVectorDim,
                                               storeSiteExtents(c.node), n.bytesPerPoint, warps, threadLoops, requests);
        if (kind == MemKind::Shared) {
            feat[Feature::NumSharedMemStoresPerBlock] = stores.transactions;
            feat[Feature::SharedMemStoreEfficiency] = stores.efficiency();
            if (c.stage > 0)
                sharedLoads.add(stores);
        } else {
            feat[Feature::NumGlobalMemStoresPerBlock] = stores.transactions;
            feat[Feature::GlobalMemStoreEfficiency] = stores.efficiency();
            if (c.stage > 0)
                globalLoads.add(stores);
        }
    }

    // Loads, looking through inlined Funcs. Like Halide, every Jacobian reaching a producer so far is
    // counted again for each edge into that producer (a Func read directly and through an inlined Func
    // counts its direct reads twice).
    struct Reach {
        RationalJacobian serial, thread;
        int producer;
    };
    std::vector<Reach> reach;
    struct Pending {
        int node, stage;
        SmallVector<int, 6> chain;
    };
    std::vector<Pending> pending{{c.node, c.stage, {}}};
    while (!pending.empty()) {
        const Pending p = std::move(pending.back());
        pending.pop_back();
        const dag::Stage &ps = d.stage(p.node, p.stage);
        for (int e : ps.incomingEdges) {
            const dag::Edge &edge = d.edge(e);
            SmallVector<int, 6> chain = p.chain;
            chain.push_back(e);
            if (p.node == c.node && p.stage == c.stage) {
                for (const dag::LoadJacobian &lj : edge.loadJacobians) {
                    RationalJacobian j = RationalJacobian::fromDag(lj, loops);
                    RationalJacobian scaled = j.scaledColumns(innerSerial);
                    reach.push_back(Reach{std::move(j), std::move(scaled), edge.producer});
                }
            } else {
                std::vector<Reach> next;
                for (Reach &r : reach) {
                    if (r.producer == edge.consumerNode)
                        for (const dag::LoadJacobian &lj : edge.loadJacobians) {
                            const RationalJacobian j2 = RationalJacobian::fromDag(lj, ps.loop.size());
                            next.push_back(Reach{j2 * r.serial, j2 * r.thread, edge.producer});
                        }
                    next.push_back(std::move(r));
                }
                reach.swap(next);
            }
            const FuncSchedule *pf = st.scheduleOf(edge.producer);
            if (pf && pf->location == ComputeLocation::Inlined) {
                pending.push_back(Pending{edge.producer, 0, std::move(chain)});
                continue;
            }
            const Site site = siteOf(edge.producer, c.node);
            if (site.memory == MemoryType::Register)
                continue;
            const dag::Node &pn = d.node(edge.producer);
            const bool scheduled = site.scheduled && (pn.isInput || pf != nullptr);
            const int innermost = pn.isInput ? 0 : (scheduled ? site.vectorDim : -1);
            const MemKind kind = site.memory == MemoryType::Shared ? MemKind::Shared : MemKind::Global;
            SmallVector<int64_t, 6> extents = storeSiteExtents(edge.producer);
            if (site.placedInKernel) {
                extents.clear();
                for (const Span &s : site.required)
                    extents.push_back(s.extent());
            }
            for (const Reach &r : reach) {
                if (r.producer != edge.producer)
                    continue;
                const int64_t points =
                    pointsAccessedPerThread(c, feat, chain, r.thread, r.serial, scheduled, innermost, site.memory);
                MemTotals loads;
                if (scheduled) {
                    loads = countAccesses(kind, r.thread, innermost, extents, pn.bytesPerPoint, warps, threadLoops,
                                          double(points));
                } else {
                    // Not laid out yet: Halide assumes the storage order that needs the fewest transactions.
                    int fewest = 0;
                    for (size_t dim = 0; dim < extents.size(); dim++) {
                        const MemTotals option = countAccesses(kind, r.thread, static_cast<int>(dim), extents,
                                                               pn.bytesPerPoint, warps, threadLoops, double(points));
                        if (dim == 0 || option.transactions < fewest) {
                            loads = option;
                            fewest = static_cast<int>(option.transactions);
                        }
                    }
                }
                (kind == MemKind::Shared ? sharedLoads : globalLoads).add(loads);
            }
        }
    }
    feat[Feature::NumGlobalMemLoadsPerBlock] = globalLoads.transactions;
    feat[Feature::GlobalMemLoadEfficiency] = globalLoads.efficiency();
    feat[Feature::NumSharedMemLoadsPerBlock] = sharedLoads.transactions;
    feat[Feature::SharedMemLoadEfficiency] = sharedLoads.efficiency();
}

} // namespace beamscope::search::featurizing
