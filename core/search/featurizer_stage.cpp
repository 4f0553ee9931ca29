// A scheduled stage's features outside GPU memory accesses: its context in
// the loop nest, the producers it reads, expression branching, points
// computed, parallelism, footprints, loads and occupancy.
#include "core/search/featurizer_internal.h"

namespace beamscope::search::featurizing {

StageCtx Featurizer::context(const FuncSchedule &f, int stage) const
{
    StageCtx c;
    c.node = f.node;
    c.stage = stage;
    c.f = &f;
    c.t = &f.stages[static_cast<size_t>(stage)];
    c.loops = st.stageLoops(f.node, stage);
    // Every per-loop table below is indexed by the stage's loops: a tiling of another
    // length is an internal error, not a read past its end.
    if (c.t->threads.size() != c.loops.size() || c.t->serial.size() != c.loops.size())
        throw std::logic_error("featurizer: Func \"" + d.node(f.node).name + "\" stage " + std::to_string(stage) +
                               " has " + std::to_string(c.loops.size()) + " loops but a tiling of " +
                               std::to_string(c.t->threads.size()) + " threads and " +
                               std::to_string(c.t->serial.size()) + " serial extents");
    for (int64_t s : c.t->serial)
        c.serialTotal *= s;
    c.threadSerialTotal = c.serialTotal;
    int64_t tiled = 1;
    for (size_t j = 0; j < c.t->threads.size(); j++)
        tiled *= c.t->threads[j] * c.t->serial[j];
    if (f.location == ComputeLocation::Root) {
        c.kernelNode = f.node;
        c.kernelStage = stage;
        c.blocks = st.numBlocks(f.node, stage);
        c.instances = 1;
        c.perProduction = tiled * c.blocks;
    } else {
        std::tie(c.kernelNode, c.kernelStage) = st.kernelOf(f.node);
        c.blocks = st.numBlocks(c.kernelNode, c.kernelStage);
        // Once per iteration of the loops around it: per block, per thread of the Func whose thread
        // loop it is in, per point of the serial loops it is computed inside.
        const LoopPath around = st.realizationPath(f.node);
        c.instances = iterationsOf(around);
        for (const LoopLevel &l : around)
            if (l.level == 3)
                for (int64_t n : st.scheduleOf(l.node)->stages[static_cast<size_t>(l.stage)].serial)
                    c.serialAroundRealization *= n;
        c.threadSerialTotal *= c.serialAroundRealization;
        c.perProduction = tiled;
    }
    // The block's thread extents: the largest over the stages running in this kernel.
    int block[3] = {1, 1, 1};
    auto widen = [&](const StageTiling &t) {
        int th[3];
        int64_t count;
        std::vector<int> idx;
        assignThreadLoops(t.hasVectorLoop ? t.vectorLoop : -1, t.threads, th, count, idx);
        for (int k = 0; k < 3; k++)
            block[k] = std::max(block[k], th[k]);
    };
    const FuncSchedule *kernel = st.scheduleOf(c.kernelNode);
    widen(kernel->stages[static_cast<size_t>(c.kernelStage)]);
    for (const FuncSchedule &g : st.funcs())
        if (g.location == ComputeLocation::BlockLevel && g.consumer == c.kernelNode && g.consumerStage == c.kernelStage)
            for (const StageTiling &t : g.stages)
                widen(t);
    // Halide's thread x is the vectorized loop; a stage without one (vectorized_loop_index -1)
    // takes its thread loops in loop order.
    // A thread-level Func runs in the thread loop of the root or block-level Func it is inside.
    std::tie(c.threadOwnerNode, c.threadOwnerStage) =
        f.location == ComputeLocation::ThreadLevel ? st.threadLoopOf(f.node) : std::pair<int, int>(f.node, stage);
    const StageTiling &threadOwner = st.scheduleOf(c.threadOwnerNode)->stages[static_cast<size_t>(c.threadOwnerStage)];
    const int vectorLoop = threadOwner.hasVectorLoop ? threadOwner.vectorLoop : -1;
    c.thread = makeThreadInfo(vectorLoop, threadOwner.threads, block);
    c.funcVectorDim = d.vectorDim(f.node, 0, f.stages[0].vectorLoop);
    // A stage without loops (a zero-dimensional Func, an update of a single point) keeps
    // its Func's vector dim, as Halide's vector_dim is one per Func.
    c.vectorDim = c.loops.empty() ? c.funcVectorDim : d.vectorDim(f.node, stage, c.t->vectorLoop);
    return c;
}

void Featurizer::collectProducersRead(int node, int stage, std::vector<int> &out) const
{
    // Depth first through inlined Funcs, each producer listed where the walk first meets it (the
    // order Halide sums the producers' bytes in). An inlined Func is walked once: a second walk,
    // through another consumer, meets nothing new.
    struct Pending {
        int node, stage;
    };
    std::vector<char> seen(static_cast<size_t>(d.nodeCount()), 0);
    std::vector<Pending> pending{{node, stage}};
    while (!pending.empty()) {
        const Pending p = pending.back();
        pending.pop_back();
        if (p.node != node) {
            if (seen[static_cast<size_t>(p.node)])
                continue;
            seen[static_cast<size_t>(p.node)] = 1;
        }
        for (int e : d.stage(p.node, p.stage).incomingEdges) {
            const dag::Edge &edge = d.edge(e);
            const FuncSchedule *pf = st.scheduleOf(edge.producer);
            if (pf && pf->location == ComputeLocation::Inlined)
                pending.push_back(Pending{edge.producer, 0});
            else if (!seen[static_cast<size_t>(edge.producer)]) {
                seen[static_cast<size_t>(edge.producer)] = 1;
                out.push_back(edge.producer);
            }
        }
    }
}

// The expr_branching memo's key for `node`: the Func and the Funcs inlined into it, directly or
// through other inlined Funcs, which are all its measure depends on.
// The Funcs inlined into one stage of `node`: those it reads, and those they read, through inlined
// Funcs only (Halide's `inlined` map of the stage's innermost loop).
std::vector<int> Featurizer::inlinedInto(int node, int stage) const
{
    std::vector<int> inlined;
    std::vector<int> pending;
    auto reach = [&](const dag::Stage &s) {
        for (int e : s.incomingEdges) {
            const int q = d.edge(e).producer;
            const FuncSchedule *g = st.scheduleOf(q);
            if (g && g->location == ComputeLocation::Inlined &&
                std::find(inlined.begin(), inlined.end(), q) == inlined.end()) {
                inlined.push_back(q);
                pending.push_back(q);
            }
        }
    };
    reach(d.stage(node, stage));
    while (!pending.empty()) {
        const int n = pending.back();
        pending.pop_back();
        for (const dag::Stage &s : d.node(n).stages)
            reach(s);
    }
    std::sort(inlined.begin(), inlined.end());
    return inlined;
}

std::string Featurizer::branchingKey(int node, const std::vector<int> &inlined) const
{
    std::string key = std::to_string(node);
    for (int q : inlined)
        key += "," + std::to_string(q);
    return key;
}

// Halide measures the Func's pure definition for every stage, through the Funcs inlined into that
// stage (an update stage that reads none of them measures their calls as plain calls: max_filter's
// vert_log update, 2 where its pure stage with repeat_edge inlined is 3). Each inlined Func is
// measured once per state (chains of inlined stencils would otherwise be expanded exponentially).
int Featurizer::branching(int node, const std::vector<int> &inlined)
{
    const std::function<bool(const std::string &, int &)> inlinedMeasure = [&](const std::string &name, int &out) {
        auto memo = inlinedBranching.find(name);
        if (memo != inlinedBranching.end()) {
            out = memo->second;
            return true;
        }
        for (int q : inlined)
            if (d.node(q).name == name) {
                out = exprBranching(d.node(q).func, inlinedMeasure);
                inlinedBranching.emplace(name, out);
                return true;
            }
        return false;
    };
    return exprBranching(d.node(node).func, inlinedMeasure);
}

void Featurizer::computePointsComputedMinimum()
{
    pcm.assign(d.costStages().size(), 0);
    for (size_t slot = 0; slot < d.costStages().size(); slot++) {
        const dag::StageRef &r = d.costStages()[slot];
        pcm[slot] = volume(d.rootLoops(r.node, r.stage));
    }
    // Consumers come first in slot order, so their minimum is final when a producer reads it.
    for (size_t slot = 0; slot < d.costStages().size(); slot++) {
        const dag::StageRef &r = d.costStages()[slot];
        const dag::Node &n = d.node(r.node);
        if (n.stages.size() != 1 || n.isOutput)
            continue;
        int64_t ifInlined = 0;
        for (int e : n.outgoingEdges) {
            const dag::Edge &edge = d.edge(e);
            const int cs = d.stageSlot(edge.consumerNode, edge.consumerStage);
            if (cs >= 0)
                ifInlined += pcm[static_cast<size_t>(cs)] * edge.calls;
        }
        pcm[slot] = std::min(pcm[slot], ifInlined);
    }
}

namespace {

// Bytes and lines of a producer's region, as Halide counts them for a site:
// every dimension but the site's vector dimension makes lines.
void footprint(int64_t bytesPerPoint, const Region &r, const Site &site, double &bytes, double &lines)
{
    bytes = double(bytesPerPoint);
    lines = 1;
    int64_t maxExtent = 1;
    for (size_t i = 0; i < r.size(); i++) {
        const int64_t e = r[i].extent();
        bytes *= double(e);
        maxExtent = std::max(maxExtent, e);
        if (static_cast<int>(i) != site.vectorDim)
            lines *= double(e);
    }
    if (site.vectorDim < 0)
        lines /= double(maxExtent);
}

} // namespace

// The features of one scheduled stage, step by step as Halide's
// LoopNest::compute_features fills them.
void Featurizer::stageFeatures(const StageCtx &c, ScheduleFeatures &feat)
{
    pointFeatures(c, feat);
    parallelismFeatures(c, feat);
    const StageBytes bytes = footprintFeatures(c, feat);
    loadFeatures(c, bytes, feat);
    if (c.f->location == ComputeLocation::Root)
        taskLoadFeatures(c, feat);
    memoryFeatures(c, feat);
    occupancyFeatures(c, feat);
    // Every stage reports the pure definition's measure, which depends on the Func and on which of
    // the Funcs it calls, directly or through other inlined Funcs, are inlined: the memo's key. (A key
    // of every Func's inlining would make the memo grow with every state a search visits.)
    const std::vector<int> inlined = inlinedInto(c.node, c.stage);
    feat[Feature::ExprBranching] =
        d.branching(branchingKey(c.node, inlined), [&] { return branching(c.node, inlined); });
}

// Realizations, points computed, scalars, innermost and unrolled extents.
void Featurizer::pointFeatures(const StageCtx &c, ScheduleFeatures &feat) const
{
    const StageTiling &t = *c.t;
    feat[Feature::NumRealizations] = double(c.instances);
    feat[Feature::NumProductions] = double(c.instances);
    double perRealization = 1, scalars = double(c.instances);
    for (size_t j = 0; j < c.loops.size(); j++) {
        const int64_t e = c.loops[j].extent();
        perRealization *= double(e);
        // Halide's GPU stages vectorize at width 1 (its simd loops are "1v"): a vectorized loop
        // leaves no scalar tail, a stage without one computes every point as a scalar.
        scalars *= t.hasVectorLoop && static_cast<int>(j) == t.vectorLoop ? 0.0 : double(e);
    }
    feat[Feature::PointsComputedPerRealization] = perRealization;
    feat[Feature::PointsComputedPerProduction] = double(c.perProduction);
    feat[Feature::PointsComputedPerThread] = double(c.threadSerialTotal);
    feat[Feature::PointsComputedTotal] = perRealization * double(c.instances);
    feat[Feature::NumScalars] = scalars;

    double pure = 1;
    for (size_t j = 0; j < t.serial.size(); j++)
        if (!d.stage(c.node, c.stage).loop[j].rvar)
            pure *= double(t.serial[j]);
    feat[Feature::InnermostLoopExtent] = double(c.serialTotal);
    feat[Feature::InnermostPureLoopExtent] = pure;
    // Halide unrolls (and reports) the serial tile when its pure extent is at most 16 and every
    // loop of the stage is a pure loop of constant extent (a reduction loop blocks it).
    bool unrollable = pure <= 16 && loopsHaveConstantExtent(c);
    for (const dag::Loop &l : d.stage(c.node, c.stage).loop)
        unrollable = unrollable && !l.rvar;
    feat[Feature::UnrolledLoopExtent] = unrollable ? pure : 1;
}

// Parallel tasks inside and around the stage.
void Featurizer::parallelismFeatures(const StageCtx &c, ScheduleFeatures &feat) const
{
    const StageTiling &t = *c.t;
    if (c.f->location == ComputeLocation::Root) {
        int64_t inner = 1;
        const Region &loops = c.loops;
        for (size_t j = loops.size(); j-- > 0;) {
            const int64_t b = ceilDiv(loops[j].extent(), t.threads[j] * t.serial[j]);
            if (d.stage(c.node, c.stage).loop[j].pure)
                inner *= b;
            else if (b != 1)
                break;
        }
        feat[Feature::InnerParallelism] = double(inner);
        feat[Feature::OuterParallelism] = 1;
    } else {
        // Produced inside the consumer's block loop: its own (thread or serial) loop is not a parallel
        // task, and the tasks around it are the kernel's blocks (thread loops add none).
        feat[Feature::InnerParallelism] = 1;
        feat[Feature::OuterParallelism] = double(c.blocks);
    }
}

// Bytes at realization, production, root and task; returns the stage's own
// bytes for the loads of an update.
Featurizer::StageBytes Featurizer::footprintFeatures(const StageCtx &c, ScheduleFeatures &feat) const
{
    const dag::Node &n = d.node(c.node);
    const FuncSchedule &f = *c.f;
    const StageTiling &t = *c.t;
    const int64_t bpp = n.bytesPerPoint;
    const Region computed = st.computedRegion(c.node);
    double bytes = double(bpp);
    for (const Span &s : computed)
        bytes *= double(s.extent());
    const int vd = c.vectorDim;
    const double innermostBytes =
        double(bpp) *
        (vd < static_cast<int>(computed.size()) ? double(computed[static_cast<size_t>(vd)].extent()) : 1.0);
    feat[Feature::BytesAtRealization] = bytes;
    feat[Feature::BytesAtProduction] = bytes;
    feat[Feature::InnermostBytesAtRealization] = innermostBytes;
    feat[Feature::InnermostBytesAtProduction] = innermostBytes;
    const Region &rootComputed = d.rootComputed(c.node);
    double rootBytes = double(bpp);
    for (const Span &s : rootComputed)
        rootBytes *= double(s.extent());
    feat[Feature::BytesAtRoot] = rootBytes;
    feat[Feature::InnermostBytesAtRoot] =
        double(bpp) *
        (vd < static_cast<int>(rootComputed.size()) ? double(rootComputed[static_cast<size_t>(vd)].extent()) : 1.0);

    // Bytes at task.
    if (f.location == ComputeLocation::Root && n.func.dimensions() == 0 && c.loops.empty()) {
        // Halide never parallelizes a Func without dimensions (SearchSpace skips it), and a
        // stage of it without loops gets no block loop in its feature loop nest either
        // (State::FeatureLoopNestMutator skips loop nests without loops), so Halide takes the
        // optimistic per-task share of a compute_root loop whose tiling is not chosen yet.
        const double atTask = (bytes + params.parallelism - 1) / params.parallelism;
        feat[Feature::GlobalBytesAtTask] = atTask;
        feat[Feature::GlobalInnermostBytesAtTask] = std::min(atTask, innermostBytes);
    } else if (f.location == ComputeLocation::Root) {
        double atTask = double(bpp), innermostAtTask = double(bpp);
        const dag::Stage &stage = d.stage(c.node, c.stage);
        for (int i = 0; i < n.func.dimensions(); i++) {
            int64_t outer = 1;
            for (size_t j = 0; j < stage.loop.size(); j++)
                if (stage.loop[j].var == n.func.args()[static_cast<size_t>(i)]) {
                    outer = ceilDiv(c.loops[j].extent(), t.threads[j] * t.serial[j]);
                    break;
                }
            const int64_t extent = computed[static_cast<size_t>(i)].extent() / outer;
            atTask *= double(extent);
            if (i == vd)
                innermostAtTask = double(bpp) * double(extent);
        }
        feat[Feature::GlobalBytesAtTask] = atTask;
        feat[Feature::GlobalInnermostBytesAtTask] = innermostAtTask;
    } else if (f.featureMemory() == MemoryType::Global) { // block level, stored at root
        feat[Feature::GlobalBytesAtTask] = bytes;
        feat[Feature::GlobalInnermostBytesAtTask] = innermostBytes;
    } else if (f.featureMemory() == MemoryType::Shared) {
        feat[Feature::SharedBytesAtTask] = bytes;
        feat[Feature::SharedInnermostBytesAtTask] = innermostBytes;
    } else {
        feat[Feature::RegisterBytesAtTask] = bytes;
        feat[Feature::RegisterInnermostBytesAtTask] = innermostBytes;
    }
    return {bytes, innermostBytes};
}

// Unique bytes and lines read per realization, per thread and per point, by memory.
void Featurizer::loadFeatures(const StageCtx &c, const StageBytes &own, ScheduleFeatures &feat) const
{
    const FuncSchedule &f = *c.f;
    const double bytes = own.bytes, innermostBytes = own.innermostBytes;
    std::vector<int> producers;
    collectProducersRead(c.node, c.stage, producers);
    double realizationBytes[3] = {0, 0, 0}, realizationLines[3] = {0, 0, 0};
    double threadBytes[3] = {0, 0, 0}, threadLines[3] = {0, 0, 0};
    double pointBytes = 0, pointLines = 0, allocation[3] = {0, 0, 0};
    for (const int producer : producers) {
        const Site site = siteOf(producer, c.node);
        const int m = static_cast<int>(site.memory);
        const Region storage = st.computedRegion(producer);
        double b = 0, l = 0;
        const FuncSchedule *pf = st.scheduleOf(producer);
        // Halide's store_instances_per_consumption: a producer realized more often than this stage
        // is read one realization at a time.
        const bool realizedPerConsumerIteration =
            site.placedInKernel && double(site.realizations) > feat[Feature::NumRealizations];
        if (realizedPerConsumerIteration) {
            footprint(d.node(producer).bytesPerPoint, site.required, site, b, l);
        } else if (site.nestedIn && pf && pf->storedAtRoot) {
            // Realized once per block but stored at root: Halide reads its whole root allocation.
            footprint(d.node(producer).bytesPerPoint, d.rootRequired(producer), site, b, l);
        } else if (site.nestedIn) {
            footprint(d.node(producer).bytesPerPoint, storage, site, b, l);
        } else if (f.storedAtRoot || f.location == ComputeLocation::Root) {
            // This Func's store site is the root, where Halide takes its producers' footprints:
            // each producer's whole root region, whatever share of it this stage reads.
            footprint(d.node(producer).bytesPerPoint, d.rootRequired(producer), site, b, l);
        } else {
            footprint(d.node(producer).bytesPerPoint, st.requiredAt(producer, c.node, c.stage, 0, &requiredAtMemo),
                      site, b, l);
        }
        realizationBytes[m] += b;
        realizationLines[m] += l;
        double cb = 0, cl = 0;
        footprint(d.node(producer).bytesPerPoint, site.placedInKernel ? site.computed : storage, site, cb, cl);
        if (site.memory != MemoryType::Register)
            allocation[m] += cb;
        // Halide's bounds at the thread loop the stage runs in: what one iteration of it needs of the
        // producer, for this stage and every other stage computed in that loop.
        const Region threadRegion = st.requiredAt(producer, c.threadOwnerNode, c.threadOwnerStage, 2, &requiredAtMemo);
        if (site.nestedIn && site.memory == MemoryType::Shared)
            footprint(d.node(producer).bytesPerPoint, storage, site, b, l);
        else if (site.placedInKernel && site.memory == MemoryType::Register && !site.atThreadLoop)
            // Placed in a serial loop: Halide takes that loop's region as the thread's.
            footprint(d.node(producer).bytesPerPoint, site.required, site, b, l);
        else
            footprint(d.node(producer).bytesPerPoint, threadRegion.empty() ? storage : threadRegion, site, b, l);
        threadBytes[m] += b;
        threadLines[m] += l;
        const Region pointRegion = st.requiredAt(producer, c.node, c.stage, 3, &requiredAtMemo);
        footprint(d.node(producer).bytesPerPoint, pointRegion.empty() ? storage : pointRegion, site, b, l);
        pointBytes += b;
        // Halide adds the register *bytes* (not lines) into unique_lines_read_per_point.
        pointLines += site.memory == MemoryType::Register ? b : l;
    }
    if (c.stage > 0) {
        // An update reads everything produced so far (Halide's pessimistic assumption).
        const int m = static_cast<int>(f.featureMemory());
        realizationBytes[m] += bytes;
        realizationLines[m] += innermostBytes > 0 ? bytes / innermostBytes : 0;
        allocation[m] += bytes;
        if (f.featureMemory() == MemoryType::Register)
            feat[Feature::RegisterAllocationBytesReadPerRealization] += bytes;
    }
    const Feature rb[3] = {Feature::UniqueGlobalBytesReadPerRealization, Feature::UniqueSharedBytesReadPerRealization,
                           Feature::UniqueRegisterBytesReadPerRealization};
    const Feature rl[3] = {Feature::UniqueGlobalLinesReadPerRealization, Feature::UniqueSharedLinesReadPerRealization,
                           Feature::UniqueRegisterLinesReadPerRealization};
    const Feature tb[3] = {Feature::UniqueGlobalBytesReadPerThread, Feature::UniqueSharedBytesReadPerThread,
                           Feature::UniqueRegisterBytesReadPerThread};
    const Feature tl[3] = {Feature::UniqueGlobalLinesReadPerThread, Feature::UniqueSharedLinesReadPerThread,
                           Feature::UniqueRegisterLinesReadPerThread};
    for (int m = 0; m < 3; m++) {
        feat[rb[m]] = realizationBytes[m];
        feat[rl[m]] = realizationLines[m];
        feat[tb[m]] = threadBytes[m];
        feat[tl[m]] = threadLines[m];
    }
    feat[Feature::GlobalAllocationBytesReadPerRealization] = allocation[0];
    feat[Feature::SharedAllocationBytesReadPerRealization] = allocation[1];
    feat[Feature::UniqueBytesReadPerPoint] = pointBytes;
    feat[Feature::UniqueLinesReadPerPoint] = pointLines;
}

// Per task: what a block of a root stage streams in from Funcs stored at root.
void Featurizer::taskLoadFeatures(const StageCtx &c, ScheduleFeatures &feat) const
{
    double taskBytes = 0, taskLines = 0;
    std::vector<int> pendingEdges(d.stage(c.node, c.stage).incomingEdges);
    std::set<int> seen;
    while (!pendingEdges.empty()) {
        const dag::Edge &e = d.edge(pendingEdges.back());
        pendingEdges.pop_back();
        if (!seen.insert(e.producer).second)
            continue;
        const FuncSchedule *pf = st.scheduleOf(e.producer);
        const bool input = d.node(e.producer).isInput;
        // An unscheduled Func placed inside the kernel is neither streamed in nor looked through.
        if (!pf && !input && siteOf(e.producer, c.node).placedInKernel)
            continue;
        if (!pf || pf->location == ComputeLocation::Root || pf->storedAtRoot || input) {
            const Region r = st.requiredAt(e.producer, c.node, c.stage, 1, &requiredAtMemo);
            double b = 0, l = 0;
            footprint(d.node(e.producer).bytesPerPoint, r.empty() ? d.rootRequired(e.producer) : r,
                      siteOf(e.producer, c.node), b, l);
            taskBytes += b;
            taskLines += l;
        } else {
            for (const dag::Stage &s : d.node(e.producer).stages)
                pendingEdges.insert(pendingEdges.end(), s.incomingEdges.begin(), s.incomingEdges.end());
        }
    }
    feat[Feature::UniqueBytesReadPerTask] = taskBytes;
    feat[Feature::UniqueLinesReadPerTask] = taskLines;
}

// GPU occupancy and warps.
void Featurizer::occupancyFeatures(const StageCtx &c, ScheduleFeatures &feat) const
{
    const FuncSchedule &f = *c.f;
    // Halide sets the warp and occupancy features at the innermost
    // loop only when the stage has loops (LoopNest::is_scalar): a stage without loops, such as
    // the one of a zero-dimensional Func, keeps the defaults.
    const bool scalarStage = c.loops.empty();
    const ThreadInfo &ti = c.thread;
    if (!scalarStage) {
        feat[Feature::WarpLaneUtilization] = ti.warpLaneUtilization();
        feat[Feature::NumActiveWarpsPerBlock] = ti.numActiveWarpsPerBlock;
        feat[Feature::IdleLaneWastage] = ti.idleLaneWastage();
        feat[Feature::NumWarpsPerBlock] = ti.numWarpsPerBlock;
        feat[Feature::NumBlocks] = double(c.blocks);
        feat[Feature::BlockOccupancy] = ti.blockOccupancy();
        feat[Feature::NumThreadsPerBlock] = double(ti.numThreads);
    }
    if (f.location == ComputeLocation::Root) {
        if (!scalarStage) {
            const int64_t warps = std::max(1, ti.numWarpsPerBlock);
            const int64_t blocksPerSm = static_cast<int64_t>(std::ceil(double(c.blocks) / params.parallelism));
            const int64_t activeBlocks = std::min<int64_t>(params.activeBlockLimit, blocksPerSm);
            const int64_t activeWarps = std::min<int64_t>(params.activeWarpLimit, activeBlocks * warps);
            feat[Feature::MaxWarpOccupancy] = double(activeWarps) / params.activeWarpLimit;
            feat[Feature::MaxBlockOccupancy] = double(activeWarps / warps) / params.activeBlockLimit;
        }
        // The block of this stage's loop nest (Halide counts per stage: each stage of a root Func is
        // a loop nest of its own); unscheduled Funcs placed at this block take their share too
        // (Halide adds them to the block's total when it places them).
        const auto placed = placedSharedBytes.find({c.node, c.stage});
        const int64_t shared =
            st.sharedBytesPerBlock(c.node, c.stage) + (placed == placedSharedBytes.end() ? 0 : placed->second);
        feat[Feature::SharedMemOccupancy] = double(shared) / double(params.sharedMemoryLimitBytes);
        if (shared > 0)
            feat[Feature::SharedMemBlockLimitFactor] =
                double(std::min<int64_t>(params.activeBlockLimit, params.sharedMemorySmLimitBytes / shared)) /
                params.activeBlockLimit;
    }
}

} // namespace beamscope::search::featurizing
