#include "core/search/state.h"

#include "core/search/dump_constancy.h"
#include "core/search/integer_math.h"

#include <algorithm>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>

namespace beamscope::search {

namespace {

void unionInto(Region &into, const Region &r)
{
    if (into.empty()) {
        into = r;
        return;
    }
    for (size_t d = 0; d < into.size() && d < r.size(); d++)
        into[d].unionWith(r[d]);
}

} // namespace

const char *locationName(ComputeLocation l)
{
    switch (l) {
    case ComputeLocation::Inlined: return "inline";
    case ComputeLocation::Root: return "root";
    case ComputeLocation::BlockLevel: return "block";
    case ComputeLocation::ThreadLevel: return "thread";
    }
    return "?";
}

const char *memoryTypeName(MemoryType m)
{
    switch (m) {
    case MemoryType::Global: return "global";
    case MemoryType::Shared: return "shared";
    case MemoryType::Register: return "register";
    }
    return "?";
}

const char *plainLoopKindName(PlainLoop::Kind k)
{
    switch (k) {
    case PlainLoop::Kind::GpuBlock: return "gpu_block";
    case PlainLoop::Kind::GpuThread: return "gpu_thread";
    case PlainLoop::Kind::Serial: return "serial";
    case PlainLoop::Kind::Unrolled: return "unrolled";
    case PlainLoop::Kind::Vectorized: return "vectorized";
    }
    return "?";
}

State::State(const SearchDag &dag) : m_dag(&dag), m_index(static_cast<size_t>(dag.nodeCount()), -1) {}

int State::nextNode() const
{
    const auto &order = m_dag->scheduleOrder();
    return complete() ? -1 : order[m_funcs.size()];
}

const FuncSchedule *State::scheduleOf(int node) const
{
    const int i = m_index[static_cast<size_t>(node)];
    return i < 0 ? nullptr : &m_funcs[static_cast<size_t>(i)];
}

void State::add(FuncSchedule f)
{
    if (f.node < 0 || f.node >= m_dag->nodeCount() || scheduleOf(f.node))
        throw std::invalid_argument("State::add: node " + std::to_string(f.node) + " is not an unscheduled node");
    m_index[static_cast<size_t>(f.node)] = static_cast<int>(m_funcs.size());
    m_funcs.push_back(std::move(f));
}

void State::replaceLast(FuncSchedule f)
{
    if (m_funcs.empty() || m_funcs.back().node != f.node)
        throw std::invalid_argument("State::replaceLast: node " + std::to_string(f.node) +
                                    " is not the last Func scheduled");
    m_funcs.back() = std::move(f);
    // Regions of Funcs computed inside a kernel depend on their readers' tilings.
    m_computedCache.clear();
}

int State::scheduledStageCount() const
{
    int count = 0;
    for (const FuncSchedule &f : m_funcs)
        count += static_cast<int>(m_dag->node(f.node).stages.size());
    return count;
}

Region State::computedRegion(int node) const
{
    const FuncSchedule *f = scheduleOf(node);
    if (!f || f->location == ComputeLocation::Root || f->location == ComputeLocation::Inlined)
        return m_dag->rootComputed(node);
    // Allocated at the first nested Func: a search holds thousands of states at once, most of
    // whose Funcs are inlined or at root.
    if (m_computedCache.empty())
        m_computedCache.resize(static_cast<size_t>(m_dag->nodeCount()));
    Region &cached = m_computedCache[static_cast<size_t>(node)];
    if (!cached.empty())
        return cached;
    const int level = f->location == ComputeLocation::BlockLevel ? 1 : f->insideSerialLoop ? 3 : 2;
    const Region required = requiredAt(node, f->consumer, f->consumerStage, level);
    // Regions of scheduled Funcs never change once their consumers are scheduled, so caching is safe.
    cached = required.empty() ? m_dag->rootComputed(node) : m_dag->requiredToComputed(node, required);
    return cached;
}

Region State::stageLoops(int node, int stage) const
{
    const FuncSchedule *f = scheduleOf(node);
    if (!f || f->location == ComputeLocation::Root || f->location == ComputeLocation::Inlined)
        return m_dag->rootLoops(node, stage);
    return m_dag->loopBounds(node, stage, computedRegion(node));
}

Region State::stageLoopsAt(int node, int stage, int level) const
{
    Region loops = stageLoops(node, stage);
    const FuncSchedule *f = scheduleOf(node);
    if (level == 0 || !f || f->stages.empty())
        return loops;
    // Computed inside its consumer's serial loop, the Func runs once per point of the thread: one
    // thread covers all of those realizations (what Halide's thread loop bounds hold).
    if (level == 2 && f->location == ComputeLocation::ThreadLevel && f->insideSerialLoop)
        return m_dag->loopBounds(node, stage, regionPerThread(node));
    // One point: Halide's LoopNest::compute_here picks it once, when the Func is placed, as the
    // middle point of each loop it computes there (min + extent / 2); splitting the loop later
    // into blocks, threads and serial loops leaves that point as it is.
    if (level >= 3) {
        for (Span &s : loops) {
            s.min += s.extent() / 2;
            s.max = s.min;
        }
        return loops;
    }
    const StageTiling &t = f->stages[static_cast<size_t>(stage)];
    // Halide's representative iteration of a split loop (LoopNest::parallelize_in_tiles): the
    // middle one of the `outer` iterations (index outer / 2), as long as the inner loop and its
    // descendants (the tile), so that a region that depends on the position (a clamp, a select on
    // the channel) is the one Halide featurizes. It is not clipped to the loop.
    auto middleOf = [](Span &s, int64_t outer, int64_t tile) {
        s.min += (outer / 2) * tile;
        s.max = s.min + tile - 1;
    };
    for (size_t j = 0; j < loops.size(); j++) {
        Span &s = loops[j];
        const int64_t threads = t.threads[j], serial = t.serial[j];
        if (f->location == ComputeLocation::Root) {
            // Halide splits a root loop first into parallel and serial loops, then the parallel one
            // into blocks and threads; the thread loop keeps the bounds the parallel loop had: the
            // middle serial tile of the whole loop, not the middle thread of the middle block.
            if (level >= 2)
                middleOf(s, ceilDiv(s.extent(), serial), serial);
            else
                middleOf(s, ceilDiv(s.extent(), threads * serial), threads * serial); // the blocks
        } else if (level >= 2 && f->location != ComputeLocation::ThreadLevel) {
            middleOf(s, threads, serial);
        }
    }
    return loops;
}

Region State::requiredAt(int producer, int consumerNode, int consumerStage, int level, RequiredMemo *memo) const
{
    // Node and stage indexes stay far below 2^20.
    const uint64_t key = (uint64_t(uint32_t(producer)) << 44) | (uint64_t(uint32_t(consumerNode)) << 24) |
                         (uint64_t(uint32_t(consumerStage)) << 4) | uint64_t(uint32_t(level));
    if (memo)
        if (auto it = memo->find(key); it != memo->end())
            return it->second;
    Region out;
    for (int e : m_dag->node(producer).outgoingEdges) {
        const dag::Edge &edge = m_dag->edge(e);
        if (edge.consumerNode == consumerNode && edge.consumerStage == consumerStage) {
            unionInto(out, m_dag->producerRegion(e, stageLoopsAt(consumerNode, consumerStage, level)));
            continue;
        }
        const FuncSchedule *y = scheduleOf(edge.consumerNode);
        if (y && realizedWithin(edge.consumerNode, consumerNode, consumerStage, level)) {
            // A Func nested in this loop nest reads the producer over all its realizations in one
            // iteration of the level: a thread-level Func over every thread of the block at level 1,
            // over every point of the thread at level 2 when computed inside the serial loop (and at
            // level 3, one point of that loop, over its one realization there). One nested deeper,
            // inside another Func of this loop nest, over what this level needs of it.
            Region nested;
            if (y->consumer != consumerNode) {
                const Region ry = requiredAt(edge.consumerNode, consumerNode, consumerStage, level, memo);
                nested =
                    ry.empty() ? computedRegion(edge.consumerNode) : m_dag->requiredToComputed(edge.consumerNode, ry);
            } else if (level == 2) {
                nested = regionPerThread(edge.consumerNode);
            } else if (level == 1 && y->location == ComputeLocation::ThreadLevel) {
                nested = regionPerBlock(edge.consumerNode);
            } else {
                nested = computedRegion(edge.consumerNode);
            }
            unionInto(out, m_dag->producerRegion(e, m_dag->loopBounds(edge.consumerNode, edge.consumerStage, nested)));
            continue;
        }
        // Halide's LoopNest::get_bounds inside a kernel also counts a consumer computed elsewhere,
        // or not scheduled yet, when this stage reads that consumer (Stage::downstream_of, which
        // asks nothing of the consumer's schedule): the region this stage needs of it, and so of
        // the producer through it.
        const bool inlined = y && y->location == ComputeLocation::Inlined;
        if (!inlined && !(level >= 1 && m_dag->stageReads(consumerNode, consumerStage, edge.consumerNode)))
            continue;
        const Region ry = requiredAt(edge.consumerNode, consumerNode, consumerStage, level, memo);
        if (ry.empty())
            continue;
        const Region cy = m_dag->requiredToComputed(edge.consumerNode, ry);
        unionInto(out, m_dag->producerRegion(e, m_dag->loopBounds(edge.consumerNode, edge.consumerStage, cy)));
    }
    if (memo)
        memo->emplace(key, out);
    return out;
}

int64_t State::numBlocks(int node, int stage) const
{
    const FuncSchedule *f = scheduleOf(node);
    if (!f || f->location != ComputeLocation::Root || f->stages.empty())
        return 1;
    const StageTiling &t = f->stages[static_cast<size_t>(stage)];
    const Region &loops = m_dag->rootLoops(node, stage);
    int64_t blocks = 1;
    for (size_t j = 0; j < loops.size(); j++)
        blocks *= ceilDiv(loops[j].extent(), t.threads[j] * t.serial[j]);
    return blocks;
}

int64_t State::numThreads(int node, int stage) const
{
    const FuncSchedule *f = scheduleOf(node);
    if (!f || f->stages.empty() || f->location == ComputeLocation::ThreadLevel)
        return 1;
    int64_t threads = 1;
    for (int64_t t : f->stages[static_cast<size_t>(stage)].threads)
        threads *= t;
    return threads;
}

std::pair<int, int> State::kernelOf(int node) const
{
    const FuncSchedule *f = scheduleOf(node);
    if (!f || f->location == ComputeLocation::Root || f->location == ComputeLocation::Inlined)
        return {-1, 0};
    const FuncSchedule *c = scheduleOf(f->consumer);
    if (c && c->location != ComputeLocation::Root)
        return kernelOf(f->consumer);
    return {f->consumer, f->consumerStage};
}

std::pair<int, int> State::threadLoopOf(int node) const
{
    const FuncSchedule *f = scheduleOf(node);
    if (!f || f->location != ComputeLocation::ThreadLevel)
        return {-1, 0};
    if (scheduleOf(f->consumer)->location == ComputeLocation::ThreadLevel)
        return threadLoopOf(f->consumer);
    return {f->consumer, f->consumerStage};
}

namespace {

// The level of its consumer's loops a Func computed inside a kernel sits at: the block loop (1), the
// thread loop (2) or the serial loop (3).
int placementLevel(const FuncSchedule &f)
{
    return f.location == ComputeLocation::BlockLevel ? 1 : f.insideSerialLoop ? 3 : 2;
}

// The first of its own loops: a root Func's block loop, a block-level Func's thread loop, a
// thread-level Func's serial loop.
int firstOwnLevel(const FuncSchedule &f)
{
    return f.location == ComputeLocation::BlockLevel ? 2 : f.location == ComputeLocation::ThreadLevel ? 3 : 1;
}

bool nestedInKernel(const FuncSchedule *f)
{
    return f && (f->location == ComputeLocation::BlockLevel || f->location == ComputeLocation::ThreadLevel);
}

} // namespace

LoopPath State::realizationPath(int node) const
{
    const FuncSchedule *f = scheduleOf(node);
    if (!nestedInKernel(f))
        return {};
    const FuncSchedule &c = *scheduleOf(f->consumer);
    LoopPath p = realizationPath(c.node);
    for (int level = firstOwnLevel(c); level <= placementLevel(*f); level++)
        p.push_back({c.node, f->consumerStage, level});
    return p;
}

LoopPath State::innermostPath(int node, int stage) const
{
    LoopPath path = realizationPath(node);
    for (int level = firstOwnLevel(*scheduleOf(node)); level <= 4; level++)
        path.push_back({node, stage, level});
    return path;
}

bool State::realizedWithin(int node, int consumerNode, int consumerStage, int level) const
{
    for (const FuncSchedule *f = scheduleOf(node); nestedInKernel(f); f = scheduleOf(f->consumer))
        if (f->consumer == consumerNode)
            return f->consumerStage == consumerStage && placementLevel(*f) >= level;
    return false;
}

int64_t State::sharedBytesPerBlock(int rootNode, int rootStage) const
{
    int64_t bytes = 0;
    for (const FuncSchedule &f : m_funcs) {
        const auto [kernel, kernelStage] = kernelOf(f.node);
        if (kernel != rootNode || (rootStage >= 0 && kernelStage != rootStage))
            continue;
        // Halide's thread-level Func realized at root sits in the block's store_at set too, and
        // LoopNest::get_sites adds that per-block allocation to the block's total.
        if (f.location != ComputeLocation::BlockLevel &&
            !(f.location == ComputeLocation::ThreadLevel && f.storedAtRoot))
            continue;
        int64_t b = m_dag->node(f.node).bytesPerPoint;
        for (const Span &s : regionPerBlock(f.node))
            b *= s.extent();
        bytes += b;
    }
    return bytes;
}

Region State::regionPerThread(int node) const
{
    const FuncSchedule *f = scheduleOf(node);
    if (!f || f->location != ComputeLocation::ThreadLevel || !f->insideSerialLoop)
        return computedRegion(node);
    const Region perThread = requiredAt(node, f->consumer, f->consumerStage, 2);
    return perThread.empty() ? computedRegion(node) : m_dag->requiredToComputed(node, perThread);
}

Region State::regionPerBlock(int node) const
{
    const FuncSchedule *f = scheduleOf(node);
    if (!f || f->location != ComputeLocation::ThreadLevel)
        return computedRegion(node);
    // Inside a thread-level Func's serial loop, the block is its kernel's (a thread-level Func's
    // level 1 is one realization of it).
    const bool inThreadLevelFunc = scheduleOf(f->consumer)->location == ComputeLocation::ThreadLevel;
    const auto [blockNode, blockStage] = inThreadLevelFunc ? kernelOf(node) : std::pair{f->consumer, f->consumerStage};
    const Region perBlock = requiredAt(node, blockNode, blockStage, 1);
    return perBlock.empty() ? computedRegion(node) : m_dag->requiredToComputed(node, perBlock);
}

int64_t State::threadsPerBlockOfKernel(int rootNode, int rootStage) const
{
    int64_t threads = 0;
    const FuncSchedule *r = scheduleOf(rootNode);
    if (!r)
        return 0;
    for (size_t s = 0; s < r->stages.size(); s++)
        if (rootStage < 0 || static_cast<int>(s) == rootStage)
            threads = std::max(threads, numThreads(rootNode, static_cast<int>(s)));
    for (const FuncSchedule &f : m_funcs)
        if (f.location == ComputeLocation::BlockLevel && f.consumer == rootNode &&
            (rootStage < 0 || f.consumerStage == rootStage))
            for (size_t s = 0; s < f.stages.size(); s++)
                threads = std::max(threads, numThreads(f.node, static_cast<int>(s)));
    return threads;
}

std::string State::legalityProblem(int maxThreadsPerBlock, int64_t sharedMemoryLimitBytes, int activeWarpLimit) const
{
    for (const FuncSchedule &f : m_funcs) {
        const std::string &name = m_dag->node(f.node).name;
        if (f.location == ComputeLocation::Inlined)
            continue;
        if (f.location != ComputeLocation::Root) {
            // Inside a compute_root stage; a thread-level Func also in a block-level Func's thread or
            // serial loop, or in a thread-level Func's serial loop.
            const FuncSchedule *c = scheduleOf(f.consumer);
            const bool nestedInKernel = c && f.location == ComputeLocation::ThreadLevel &&
                                        (c->location == ComputeLocation::BlockLevel ||
                                         (c->location == ComputeLocation::ThreadLevel && f.insideSerialLoop));
            if (!c || (c->location != ComputeLocation::Root && !nestedInKernel))
                return name + " is computed inside " + m_dag->node(f.consumer).name +
                       ", which is not compute_root: Beamscope computes a Func there only at a block-level Func's "
                       "thread or serial loop or inside a thread-level Func's serial loop";
        }
        for (size_t s = 0; s < f.stages.size(); s++) {
            const StageTiling &t = f.stages[s];
            const Region loops = stageLoops(f.node, static_cast<int>(s));
            if (t.threads.size() != loops.size() || t.serial.size() != loops.size())
                return name + " stage " + std::to_string(s) + ": tiling does not match its loops";
            for (size_t j = 0; j < loops.size(); j++) {
                if (t.threads[j] < 1 || t.serial[j] < 1)
                    return name + ": non-positive tile";
                if (f.location != ComputeLocation::Root && t.threads[j] * t.serial[j] < loops[j].extent())
                    return name + ": tile does not cover its loop " + std::to_string(j);
            }
        }
        if (f.location != ComputeLocation::Root)
            continue;
        const int64_t threads = threadsPerBlockOfKernel(f.node);
        if (threads > maxThreadsPerBlock)
            return name + ": " + std::to_string(threads) + " threads per block > " + std::to_string(maxThreadsPerBlock);
        if ((threads + 31) / 32 > activeWarpLimit)
            return name + ": more warps per block than the active warp limit";
        // Per stage: each stage of a root Func is a kernel of its own (Halide's
        // exceeds_shared_memory_limit checks every loop nest at root).
        for (size_t s = 0; s < f.stages.size(); s++) {
            const int64_t shared = sharedBytesPerBlock(f.node, static_cast<int>(s));
            if (shared > sharedMemoryLimitBytes)
                return name + ": " + std::to_string(shared) + " bytes of shared memory per block > " +
                       std::to_string(sharedMemoryLimitBytes);
        }
    }
    return {};
}

std::vector<PlainStageNest> State::plainTree() const
{
    auto nestOf = [&](const FuncSchedule &f, int s) {
        const dag::Node &n = m_dag->node(f.node);
        const dag::Stage &st = n.stages[static_cast<size_t>(s)];
        PlainStageNest p;
        p.func = n.name;
        p.stage = s;
        p.memory = f.storageMemory();
        p.computeAt = f.location == ComputeLocation::Root ? "root"
                      : f.location == ComputeLocation::Inlined
                          ? "inline"
                          : m_dag->node(f.consumer).name + (f.location == ComputeLocation::BlockLevel ? ".block"
                                                            : f.insideSerialLoop                      ? ".serial"
                                                                                                      : ".thread");
        if (f.stages.empty())
            return p;
        const StageTiling &t = f.stages[static_cast<size_t>(s)];
        const Region loops = stageLoops(f.node, s);
        // Outermost first: blocks (Root only), threads, serial; each group outer loop first.
        if (f.location == ComputeLocation::Root)
            for (size_t j = loops.size(); j-- > 0;) {
                const int64_t b = ceilDiv(loops[j].extent(), t.threads[j] * t.serial[j]);
                if (b > 1 || t.threads[j] * t.serial[j] < loops[j].extent())
                    p.loops.push_back(
                        PlainLoop{st.loop[j].var, b, t.threads[j] * t.serial[j], PlainLoop::Kind::GpuBlock});
            }
        for (size_t j = loops.size(); j-- > 0;)
            if (t.threads[j] > 1)
                p.loops.push_back(
                    PlainLoop{st.loop[j].var + "i", t.threads[j], t.serial[j], PlainLoop::Kind::GpuThread});
        for (size_t j = loops.size(); j-- > 0;)
            if (t.serial[j] > 1)
                p.loops.push_back(PlainLoop{st.loop[j].var + "ii", t.serial[j], 1,
                                            t.unrolled ? PlainLoop::Kind::Unrolled : PlainLoop::Kind::Serial});
        return p;
    };
    // A stage with the Funcs computed inside it, and theirs (a block-level or thread-level Func may hold some).
    std::function<PlainStageNest(const FuncSchedule &, int)> withInner = [&](const FuncSchedule &f, int s) {
        PlainStageNest p = nestOf(f, s);
        for (const FuncSchedule &g : m_funcs)
            if ((g.location == ComputeLocation::BlockLevel || g.location == ComputeLocation::ThreadLevel) &&
                g.consumer == f.node && g.consumerStage == s)
                for (size_t gs = 0; gs < g.stages.size(); gs++)
                    p.inner.push_back(withInner(g, static_cast<int>(gs)));
        return p;
    };
    std::vector<PlainStageNest> out;
    for (const FuncSchedule &f : m_funcs) {
        if (f.location == ComputeLocation::Inlined)
            out.push_back(nestOf(f, 0));
        else if (f.location == ComputeLocation::Root)
            for (size_t s = 0; s < f.stages.size(); s++)
                out.push_back(withInner(f, static_cast<int>(s)));
    }
    return out;
}

std::string State::dump() const
{
    std::ostringstream os;
    std::function<void(const PlainStageNest &, int)> print = [&](const PlainStageNest &p, int indent) {
        const std::string pad(static_cast<size_t>(indent), ' ');
        if (p.computeAt == "inline") {
            os << pad << "inline: " << p.func << "\n";
            return;
        }
        os << pad << "realize: " << p.func << "_s" << p.stage << " at " << p.computeAt << " in "
           << memoryTypeName(p.memory) << " memory\n";
        int depth = indent;
        for (const PlainLoop &l : p.loops) {
            os << std::string(static_cast<size_t>(depth + 1), ' ') << "for " << l.var << " in [0, " << l.extent << ") "
               << plainLoopKindName(l.kind) << "\n";
            depth++;
        }
        for (const PlainStageNest &q : p.inner)
            print(q, depth + 1);
        os << std::string(static_cast<size_t>(depth + 1), ' ') << p.func << "_s" << p.stage << "(...) = ...\n";
    };
    for (const PlainStageNest &p : plainTree())
        print(p, 0);
    for (size_t i = m_funcs.size(); i < m_dag->scheduleOrder().size(); i++)
        os << "unscheduled: " << m_dag->node(m_dag->scheduleOrder()[i]).name << "\n";
    return os.str();
}

namespace {

// Appends the entries of a loop nest in print order; the tree is linked from the indents at the
// end, as when the dump is read back (loop_nest_text.h), so the text and the tree are one thing.
class NestBuilder {
public:
    void root()
    {
        NestEntry e = entry(NestLineKind::Root, 1, {});
        m_nest.entries.push_back(std::move(e));
    }
    void realize(int indent, std::string func, const Region &r, const std::vector<bool> &constant, int stages)
    {
        NestEntry e = entry(NestLineKind::Realize, indent, std::move(func));
        for (size_t j = 0; j < r.size(); j++)
            e.extents.push_back(LoopSize{r[j].extent(), false, j < constant.size() && constant[j]});
        e.stages = stages;
        m_nest.entries.push_back(std::move(e));
    }
    // sizes[vectorizedSize] is marked 'v' (-1: none); vectorLoop and vectorDim are the "(v, d)" pair.
    void loop(int indent, std::string func, const std::vector<int64_t> &sizes, int vectorizedSize,
              const std::vector<bool> &constant, std::pair<int, int> vector, bool innermost, const char *label)
    {
        NestEntry e = entry(NestLineKind::Loop, indent, std::move(func));
        for (size_t j = 0; j < sizes.size(); j++)
            e.sizes.push_back(LoopSize{sizes[j], static_cast<int>(j) == vectorizedSize, constant[j]});
        e.vectorLoop = vector.first;
        e.vectorDim = vector.second;
        e.innermost = innermost;
        e.tileable = !innermost;
        e.label = label;
        m_nest.entries.push_back(std::move(e));
    }
    void inlined(int indent, std::string func, int64_t calls)
    {
        NestEntry e = entry(NestLineKind::Inlined, indent, std::move(func));
        e.calls = calls;
        m_nest.entries.push_back(std::move(e));
    }
    LoopNestText take()
    {
        m_nest.error = linkLoopNestEntries(m_nest.entries);
        if (!m_nest.error.empty())
            throw std::logic_error("State::halideLoopNestTree: " + m_nest.error);
        return std::move(m_nest);
    }

private:
    NestEntry entry(NestLineKind kind, int indent, std::string func) const
    {
        NestEntry e;
        e.kind = kind;
        e.line = static_cast<int>(m_nest.entries.size()) + 1;
        e.indent = indent;
        e.func = std::move(func);
        return e;
    }
    LoopNestText m_nest;
};

} // namespace

std::string State::halideLoopNest() const { return printLoopNestText(halideLoopNestTree()); }

LoopNestText State::halideLoopNestTree() const
{
    NestBuilder out;
    // Names as a fresh Halide process prints them.
    auto funcName = [&](int node) { return m_dag->dumpName(node); };
    auto vectorPair = [&](const FuncSchedule &f, int s) {
        const StageTiling &t = f.stages[static_cast<size_t>(s)];
        // A stage without loops vectorizes nothing, whatever its tiling says: Halide prints (-1, 0).
        const bool vectorized = t.hasVectorLoop && m_dag->loopCount(f.node, s) > 0;
        return std::pair<int, int>(vectorized ? t.vectorLoop : -1,
                                   vectorized ? m_dag->vectorDim(f.node, s, t.vectorLoop) : 0);
    };
    // The 'c' marks: the extents Halide's bounds make constant at each loop (dump_constancy.h).
    DumpConstancy constancy(*this);
    auto realize = [&](int node, const Region &r, const std::vector<bool> &constant, int indent) {
        out.realize(indent, funcName(node), r, constant, static_cast<int>(m_dag->node(node).stages.size()));
    };
    // Calls of an inlined Func per point of a stage, through other inlined Funcs (Halide's count).
    std::function<int64_t(int, int, int)> inlinedCalls = [&](int producer, int node, int stage) -> int64_t {
        int64_t calls = 0;
        for (int e : m_dag->node(producer).outgoingEdges) {
            const dag::Edge &edge = m_dag->edge(e);
            if (edge.consumerNode == node && edge.consumerStage == stage)
                calls += edge.calls;
            else if (const FuncSchedule *y = scheduleOf(edge.consumerNode);
                     y && y->location == ComputeLocation::Inlined)
                calls += inlinedCalls(edge.consumerNode, node, stage) * edge.calls;
        }
        return calls;
    };
    std::vector<int> inlined; // node order, as Halide's map prints them
    for (int n = 0; n < m_dag->nodeCount(); n++)
        if (const FuncSchedule *f = scheduleOf(n); f && f->location == ComputeLocation::Inlined)
            inlined.push_back(n);
    auto innermost = [&](const FuncSchedule &f, int s, int indent) {
        const StageTiling &t = f.stages[static_cast<size_t>(s)];
        const std::vector<int64_t> one(t.serial.size(), 1);
        const std::vector<bool> constant(t.serial.size(), true);
        out.loop(indent, funcName(f.node), one, t.hasVectorLoop ? t.vectorLoop : -1, constant, vectorPair(f, s), true,
                 "gpu_simd");
        for (int n : inlined)
            if (const int64_t calls = inlinedCalls(n, f.node, s); calls > 0)
                out.inlined(indent + 1, funcName(n), calls);
    };
    // Thread (unless thread level) / serial / innermost lines of one stage at `indent`.
    std::function<void(const FuncSchedule &, int, int)> innerLevels;
    innerLevels = [&](const FuncSchedule &f, int s, int indent) {
        const StageTiling &t = f.stages[static_cast<size_t>(s)];
        if (f.location != ComputeLocation::ThreadLevel) {
            out.loop(indent, funcName(f.node), t.threads, -1, constancy.threadLoop(f, s), vectorPair(f, s), false,
                     "gpu_thread");
            indent++;
            // Stored at this thread loop: the thread-level Funcs computed in it, and those computed
            // further in, in its serial loop or in a thread-level Func's, that are also stored at
            // root (Halide puts them in every store_at set on their way), with what a thread needs.
            auto inThisThread = [&](const FuncSchedule &g) {
                if (g.location != ComputeLocation::ThreadLevel)
                    return false;
                const bool direct = g.consumer == f.node && g.consumerStage == s;
                return threadLoopOf(g.node) == std::pair<int, int>(f.node, s) && (direct || g.storedAtRoot);
            };
            for (const FuncSchedule &g : m_funcs)
                if (inThisThread(g))
                    realize(g.node, regionPerThread(g.node), constancy.realizedAt(g.node, LoopLevel{f.node, s, 2}),
                            indent);
            // Then the loops of the ones computed right here, last computed first.
            for (size_t k = m_funcs.size(); k-- > 0;) {
                const FuncSchedule &g = m_funcs[k];
                if (g.location == ComputeLocation::ThreadLevel && !g.insideSerialLoop && g.consumer == f.node &&
                    g.consumerStage == s)
                    for (size_t gs = 0; gs < g.stages.size(); gs++)
                        innerLevels(g, static_cast<int>(gs), indent);
            }
        }
        out.loop(indent, funcName(f.node), t.serial, -1, constancy.serialLoop(f, s), vectorPair(f, s), false,
                 "gpu_serial");
        indent++;
        // Funcs computed in this serial loop: their realizations, then their loops, last
        // computed first (Halide prints a loop's children in reverse), before the stage's innermost.
        auto inThisSerial = [&](const FuncSchedule &g) {
            return g.location == ComputeLocation::ThreadLevel && g.insideSerialLoop && g.consumer == f.node &&
                   g.consumerStage == s;
        };
        for (const FuncSchedule &g : m_funcs)
            if (inThisSerial(g))
                realize(g.node, computedRegion(g.node), constancy.realizedAt(g.node, LoopLevel{f.node, s, 3}), indent);
        for (size_t k = m_funcs.size(); k-- > 0;)
            if (inThisSerial(m_funcs[k]))
                for (size_t gs = 0; gs < m_funcs[k].stages.size(); gs++)
                    innerLevels(m_funcs[k], static_cast<int>(gs), indent);
        innermost(f, s, indent);
    };
    out.root();
    for (const FuncSchedule &f : m_funcs)
        if (f.location == ComputeLocation::Root || (f.location != ComputeLocation::Inlined && f.storedAtRoot))
            realize(f.node, m_dag->rootComputed(f.node), m_dag->constancy().rootComputed(f.node), 0);
    // Halide prints the root's children last-scheduled first.
    for (size_t i = m_funcs.size(); i-- > 0;) {
        const FuncSchedule &f = m_funcs[i];
        if (f.location != ComputeLocation::Root)
            continue;
        for (size_t s = 0; s < f.stages.size(); s++) {
            const StageTiling &t = f.stages[s];
            const Region &loops = m_dag->rootLoops(f.node, static_cast<int>(s));
            std::vector<int64_t> blocks;
            const std::vector<bool> &constant = m_dag->constancy().rootLoops(f.node, static_cast<int>(s));
            for (size_t j = 0; j < loops.size(); j++)
                blocks.push_back(ceilDiv(loops[j].extent(), t.threads[j] * t.serial[j]));
            // Halide's phase 0 of a root Func (awaitingGpuTiling): one gpu_none loop over the
            // stage's extents (its blocks, threads and serial being 1) around the innermost point.
            out.loop(0, funcName(f.node), blocks, -1, constant, vectorPair(f, static_cast<int>(s)), false,
                     f.awaitingGpuTiling ? "gpu_none" : "gpu_block");
            if (f.awaitingGpuTiling) {
                innermost(f, static_cast<int>(s), 1);
                continue;
            }
            // The block's store_at set prints in node order, its loops last-scheduled first (as at root):
            // the block-level Funcs, and the thread-level ones anywhere in the kernel that Halide also
            // stores at root, with what one block needs of them.
            auto inThisBlock = [&](const FuncSchedule &g) {
                return g.location == ComputeLocation::BlockLevel && g.consumer == f.node &&
                       g.consumerStage == static_cast<int>(s);
            };
            const LoopLevel block{f.node, static_cast<int>(s), 1};
            for (const FuncSchedule &g : m_funcs)
                if (inThisBlock(g))
                    realize(g.node, computedRegion(g.node), constancy.realizedAt(g.node, block), 1);
                else if (g.location == ComputeLocation::ThreadLevel && g.storedAtRoot &&
                         kernelOf(g.node) == std::pair<int, int>(f.node, static_cast<int>(s)))
                    realize(g.node, regionPerBlock(g.node), constancy.realizedAt(g.node, block), 1);
            for (size_t k = m_funcs.size(); k-- > 0;)
                if (inThisBlock(m_funcs[k]))
                    for (size_t gs = 0; gs < m_funcs[k].stages.size(); gs++)
                        innerLevels(m_funcs[k], static_cast<int>(gs), 1);
            innerLevels(f, static_cast<int>(s), 1);
        }
    }
    return out.take();
}

} // namespace beamscope::search
