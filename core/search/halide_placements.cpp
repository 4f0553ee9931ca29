#include "core/search/halide_placements.h"

#include "core/search/cost_pruning.h"
#include "core/search/featurizer.h"
#include "core/search/halide_gpu_tilings.h"
#include "core/search/integer_math.h"
#include "core/search/thread_info.h"

#include <algorithm>
#include <optional>

namespace beamscope::search {

namespace {

using Extents = std::vector<int64_t>;

// Halide's GPU limits for a block's thread loops (are_valid_thread_extents).
constexpr int64_t kMaxThreadsInBlock = 1024;
constexpr size_t kMaxThreadDims = 3;
// Halide's stages do not vectorize on a GPU target (vector size 1, the dumps' "1v" innermost
// loops), so compute_in_tiles' vector-lane pruning never fires there; kept for the rule's sake.
constexpr int64_t kGpuVectorSize = 1;
// Halide stops offering tilings once one child was made and the rest leave over half a warp's
// lanes idle (SearchSpace::generate_children, max_idle_lane_wastage > 0.5).
constexpr double kMaxIdleLaneWastage = 0.5;

// ---- The state's loop nests, as Halide's compute_in_tiles walks them ----

// The loops that read the Func: the path from the root to the innermost loop of each stage reading
// it, looking through Funcs inlined into them (Halide's LoopNest::calls sees a call in an inlined
// Func as a call of the stage it is inlined into).
void collectReadingPaths(const State &s, int node, std::vector<LoopPath> &out)
{
    const SearchDag &d = s.dag();
    for (int e : d.node(node).outgoingEdges) {
        const dag::Edge &edge = d.edge(e);
        const FuncSchedule *c = s.scheduleOf(edge.consumerNode);
        if (!c)
            continue;
        if (c->location == ComputeLocation::Inlined)
            collectReadingPaths(s, edge.consumerNode, out);
        else
            out.push_back(s.innermostPath(edge.consumerNode, edge.consumerStage));
    }
}

// compute_in_tiles' one child calling the Func among the loops `depth` levels below the root: the
// loop every reading path passes through there; nullopt when they part (Halide then pushes the Func
// no further in).
std::optional<LoopLevel> onlyLoopAt(const std::vector<LoopPath> &paths, size_t depth)
{
    std::optional<LoopLevel> only;
    for (const LoopPath &p : paths) {
        if (depth >= p.size() || (only && !(*only == p[depth])))
            return std::nullopt;
        only = p[depth];
    }
    return only;
}

int vectorLoopOf(const StageTiling &t) { return t.hasVectorLoop ? t.vectorLoop : -1; }

// The Funcs computed at the block level of a root stage (their loops are the block's siblings of
// the stage's own thread loop).
std::vector<const FuncSchedule *> blockFuncsOf(const State &s, int rootNode, int rootStage)
{
    std::vector<const FuncSchedule *> out;
    for (const FuncSchedule &g : s.funcs())
        if (g.location == ComputeLocation::BlockLevel && g.consumer == rootNode && g.consumerStage == rootStage)
            out.push_back(&g);
    return out;
}

// The union, dimension by dimension, of the lowered thread counts of every thread loop in a root
// stage's block (LoopNest::get_union_thread_counts), optionally leaving one Func out.
Extents blockThreadUnion(const State &s, int rootNode, int rootStage, int without = -1)
{
    Extents u{1, 1, 1};
    const StageTiling &rt = s.scheduleOf(rootNode)->stages[static_cast<size_t>(rootStage)];
    widenInto(u, loweredThreadDims(rt.threads, vectorLoopOf(rt)));
    for (const FuncSchedule *g : blockFuncsOf(s, rootNode, rootStage))
        if (g->node != without)
            for (const StageTiling &t : g->stages)
                widenInto(u, loweredThreadDims(t.threads, vectorLoopOf(t)));
    return u;
}

// Halide's are_valid_thread_extents: at most three thread dimensions, at most 1024 threads.
bool validThreadExtents(const Extents &u)
{
    int64_t threads = 1;
    size_t dims = 0;
    for (int64_t c : u) {
        if (c == 1)
            continue;
        if (dims >= kMaxThreadDims || threads * c > kMaxThreadsInBlock)
            return false;
        threads *= c;
        dims++;
    }
    return true;
}

// The root stages tiled onto the GPU (untiled ones have no thread loops yet).
template <typename Fn>
void forEachKernel(const State &s, Fn &&fn)
{
    for (const FuncSchedule &f : s.funcs())
        if (f.location == ComputeLocation::Root && !f.awaitingGpuTiling)
            for (size_t st = 0; st < f.stages.size(); st++)
                fn(f.node, static_cast<int>(st));
}

// LoopNest::has_valid_thread_extents over the whole state.
bool hasValidThreadExtents(const State &s)
{
    bool ok = true;
    forEachKernel(s, [&](int n, int st) { ok = ok && validThreadExtents(blockThreadUnion(s, n, st)); });
    return ok;
}

// LoopNest::max_idle_lane_wastage: the worst idle-lane wastage of any thread loop (a root stage's
// own, and those of the Funcs computed at its block level), each against its block's thread shape.
double maxIdleLaneWastage(const State &s)
{
    double worst = 0;
    forEachKernel(s, [&](int n, int st) {
        const Extents u = blockThreadUnion(s, n, st);
        const int block[3] = {static_cast<int>(u[0]), static_cast<int>(u[1]), static_cast<int>(u[2])};
        auto consider = [&](const StageTiling &t) {
            worst = std::max(worst, makeThreadInfo(vectorLoopOf(t), t.threads, block).idleLaneWastage());
        };
        consider(s.scheduleOf(n)->stages[static_cast<size_t>(st)]);
        for (const FuncSchedule *g : blockFuncsOf(s, n, st))
            for (const StageTiling &t : g->stages)
                consider(t);
    });
    return worst;
}

// ---- The rejections of State::calculate_cost (before the cost model) ----

// LoopNest::exceeds_serial_extents_limit for the serial loops Beamscope's states have: the serial
// loop around the innermost one (a pure stage's pure points at most the unroll limit). A root
// stage's, a block-level Func's inner serial loop and a thread-level Func's loop are all of that
// kind; an untiled root stage has none.
bool exceedsSerialExtentsLimit(const State &s)
{
    const SearchDag &d = s.dag();
    for (const FuncSchedule &f : s.funcs()) {
        if (f.location == ComputeLocation::Inlined || f.awaitingGpuTiling || f.stages.empty())
            continue;
        if (pureSerialPoints(d.stage(f.node, 0), f.stages[0]) > kGpuUnrollLimit)
            return true;
    }
    return false;
}

// ---- The candidates ----

// The pure dimension Halide vectorizes `node` over, judged by the region computing it at root gives.
int vectorDimension(const SearchDag &d, int node) { return halideRootVectorDim(d.node(node), d.rootComputed(node)); }

// The loop of `stage` that iterates pure dimension `dim`, -1 when none does.
int loopOverDimension(const SearchDag &d, int node, int stage, int dim)
{
    const dag::Node &n = d.node(node);
    return loopOverPureDim(pureDimsOf(n, n.stages[static_cast<size_t>(stage)]), dim);
}

StageTiling oneLoopPerStage(const SearchDag &d, int node, int stage, int vectorDim)
{
    const auto loops = static_cast<size_t>(d.loopCount(node, stage));
    StageTiling t;
    t.threads.assign(loops, 1);
    t.serial.assign(loops, 1);
    const int v = loopOverDimension(d, node, stage, vectorDim);
    t.vectorLoop = std::max(0, v);
    t.hasVectorLoop = v >= 0;
    return t;
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
    for (size_t s = 0; s < d.node(node).stages.size(); s++)
        f.stages.push_back(oneLoopPerStage(d, node, static_cast<int>(s), vectorDim));
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

// compute_in_tiles' pruning before it looks inside a loop: the Func must need fewer points per
// iteration there than at the enclosing loop, and must not lose a vector's worth of points along
// its vectorized dimension that it still had outside.
bool worthDescending(const Region &here, const Region &outside, int vectorDim, int64_t vectorSize)
{
    const auto v = static_cast<size_t>(vectorDim);
    if (v < here.size() && outside[v].extent() >= vectorSize && here[v].extent() < vectorSize)
        return false;
    return volume(here) < volume(outside);
}

// The placements compute_in_tiles offers inside the readers' kernel, in its order, and the one it
// would offer that Beamscope's states cannot hold, if any.
struct InKernel {
    std::vector<FuncSchedule> candidates;
    std::string unsupported;
};

// The per-loop pure dimension of each stage of `node` (Halide's Loop::pure_dim), -1 for reductions.
std::vector<std::vector<int>> pureDimsOfEachStage(const SearchDag &d, int node)
{
    const dag::Node &n = d.node(node);
    std::vector<std::vector<int>> out;
    for (const dag::Stage &stage : n.stages)
        out.push_back(pureDimsOf(n, stage));
    return out;
}

// Tiling.cpp generate_gpu_tilings for a Func just computed at a block loop: its threads outside a
// serial loop, next to the block's `siblings` thread counts.
std::vector<Extents> blockThreadTilings(const std::vector<Extents> &stageSizes,
                                        const std::vector<std::vector<int>> &pureDims,
                                        const std::vector<int> &vectorLoops, const Extents &siblings)
{
    GpuTilingQuery q;
    q.stageSizes = stageSizes;
    q.pureDims = pureDims;
    q.siblingMaxThreads = siblings;
    q.vectorLoops = vectorLoops;
    q.serialInner = true;
    q.isComputeRootStage = false;
    return halideGpuTilings(q);
}

// The Func placed at a loop of a consumer stage in a kernel (a root stage's block or thread loop, a
// block-level Func's thread loop; with `insideSerialLoop`, the stage's serial loop), its loops not
// yet split: what compute_here sees there.
FuncSchedule untiledInKernel(const SearchDag &d, int node, int consumer, int consumerStage, ComputeLocation location,
                             bool insideSerialLoop, int vectorDim)
{
    FuncSchedule f;
    f.node = node;
    f.location = location;
    f.consumer = consumer;
    f.consumerStage = consumerStage;
    f.storedAtRoot = true;
    f.insideSerialLoop = insideSerialLoop;
    for (size_t s = 0; s < d.node(node).stages.size(); s++)
        f.stages.push_back(oneLoopPerStage(d, node, static_cast<int>(s), vectorDim));
    return f;
}

// A Func computed at a root stage's block loop, split by `threads` (per pure dimension) into a
// thread loop outside a serial loop (LoopNest::parallelize_in_tiles without inner tiling): the
// thread loop takes the count, the serial loop the rest; a reduction loop moves wholly into the
// serial loop (its rvars moved inward).
FuncSchedule atBlock(const SearchDag &d, int node, int rootNode, int rootStage, const std::vector<Region> &loops,
                     const std::vector<std::vector<int>> &pureDims, const Extents &threads, int vectorDim)
{
    FuncSchedule f = untiledInKernel(d, node, rootNode, rootStage, ComputeLocation::BlockLevel, false, vectorDim);
    for (size_t s = 0; s < loops.size(); s++) {
        StageTiling &t = f.stages[s];
        int64_t serialPoints = 1;
        for (size_t l = 0; l < loops[s].size(); l++) {
            const int dim = pureDims[s][l];
            t.threads[l] = dim >= 0 ? threads[static_cast<size_t>(dim)] : 1;
            t.serial[l] = ceilDiv(loops[s][l].extent(), t.threads[l]);
            serialPoints *= t.serial[l];
        }
        t.unrolled = unrollsSerialLoop(serialPoints);
    }
    return f;
}

// A Func computed at a consumer's thread loop (or inside its serial loop): one serial loop over what
// is needed there, of each stage's `loops`.
FuncSchedule atThread(const SearchDag &d, int node, int consumer, int consumerStage, bool insideSerialLoop,
                      const std::vector<Region> &loops, int vectorDim)
{
    FuncSchedule f =
        untiledInKernel(d, node, consumer, consumerStage, ComputeLocation::ThreadLevel, insideSerialLoop, vectorDim);
    for (size_t s = 0; s < loops.size(); s++) {
        StageTiling &t = f.stages[s];
        int64_t serialPoints = 1;
        for (size_t l = 0; l < loops[s].size(); l++) {
            t.serial[l] = loops[s][l].extent();
            serialPoints *= t.serial[l];
        }
        t.unrolled = unrollsSerialLoop(serialPoints);
    }
    return f;
}

// The loops of each stage of `probe`'s Func where `probe` places it in `parent`.
std::vector<Region> loopsWhenPlaced(const State &parent, const FuncSchedule &probe)
{
    const State s = with(parent, probe);
    std::vector<Region> out;
    for (size_t st = 0; st < probe.stages.size(); st++)
        out.push_back(s.stageLoops(probe.node, static_cast<int>(st)));
    return out;
}

// Halide does not fuse into a root loop nest whose block loop has extent 1 everywhere (it could
// then never parallelize the Func).
bool hasSingleBlock(const State &s, int rootNode, int rootStage)
{
    const Region &loops = s.dag().rootLoops(rootNode, rootStage);
    const StageTiling &t = s.scheduleOf(rootNode)->stages[static_cast<size_t>(rootStage)];
    for (size_t j = 0; j < loops.size(); j++)
        if (ceilDiv(loops[j].extent(), t.threads[j] * t.serial[j]) > 1)
            return false;
    return true;
}

// At the block loop: the Func computed there, once per thread tiling Halide's
// add_gpu_thread_tilings makes (false when there is none, a case Beamscope cannot hold).
bool addBlockPlacements(const State &parent, int node, int rn, int rs, int vectorDim, std::vector<FuncSchedule> &out)
{
    const SearchDag &d = parent.dag();
    const std::vector<Region> loops =
        loopsWhenPlaced(parent, untiledInKernel(d, node, rn, rs, ComputeLocation::BlockLevel, false, vectorDim));
    std::vector<Extents> sizes;
    std::vector<int> vectorLoops;
    for (size_t s = 0; s < loops.size(); s++) {
        Extents e;
        for (const Span &sp : loops[s])
            e.push_back(sp.extent());
        sizes.push_back(std::move(e));
        vectorLoops.push_back(loopOverDimension(d, node, static_cast<int>(s), vectorDim));
    }
    if (sizes[0].empty())
        return false;
    const std::vector<std::vector<int>> pureDims = pureDimsOfEachStage(d, node);
    const std::vector<Extents> tilings =
        blockThreadTilings(sizes, pureDims, vectorLoops, blockThreadUnion(parent, rn, rs));
    for (const Extents &t : tilings)
        out.push_back(atBlock(d, node, rn, rs, loops, pureDims, t, vectorDim));
    return !tilings.empty();
}

// At a consumer's thread loop (or inside its serial loop): one serial loop over what is needed there.
FuncSchedule threadPlacement(const State &parent, int node, int consumer, int consumerStage, bool insideSerialLoop,
                             int vectorDim)
{
    const SearchDag &d = parent.dag();
    const FuncSchedule probe =
        untiledInKernel(d, node, consumer, consumerStage, ComputeLocation::ThreadLevel, insideSerialLoop, vectorDim);
    return atThread(d, node, consumer, consumerStage, insideSerialLoop, loopsWhenPlaced(parent, probe), vectorDim);
}

// compute_in_tiles below the root: down the loops that alone read the Func, from the block loop of
// the one root stage whose kernel reads it, through its thread and serial loops or those of the
// Func computed in them that reads it, as long as the Func's region still shrinks: at a block loop
// with each thread tiling, at a thread loop, inside a serial loop. A Func computed inside a kernel
// is a loop nest of its own there (a block-level Func's thread and serial loops, a thread-level
// Func's serial loop), which Halide enters as it enters the root stage's. Nothing is computed at an
// innermost loop.
InKernel inKernelPlacements(const State &parent, int node, int vectorDim, const AutoscheduleParams &params)
{
    InKernel out;
    const SearchDag &d = parent.dag();
    std::vector<LoopPath> readers;
    collectReadingPaths(parent, node, readers);
    const std::optional<LoopLevel> kernel = onlyLoopAt(readers, 0);
    if (!kernel)
        return out;
    if (parent.scheduleOf(kernel->node)->awaitingGpuTiling) {
        out.unsupported = "reader not yet tiled onto the GPU";
        return out;
    }
    if (hasSingleBlock(parent, kernel->node, kernel->stage))
        return out;
    Region outside = d.rootComputed(node);
    for (size_t depth = 0;; depth++) {
        const std::optional<LoopLevel> loop = onlyLoopAt(readers, depth);
        if (!loop || loop->level == 4 || (loop->level > 1 && !params.options.computeAtThread))
            return out;
        const Region required = parent.requiredAt(node, loop->node, loop->stage, loop->level);
        const Region here = required.empty() ? d.rootComputed(node) : d.requiredToComputed(node, required);
        if (!worthDescending(here, outside, vectorDim, kGpuVectorSize))
            return out;
        if (loop->level > 1) {
            out.candidates.push_back(
                threadPlacement(parent, node, loop->node, loop->stage, loop->level == 3, vectorDim));
        } else if (params.options.computeAtBlock &&
                   !addBlockPlacements(parent, node, loop->node, loop->stage, vectorDim, out.candidates)) {
            out.unsupported = "computed at a block loop without a thread tiling (a serial loop there)";
            return out;
        }
        outside = here;
    }
}

} // namespace

std::optional<Featurization> featuresIfCosted(const State &s, const AutoscheduleParams &params,
                                              const Featurization *parentFeaturization,
                                              StageFeatureMemo *stageFeatureMemo)
{
    if (!hasValidThreadExtents(s))
        return std::nullopt;
    if (!s.legalityProblem(kMaxThreadsPerBlock, params.device.sharedMemoryLimitBytes, params.device.activeWarpLimit)
             .empty())
        return std::nullopt;
    if (exceedsSerialExtentsLimit(s))
        return std::nullopt;
    Featurization features = computeFeatures(s, params.device, parentFeaturization, false, stageFeatureMemo);
    if (!rejectionBeforeCosting(s, features.features).empty())
        return std::nullopt;
    return features;
}

Phase0Children halidePlacements(const State &parent, const AutoscheduleParams &params,
                                const Featurization *parentFeaturization, StageFeatureMemo *stageFeatureMemo)
{
    Phase0Children out;
    const int node = parent.nextNode();
    if (node < 0)
        return out;
    const SearchDag &d = parent.dag();
    const dag::Node &n = d.node(node);

    // 1) Inline it: a single-stage Func that is not an output.
    if (params.options.inlineFuncs && n.stages.size() == 1 && !n.isOutput) {
        State s = with(parent, inlined(node));
        if (auto features = featuresIfCosted(s, params, parentFeaturization, stageFeatureMemo)) {
            out.children.push_back(std::move(s));
            out.features.push_back(std::move(*features));
        }
    }
    if (inliningSettlesIt(n, !out.children.empty()))
        return out;

    // 2) Realize it: compute_in_tiles' list (at root first, then inside the reader's kernel), put in
    // order of idle GPU lanes, cut once the rest would idle over half a warp.
    const int vectorDim = vectorDimension(d, node);
    std::vector<FuncSchedule> candidates;
    if (params.options.computeRoot || n.isOutput)
        candidates.push_back(untiledAtRoot(d, node, vectorDim));
    if (!n.isOutput && (params.options.computeAtBlock || params.options.computeAtThread)) {
        InKernel k = inKernelPlacements(parent, node, vectorDim, params);
        out.unsupported = k.unsupported;
        for (FuncSchedule &c : k.candidates)
            candidates.push_back(std::move(c));
    }
    struct Option {
        State state;
        double wastage;
    };
    std::vector<Option> options;
    for (FuncSchedule &c : candidates) {
        State s = with(parent, std::move(c));
        if (!hasValidThreadExtents(s))
            continue;
        const double w = maxIdleLaneWastage(s);
        options.push_back({std::move(s), w});
    }
    // std::sort, as Halide's filter_thread_tile_options: equal wastages fall as that algorithm
    // leaves them (the same comparisons on the same list).
    std::sort(options.begin(), options.end(), [](const Option &a, const Option &b) { return a.wastage < b.wastage; });
    for (Option &o : options) {
        if (!out.children.empty() && o.wastage > kMaxIdleLaneWastage)
            break;
        if (auto features = featuresIfCosted(o.state, params, parentFeaturization, stageFeatureMemo)) {
            out.children.push_back(std::move(o.state));
            out.features.push_back(std::move(*features));
        }
    }
    return out;
}

} // namespace beamscope::search
