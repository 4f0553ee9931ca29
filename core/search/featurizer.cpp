#include "core/search/featurizer.h"

#include "core/search/dump_constancy.h"
#include "core/search/integer_math.h"

#include "core/search/expr_branching.h"
#include "core/search/gpu_memory_features.h"
#include "core/search/stage_feature_memo.h"
#include "core/search/thread_info.h"
#include "core/search/tiling.h"
#include "core/util/hash_words.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace beamscope::search {

using namespace Halide;
using namespace Halide::Internal;

namespace {

// Where a producer's values live, as a consumer sees them.
struct Site {
    MemoryType memory = MemoryType::Global;
    int vectorDim = -1; // dense storage dim, -1 when not yet known
    bool scheduled = false;
    bool nestedIn = false; // realized inside the consumer's loops
    // An unscheduled Func placed inside a kernel (Featurizer::placeUnscheduledFuncs): realized once
    // per iteration of that loop, `realizations` times, each realization the region `required`
    // (computed: `computed`); `atThreadLoop` when that loop is a thread loop (else a serial one).
    bool placedInKernel = false;
    bool atThreadLoop = false;
    int64_t realizations = 1;
    Region required, computed;
};

// Where Halide places a Func not scheduled yet, as its consumers see it.
struct Placement {
    LoopPath loop;
    MemoryType memory = MemoryType::Global;
    int64_t realizations = 1;
    Region required, computed;
    // How it was found: the loop its consumers meet at (none when no consumer is placed), and the
    // bytes it added to that block's shared memory when it went to a block loop. A child that only
    // retiled a Func off this path places it the same way (Featurizer::placeUnscheduledFuncs).
    std::optional<LoopPath> consumersMeet;
    int64_t sharedBytesAdded = 0;
};

bool operator==(const Placement &a, const Placement &b)
{
    return a.loop == b.loop && a.memory == b.memory && a.realizations == b.realizations && a.required == b.required &&
           a.computed == b.computed;
}

struct StageCtx {
    int node = 0, stage = 0;
    const FuncSchedule *f = nullptr;
    const StageTiling *t = nullptr;
    Region loops;
    int64_t instances = 1;
    int64_t perProduction = 1;
    int64_t serialTotal = 1;
    // The serial iterations of a thread around this stage's realization: the consumer's serial loop
    // for a Func computed inside it, else 1 (Halide's total_inner_serial_extents_outside_realization).
    int64_t serialAroundRealization = 1;
    // Points one GPU thread computes of this stage (Halide's total_serial_extents).
    int64_t threadSerialTotal = 1;
    int64_t blocks = 1;
    int kernelNode = 0, kernelStage = 0;
    ThreadInfo thread;
    int vectorDim = 0;
    int funcVectorDim = 0; // the Func's dense storage dim (Halide's vector_dim, the same for every stage)
    int threadOwnerNode = 0, threadOwnerStage = 0; // the stage whose gpu_thread loop this stage runs in
};

} // namespace

// What a reader of a scheduled Func sees of its schedule: where it is computed and stored, and its
// storage's vector dim. A Func's tiling at root changes nothing else its readers' features take.
struct ScheduledSite {
    ComputeLocation location = ComputeLocation::Root;
    bool storedAtRoot = false, insideSerialLoop = false;
    int consumer = -1, consumerStage = -1, vectorDim = 0;
    bool operator==(const ScheduledSite &) const = default;
};

// Regions an unscheduled Func needs per iteration of a loop (Featurizer::requiredPerIteration), by
// the Func, the loop's stage and level, and that loop's bounds. Within the children of one state
// that retile its last Func, nothing else they depend on differs, so siblings share them: the tilings
// of a Func mostly repeat the same block and thread tiles. Siblings may be featurized on several
// threads.
class SiblingRegions {
public:
    using Key = std::array<int64_t, 16>;
    std::optional<Region> find(const Key &key) const
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_regions.find(key);
        return it == m_regions.end() ? std::nullopt : std::optional<Region>(it->second);
    }
    void add(const Key &key, const Region &r)
    {
        std::lock_guard lock(m_mutex);
        m_regions.emplace(key, r);
    }

private:
    struct Hash {
        size_t operator()(const Key &k) const { return hashWords(k); }
    };
    mutable std::mutex m_mutex;
    std::unordered_map<Key, Region, Hash> m_regions;
};

struct FuncSites {
    std::vector<std::optional<Placement>> placements;    // by node: the Funcs not scheduled
    std::map<std::pair<int, int>, int64_t> sharedBytes;  // (node, stage) of a block loop -> bytes placed there
    std::vector<std::optional<ScheduledSite>> scheduled; // by node: the scheduled Funcs
    mutable SiblingRegions siblingRegions;               // shared by the children that retile
};

namespace {

class Featurizer {
public:
    Featurizer(const State &s, const FeatureParams &p, StageFeatureMemo *memo = nullptr)
        : st(s), d(s.dag()), params(p), stageMemo(memo), dumpConstancy(s)
    {}

    // parent: the featurization of the state this one was made from by deciding its last Func, or null.
    // keepSites: also return the FuncSites (for a state whose children will be featurized).
    Featurization run(const Featurization *parent = nullptr, bool keepSites = false);

private:
    const State &st;
    const SearchDag &d;
    const FeatureParams &params;
    StageFeatureMemo *stageMemo;         // the search depth's, or null
    mutable DumpConstancy dumpConstancy; // which loop extents are constants (unrolled_loop_extent)
    std::vector<ScheduleFeatures> feats; // by cost-model slot (scheduled prefix)
    std::vector<int64_t> pcm;            // points_computed_minimum per slot (all stages)
    std::vector<StageCtx> contexts;      // per scheduled slot, shared by the per-stage and inlined passes
    mutable std::unordered_map<std::string, int> inlinedBranching; // per state: Func name -> branching
    std::vector<std::optional<Placement>> placements;              // by node: unscheduled Funcs
    std::map<std::pair<int, int>, int64_t> placedSharedBytes;      // (node, stage) of a block loop -> bytes
                                                                   // of the unscheduled Funcs placed there
    std::map<int, int> inlinedSiteVectorDim; // inlined Func -> vector dim of its last innermost loop
    // requiredPerIteration by (node, loop): placing the unscheduled Funcs asks for the same regions
    // again and again, each through the same chain of unscheduled consumers.
    mutable std::unordered_map<uint64_t, Region> requiredMemo;
    // The parent's, when this state only retiled the parent's last Func (which has no Func computed
    // inside it), else null.
    SiblingRegions *siblingRegions = nullptr;
    mutable State::RequiredMemo requiredAtMemo; // State::requiredAt on this (unchanged) state

    ScheduleFeatures *featOf(int node, int stage)
    {
        const int slot = d.stageSlot(node, stage);
        return slot >= 0 && slot < static_cast<int>(feats.size()) ? &feats[static_cast<size_t>(slot)] : nullptr;
    }
    Site siteOf(int producer, int consumerNode) const;
    void innermostsInlinedInto(int inlinedNode, std::vector<LoopPath> &out) const;
    Region requiredPerIteration(int node, const LoopPath &loop) const;
    Region computedPerIteration(int node, const LoopPath &loop) const;
    int64_t iterationsOf(const LoopPath &loop) const;
    LoopPath deepestValidLocation(int node, const LoopPath &loop, int64_t &sharedBytesAdded);
    void placeUnscheduledFuncs(const FuncSites *before);
    StageCtx context(const FuncSchedule &f, int stage) const;
    // The non-inlined Funcs and inputs a stage reads, directly or through inlined Funcs, each once.
    void collectProducersRead(int node, int stage, std::vector<int> &out) const;
    int branching(int node, const std::vector<int> &inlined);
    std::vector<int> inlinedInto(int node, int stage) const;
    std::string branchingKey(int node, const std::vector<int> &inlined) const;
    void memoryFeatures(const StageCtx &c, ScheduleFeatures &feat) const;
    int64_t pointsAccessedPerThread(const StageCtx &c, const ScheduleFeatures &feat, std::span<const int> chain,
                                    const RationalJacobian &thread, const RationalJacobian &serial, bool scheduled,
                                    int innermostDim, MemoryType memory) const;
    SmallVector<int64_t, 6> storeSiteExtents(int node) const;
    bool loopsHaveConstantExtent(const StageCtx &c) const;
    void computePointsComputedMinimum();
    struct StageBytes {
        double bytes = 0, innermostBytes = 0;
    };
    void stageFeatures(const StageCtx &c, ScheduleFeatures &feat);
    StageFeatureMemo::Key stageFeatureKey(const FuncSchedule &f) const;
    bool memoizedStageFeatures(const FuncSchedule &f);
    void pointFeatures(const StageCtx &c, ScheduleFeatures &feat) const;
    void parallelismFeatures(const StageCtx &c, ScheduleFeatures &feat) const;
    StageBytes footprintFeatures(const StageCtx &c, ScheduleFeatures &feat) const;
    void loadFeatures(const StageCtx &c, const StageBytes &own, ScheduleFeatures &feat) const;
    void taskLoadFeatures(const StageCtx &c, ScheduleFeatures &feat) const;
    void occupancyFeatures(const StageCtx &c, ScheduleFeatures &feat) const;
    void inlinedFeatures();
    void workingSets();
    bool readsChanged(const FuncSchedule &f, int decided, bool decidedSiteKept, const FuncSites &before) const;
    std::optional<ScheduledSite> scheduledSite(int node) const;
    bool readsInlined(int node, int stage) const;
    std::vector<char> kernelsToRecompute(const FuncSites *before) const;
    const FuncSites *retilingParentSites(const Featurization &parent) const;
};

Site Featurizer::siteOf(int producer, int consumerNode) const
{
    Site s;
    const dag::Node &n = d.node(producer);
    if (n.isInput) {
        s.vectorDim = 0;
        s.scheduled = true;
        return s;
    }
    const FuncSchedule *f = st.scheduleOf(producer);
    if (!f) {
        if (!placements[static_cast<size_t>(producer)])
            return s;
        const Placement &p = *placements[static_cast<size_t>(producer)];
        s.memory = p.memory;
        s.placedInKernel = !p.loop.empty();
        s.atThreadLoop = !p.loop.empty() && p.loop.back().level == 2;
        s.realizations = p.realizations;
        s.required = p.required;
        s.computed = p.computed;
        return s;
    }
    s.scheduled = true;
    s.memory = f->featureMemory();
    s.nestedIn = f->location != ComputeLocation::Root && f->consumer == consumerNode;
    if (!f->stages.empty())
        s.vectorDim = d.vectorDim(producer, 0, f->stages[0].vectorLoop);
    return s;
}

// Halide's inlined_innermosts: the innermost loops of the scheduled stages an inlined Func is
// inlined into, directly or through other inlined Funcs.
void Featurizer::innermostsInlinedInto(int inlinedNode, std::vector<LoopPath> &out) const
{
    for (int e : d.node(inlinedNode).outgoingEdges) {
        const dag::Edge &edge = d.edge(e);
        const FuncSchedule *y = st.scheduleOf(edge.consumerNode);
        if (!y)
            continue;
        if (y->location == ComputeLocation::Inlined) {
            innermostsInlinedInto(edge.consumerNode, out);
            continue;
        }
        LoopPath leaf = st.innermostPath(edge.consumerNode, edge.consumerStage);
        if (std::find(out.begin(), out.end(), leaf) == out.end())
            out.push_back(std::move(leaf));
    }
}

// The region of `node` one iteration of `loop` needs (Halide's get_bounds there): what the stage
// owning the loop and the Funcs nested in it read, plus, as Halide's bounds follow every consumer
// the loop's stage depends on, what unscheduled consumers placed there read.
Region Featurizer::requiredPerIteration(int node, const LoopPath &loop) const
{
    if (loop.empty())
        return d.rootRequired(node);
    const LoopLevel &l = loop.back();
    // The region depends on the loop's stage and level only (levels 3 and 4 alike).
    const uint64_t key = (uint64_t(uint32_t(node)) << 40) | (uint64_t(uint32_t(l.node)) << 18) |
                         (uint64_t(uint32_t(l.stage)) << 2) | uint64_t(std::min(l.level, 3));
    if (auto it = requiredMemo.find(key); it != requiredMemo.end())
        return it->second;
    SiblingRegions::Key siblingKey{};
    bool shared = false;
    if (siblingRegions) {
        const Region box = st.stageLoopsAt(l.node, l.stage, std::min(l.level, 3));
        if (box.size() <= 6) {
            shared = true;
            siblingKey[0] = node;
            siblingKey[1] = l.node;
            siblingKey[2] = l.stage;
            siblingKey[3] = std::min(l.level, 3) | int64_t(box.size()) << 8;
            for (size_t i = 0; i < box.size(); i++) {
                siblingKey[4 + 2 * i] = box[i].min;
                siblingKey[5 + 2 * i] = box[i].max;
            }
            if (std::optional<Region> known = siblingRegions->find(siblingKey)) {
                requiredMemo.emplace(key, *known);
                return *known;
            }
        }
    }
    Region r = st.requiredAt(node, l.node, l.stage, std::min(l.level, 3), &requiredAtMemo);
    for (int e : d.node(node).outgoingEdges) {
        const dag::Edge &edge = d.edge(e);
        if (st.scheduleOf(edge.consumerNode) || !d.nodeReads(l.node, edge.consumerNode))
            continue;
        const Region consumer = requiredPerIteration(edge.consumerNode, loop);
        if (consumer.empty())
            continue;
        const Region loops =
            d.loopBounds(edge.consumerNode, edge.consumerStage, d.requiredToComputed(edge.consumerNode, consumer));
        const Region mine = d.producerRegion(e, loops);
        if (r.empty())
            r = mine;
        else
            for (size_t i = 0; i < r.size() && i < mine.size(); i++)
                r[i] = Span{std::min(r[i].min, mine[i].min), std::max(r[i].max, mine[i].max)};
    }
    requiredMemo.emplace(key, r);
    if (shared)
        siblingRegions->add(siblingKey, r);
    return r;
}

Region Featurizer::computedPerIteration(int node, const LoopPath &loop) const
{
    if (loop.empty())
        return d.rootComputed(node);
    const Region r = requiredPerIteration(node, loop);
    return r.empty() ? d.rootComputed(node) : d.requiredToComputed(node, r);
}

// Halide's total_loop_extents_of_ancestors: the iterations of the loop and of every loop around it.
int64_t Featurizer::iterationsOf(const LoopPath &loop) const
{
    int64_t total = 1;
    for (const LoopLevel &l : loop) {
        const FuncSchedule &f = *st.scheduleOf(l.node);
        const StageTiling &t = f.stages[static_cast<size_t>(l.stage)];
        if (l.level == 1) {
            total *= st.numBlocks(l.node, l.stage);
        } else if (l.level == 2) {
            for (int64_t n : t.threads)
                total *= n;
        } else if (l.level == 3) {
            for (int64_t n : t.serial)
                total *= n;
        }
    }
    return total;
}

namespace {

// Halide's State::deepest_common_ancestor, including its habit of returning the parent of `a` or
// `b` when one of them lies on the other's path.
LoopPath deepestCommonAncestor(LoopPath a, LoopPath b)
{
    if (a.empty())
        return a;
    if (b.empty())
        return b;
    if (a == b)
        return a;
    const size_t depth = std::min(a.size(), b.size());
    a.resize(depth);
    b.resize(depth);
    do {
        a.pop_back();
        b.pop_back();
    } while (!(a == b));
    return a;
}

constexpr int64_t kRegisterAllocationLimitBytes = 128; // Halide's get_register_mem_alloc_limit

} // namespace

// Halide's State::deepest_valid_compute_location: from the root inwards along `loop` (its innermost
// loop excluded), the deepest loop at which the Func's region keeps shrinking, skipping a block loop
// where it would overflow the block's shared memory and thread or serial loops where it would not fit
// in registers.
LoopPath Featurizer::deepestValidLocation(int node, const LoopPath &loop, int64_t &sharedBytesAdded)
{
    LoopPath candidates = loop;
    if (!candidates.empty() && candidates.back().level == 4)
        candidates.pop_back();
    const int64_t bpp = d.node(node).bytesPerPoint;
    LoopPath best;
    int64_t bestVolume = volume(computedPerIteration(node, best));
    int64_t sharedBytes = 0;
    for (size_t k = 1; k <= candidates.size(); k++) {
        const LoopPath here(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(k));
        const LoopLevel &l = here.back();
        const int64_t points = volume(computedPerIteration(node, here));
        const int64_t bytes = bpp * points;
        if (l.level == 1) {
            sharedBytes = bytes;
            // The block's total so far (LoopNest::get_sites), the Funcs placed there before included.
            if (bytes + st.sharedBytesPerBlock(l.node, l.stage) + placedSharedBytes[{l.node, l.stage}] >
                params.sharedMemoryLimitBytes)
                continue;
        } else if (bytes > kRegisterAllocationLimitBytes) {
            continue;
        }
        if (!(points < bestVolume))
            break;
        best = here;
        bestVolume = points;
    }
    sharedBytesAdded = 0;
    if (!best.empty() && best.back().level == 1) {
        placedSharedBytes[{best.back().node, best.back().stage}] += sharedBytes;
        sharedBytesAdded = sharedBytes;
    }
    return best;
}

// Halide's State::compute_featurization gives every Func not scheduled yet a site as deep as it
// could be: at the innermost loop of its consumer (for several consumers, the deepest common
// ancestor of theirs; an inlined consumer counts with every loop it is inlined into, an unscheduled
// one with its own placement), moved out to the deepest valid compute location. Its memory is the
// one of that loop: registers inside a thread loop, shared memory at a block loop, global at root.
//
// before: the parent's sites, when this state only retiled the parent's last Func (a root Func given
// another tiling). A Func whose consumers meet where they met in the parent, on a path through no
// loop of the retiled Func, is placed as it was: everything its placement reads (the regions its
// consumers need per iteration of those loops, their iteration counts, the shared memory of their
// blocks and what the Funcs placed before it added there) lies in other kernels.
void Featurizer::placeUnscheduledFuncs(const FuncSites *before)
{
    placements.assign(static_cast<size_t>(d.nodeCount()), std::nullopt);
    placedSharedBytes.clear();
    const int retiled = before && !st.funcs().empty() ? st.funcs().back().node : -1;
    // A Func computed inside the retiled one has regions that follow its tiling at every level, not
    // only at the level of the loop asked about.
    const bool retiledHasNested = std::any_of(st.funcs().begin(), st.funcs().end(), [&](const FuncSchedule &f) {
        return st.kernelOf(f.node).first == retiled;
    });
    siblingRegions = before && !retiledHasNested ? &before->siblingRegions : nullptr;
    for (int node : d.scheduleOrder()) {
        if (d.node(node).isInput || st.scheduleOf(node))
            continue;
        std::optional<LoopPath> loop;
        auto meet = [&](const LoopPath &l) { loop = loop ? deepestCommonAncestor(l, *loop) : l; };
        for (int e : d.node(node).outgoingEdges) {
            const dag::Edge &edge = d.edge(e);
            const FuncSchedule *y = st.scheduleOf(edge.consumerNode);
            if (!y) {
                const std::optional<Placement> &p = placements[static_cast<size_t>(edge.consumerNode)];
                if (p)
                    meet(p->loop);
            } else if (y->location == ComputeLocation::Inlined) {
                std::vector<LoopPath> innermosts;
                innermostsInlinedInto(edge.consumerNode, innermosts);
                for (const LoopPath &l : innermosts)
                    meet(l);
            } else {
                meet(st.innermostPath(edge.consumerNode, edge.consumerStage));
            }
        }
        if (before && before->placements[static_cast<size_t>(node)]) {
            const Placement &old = *before->placements[static_cast<size_t>(node)];
            const bool offRetiled = !loop || std::none_of(loop->begin(), loop->end(),
                                                          [&](const LoopLevel &l) { return l.node == retiled; });
            if (offRetiled && old.consumersMeet == loop) {
                if (old.sharedBytesAdded != 0)
                    placedSharedBytes[{old.loop.back().node, old.loop.back().stage}] += old.sharedBytesAdded;
                placements[static_cast<size_t>(node)] = old;
                continue;
            }
        }
        Placement p;
        p.consumersMeet = loop;
        if (loop)
            p.loop = deepestValidLocation(node, *loop, p.sharedBytesAdded);
        p.realizations = iterationsOf(p.loop);
        p.required = requiredPerIteration(node, p.loop);
        if (p.required.empty())
            p.required = d.rootRequired(node);
        p.computed = computedPerIteration(node, p.loop);
        p.memory = p.loop.empty()             ? MemoryType::Global
                   : p.loop.back().level == 1 ? MemoryType::Shared
                                              : MemoryType::Register;
        placements[static_cast<size_t>(node)] = std::move(p);
    }
}

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

// Whether a stage of `f` reads, directly or through Funcs inlined or computed inside a kernel (whose
// reads the per-task loads look through), something the decision of `decided` may have changed:
// the decided Func, a Func not scheduled yet that it also reads or whose placement moved, or an
// input it also reads. decidedSiteKept: the decision retiled the Func where it was (its site as
// before), which changes no region its readers or the readers of its producers see.
bool Featurizer::readsChanged(const FuncSchedule &f, int decided, bool decidedSiteKept, const FuncSites &before) const
{
    const auto readBy = [&](int q, int reader) {
        const std::vector<int> &readers = d.consumers(q);
        return std::find(readers.begin(), readers.end(), reader) != readers.end();
    };
    std::vector<int> pending{f.node};
    std::vector<char> seen(static_cast<size_t>(d.nodeCount()), 0);
    seen[static_cast<size_t>(f.node)] = 1;
    while (!pending.empty()) {
        const int n = pending.back();
        pending.pop_back();
        for (const dag::Stage &stage : d.node(n).stages)
            for (int e : stage.incomingEdges) {
                const int q = d.edge(e).producer;
                if (q == decided && !decidedSiteKept)
                    return true;
                const FuncSchedule *g = st.scheduleOf(q);
                if (d.node(q).isInput || !g) {
                    if (!decidedSiteKept && readBy(q, decided))
                        return true;
                    if (!g && !d.node(q).isInput &&
                        !(placements[static_cast<size_t>(q)] == before.placements[static_cast<size_t>(q)]))
                        return true;
                    continue;
                }
                const bool lookThrough = g->location == ComputeLocation::Inlined ||
                                         (g->location != ComputeLocation::Root && !g->storedAtRoot);
                if (lookThrough && !seen[static_cast<size_t>(q)]) {
                    seen[static_cast<size_t>(q)] = 1;
                    pending.push_back(q);
                }
            }
    }
    return false;
}

bool Featurizer::readsInlined(int node, int stage) const
{
    for (int e : d.stage(node, stage).incomingEdges) {
        const FuncSchedule *g = st.scheduleOf(d.edge(e).producer);
        if (g && g->location == ComputeLocation::Inlined)
            return true;
    }
    return false;
}

std::optional<ScheduledSite> Featurizer::scheduledSite(int node) const
{
    const FuncSchedule *f = st.scheduleOf(node);
    if (!f)
        return std::nullopt;
    ScheduledSite s;
    s.location = f->location;
    s.storedAtRoot = f->storedAtRoot;
    s.insideSerialLoop = f->insideSerialLoop;
    s.consumer = f->consumer;
    s.consumerStage = f->consumerStage;
    s.vectorDim = f->stages.empty() ? -1 : d.vectorDim(node, 0, f->stages[0].vectorLoop);
    return s;
}

// By root Func: whether its kernel (its stages and the Funcs computed inside it) must be
// featurized anew in a child of the state `before` was placed for (computeFeatures).
std::vector<char> Featurizer::kernelsToRecompute(const FuncSites *before) const
{
    std::vector<char> dirty(static_cast<size_t>(d.nodeCount()), 1);
    if (!before || before->placements.size() != placements.size())
        return dirty;
    const int decided = st.funcs().back().node;
    const bool decidedSiteKept = before->scheduled[static_cast<size_t>(decided)] &&
                                 before->scheduled[static_cast<size_t>(decided)] == scheduledSite(decided);
    for (const FuncSchedule &f : st.funcs())
        if (f.location == ComputeLocation::Root)
            dirty[static_cast<size_t>(f.node)] = 0;
    for (const FuncSchedule &f : st.funcs()) {
        if (f.location == ComputeLocation::Inlined)
            continue;
        const int kernel = f.location == ComputeLocation::Root ? f.node : st.kernelOf(f.node).first;
        if (f.node == decided || readsChanged(f, decided, decidedSiteKept, *before))
            dirty[static_cast<size_t>(kernel)] = 1;
    }
    // Unscheduled Funcs placed at a kernel's block loop count in its shared memory occupancy (a
    // block with no entry has none placed there).
    const auto bytesIn = [](const std::map<std::pair<int, int>, int64_t> &placed, std::pair<int, int> stage) {
        const auto it = placed.find(stage);
        return it == placed.end() ? int64_t{0} : it->second;
    };
    for (const auto &[stage, bytes] : placedSharedBytes)
        if (bytesIn(before->sharedBytes, stage) != bytes)
            dirty[static_cast<size_t>(stage.first)] = 1;
    for (const auto &[stage, bytes] : before->sharedBytes)
        if (bytesIn(placedSharedBytes, stage) != bytes)
            dirty[static_cast<size_t>(stage.first)] = 1;
    return dirty;
}

// The parent's sites when this state differs from the parent only in the tiling of its last Func,
// computed at root in both (Halide's second step of a Func); else null.
const FuncSites *Featurizer::retilingParentSites(const Featurization &parent) const
{
    const FuncSites *before = parent.sites.get();
    if (!before || st.funcs().empty() || before->placements.size() != static_cast<size_t>(d.nodeCount()))
        return nullptr;
    const FuncSchedule &last = st.funcs().back();
    const std::optional<ScheduledSite> &was = before->scheduled[static_cast<size_t>(last.node)];
    const auto scheduledBefore = std::count_if(before->scheduled.begin(), before->scheduled.end(),
                                               [](const std::optional<ScheduledSite> &s) { return s.has_value(); });
    if (!was || was->location != ComputeLocation::Root || last.location != ComputeLocation::Root ||
        scheduledBefore != static_cast<std::ptrdiff_t>(st.numScheduled()))
        return nullptr;
    return before;
}

// The StageFeatureMemo's key for the stages of `f`, or empty where the memo does not apply. It
// applies to a Func computed at root with nothing computed inside it, none of whose producers
// (directly or further upstream) is scheduled. Then stageFeatures reads, besides the DAG:
//   * the Func's own schedule (its kernel is its stages alone: block shape, blocks, occupancy);
//   * the sites of the Funcs its stages read, which are inputs or unscheduled Funcs: their
//     placements (loop, memory, realizations, regions), made before the stages are featurized;
//   * what those placements added to its blocks' shared memory;
//   * the regions it needs of its producers (State::requiredAt), which follow its own loops alone:
//     a producer's other readers count there only when inlined, computed inside this Func or read
//     by it, and neither can hold of a Func downstream or beside it while everything upstream is
//     unscheduled.
// The placements of the Funcs further upstream are read by nothing but the placements above.
StageFeatureMemo::Key Featurizer::stageFeatureKey(const FuncSchedule &f) const
{
    StageFeatureMemo::Key key;
    if (f.location != ComputeLocation::Root)
        return key;
    for (const FuncSchedule &g : st.funcs()) {
        if (g.node == f.node)
            continue;
        const bool computedInF =
            g.location != ComputeLocation::Root && g.location != ComputeLocation::Inlined && g.consumer == f.node;
        if (computedInF || d.nodeReads(f.node, g.node))
            return key;
    }
    key.push_back(f.node);
    key.push_back(int64_t(f.storedAtRoot) | int64_t(f.insideSerialLoop) << 1);
    for (size_t s = 0; s < f.stages.size(); s++) {
        const StageTiling &t = f.stages[s];
        key.push_back(int64_t(t.threads.size()) | int64_t(t.serial.size()) << 16 | int64_t(t.vectorLoop) << 32 |
                      int64_t(t.hasVectorLoop) << 48 | int64_t(t.unrolled) << 49);
        key.insert(key.end(), t.threads.begin(), t.threads.end());
        key.insert(key.end(), t.serial.begin(), t.serial.end());
        const auto placed = placedSharedBytes.find({f.node, static_cast<int>(s)});
        key.push_back(placed == placedSharedBytes.end() ? 0 : placed->second);
    }
    const auto addRegion = [&](const Region &r) {
        key.push_back(static_cast<int64_t>(r.size()));
        for (const Span &span : r) {
            key.push_back(span.min);
            key.push_back(span.max);
        }
    };
    std::vector<char> seen(static_cast<size_t>(d.nodeCount()), 0);
    for (const dag::Stage &stage : d.node(f.node).stages)
        for (int e : stage.incomingEdges) {
            const int q = d.edge(e).producer;
            if (seen[static_cast<size_t>(q)] || d.node(q).isInput)
                continue;
            seen[static_cast<size_t>(q)] = 1;
            const std::optional<Placement> &p = placements[static_cast<size_t>(q)];
            key.push_back(q);
            key.push_back(p ? static_cast<int64_t>(p->loop.size()) : -1);
            if (!p)
                continue;
            for (const LoopLevel &l : p->loop)
                key.push_back(int64_t(l.node) | int64_t(l.stage) << 24 | int64_t(l.level) << 48);
            key.push_back(static_cast<int64_t>(p->memory));
            key.push_back(p->realizations);
            addRegion(p->required);
            addRegion(p->computed);
        }
    return key;
}

// The stages of `f` featurized through the search depth's memo: taken from it when another beam
// state featurized them in the same setting, else computed and kept there. False, with nothing
// done, where the memo does not apply.
bool Featurizer::memoizedStageFeatures(const FuncSchedule &f)
{
    StageFeatureMemo::Key key = stageFeatureKey(f);
    if (key.empty())
        return false;
    for (size_t s = 0; s < f.stages.size(); s++)
        if (!featOf(f.node, static_cast<int>(s)))
            return false;
    std::vector<ScheduleFeatures> known;
    const bool found = stageMemo->find(key, known);
    for (size_t s = 0; s < f.stages.size(); s++) {
        const size_t slot = static_cast<size_t>(d.stageSlot(f.node, static_cast<int>(s)));
        contexts[slot] = context(f, static_cast<int>(s)); // the inlined Funcs' pass reads it
        if (found)
            feats[slot] = known[s];
        else
            stageFeatures(contexts[slot], feats[slot]);
    }
    if (!found) {
        for (size_t s = 0; s < f.stages.size(); s++)
            known.push_back(feats[static_cast<size_t>(d.stageSlot(f.node, static_cast<int>(s)))]);
        stageMemo->add(std::move(key), std::move(known));
    }
    return true;
}

Featurization Featurizer::run(const Featurization *parent, bool keepSites)
{
    feats.assign(static_cast<size_t>(st.scheduledStageCount()), ScheduleFeatures());
    contexts.assign(feats.size(), StageCtx());
    placeUnscheduledFuncs(parent ? retilingParentSites(*parent) : nullptr);
    computePointsComputedMinimum();
    const std::vector<char> recompute =
        parent && !st.funcs().empty() ? kernelsToRecompute(parent->sites.get()) : std::vector<char>{};
    for (const FuncSchedule &f : st.funcs()) {
        if (f.location == ComputeLocation::Inlined) {
            // Inlined Funcs start from zero counts; their consumers add to them.
            if (ScheduleFeatures *ft = featOf(f.node, 0)) {
                *ft = ScheduleFeatures();
                (*ft)[Feature::NumScalars] = 0;
            }
            continue;
        }
        const int kernel = f.location == ComputeLocation::Root ? f.node : st.kernelOf(f.node).first;
        const bool reuse = !recompute.empty() && !recompute[static_cast<size_t>(kernel)];
        if (!reuse && stageMemo && memoizedStageFeatures(f))
            continue;
        for (size_t s = 0; s < f.stages.size(); s++)
            if (ScheduleFeatures *ft = featOf(f.node, static_cast<int>(s))) {
                const size_t slot = static_cast<size_t>(d.stageSlot(f.node, static_cast<int>(s)));
                StageCtx &c = contexts[slot];
                if (reuse && slot < parent->features.size()) {
                    *ft = parent->features[slot];
                    // The inlined Funcs' pass reads the contexts of the stages they are inlined into.
                    if (readsInlined(f.node, static_cast<int>(s)))
                        c = context(f, static_cast<int>(s));
                } else {
                    c = context(f, static_cast<int>(s));
                    stageFeatures(c, *ft);
                }
            }
    }
    inlinedFeatures();
    workingSets();
    for (size_t slot = 0; slot < feats.size(); slot++) {
        const dag::StageRef &r = d.costStages()[slot];
        feats[slot][Feature::PointsComputedMinimum] = double(pcm[slot]);
        const FuncSchedule *f = st.scheduleOf(r.node);
        if (f && f->location == ComputeLocation::Inlined) {
            double rootBytes = double(d.node(r.node).bytesPerPoint);
            for (const Span &s : d.rootComputed(r.node))
                rootBytes *= double(s.extent());
            feats[slot][Feature::BytesAtRoot] = rootBytes;
            // Halide measures an inlined Func's innermost storage extent along the vector dim of
            // its produce site (the last innermost loop it is inlined into, see inlinedFeatures);
            // a dim the Func does not have (or no dimensions at all) gives an extent of 1.
            const Region &rc = d.rootComputed(r.node);
            const auto site = inlinedSiteVectorDim.find(r.node);
            const int v = site == inlinedSiteVectorDim.end() ? 0 : site->second;
            const bool inRange = v >= 0 && v < static_cast<int>(rc.size());
            feats[slot][Feature::InnermostBytesAtRoot] =
                double(d.node(r.node).bytesPerPoint) * (inRange ? double(rc[static_cast<size_t>(v)].extent()) : 1.0);
        }
    }
    if (!keepSites)
        return Featurization{std::move(feats), nullptr};
    auto kept = std::make_shared<FuncSites>();
    kept->scheduled.resize(placements.size());
    for (const FuncSchedule &f : st.funcs())
        kept->scheduled[static_cast<size_t>(f.node)] = scheduledSite(f.node);
    kept->placements = std::move(placements);
    kept->sharedBytes = std::move(placedSharedBytes);
    return Featurization{std::move(feats), std::move(kept)};
}

bool hasRootAwaitingGpuTiling(const State &state)
{
    return std::any_of(state.funcs().begin(), state.funcs().end(),
                       [](const FuncSchedule &f) { return f.awaitingGpuTiling; });
}

// Halide featurizes a state whose root Funcs are not all tiled yet on a copy of its loop nest in
// which each of them is split into blocks and threads (State::get_root_for_features).
State withUntiledRootsTiledForFeatures(const State &state)
{
    State copy(state.dag());
    for (FuncSchedule f : state.funcs()) {
        if (f.awaitingGpuTiling) {
            const dag::Node &node = state.dag().node(f.node);
            for (size_t s = 0; s < f.stages.size(); s++)
                f.stages[s] = untiledRootFeatureTiling(node.stages[s],
                                                       state.dag().rootLoops(f.node, static_cast<int>(s)), f.stages[s]);
            f.awaitingGpuTiling = false;
        }
        copy.add(std::move(f));
    }
    return copy;
}

} // namespace

std::vector<UnscheduledSite> unscheduledSites(const Featurization &featurization)
{
    std::vector<UnscheduledSite> out;
    if (!featurization.sites)
        return out;
    const std::vector<std::optional<Placement>> &placements = featurization.sites->placements;
    for (size_t n = 0; n < placements.size(); n++)
        if (placements[n])
            out.push_back({static_cast<int>(n), placements[n]->loop, placements[n]->realizations});
    return out;
}

std::vector<ScheduleFeatures> computeFeatures(const State &state, const FeatureParams &params)
{
    return computeFeatures(state, params, nullptr).features;
}

namespace {

bool checkingFeatureReuse()
{
    static const bool checking = std::getenv("BEAMSCOPE_CHECK_FEATURE_REUSE") != nullptr;
    return checking;
}

// Throws where the features a child took from its parent differ from its own, bit for bit.
void checkReuse(const State &state, const std::vector<ScheduleFeatures> &reused,
                const std::vector<ScheduleFeatures> &whole)
{
    const SearchDag &d = state.dag();
    for (size_t slot = 0; slot < whole.size(); slot++)
        for (size_t k = 0; k < whole[slot].values.size(); k++) {
            const double a = reused[slot].values[k], b = whole[slot].values[k];
            if (a == b || (std::isnan(a) && std::isnan(b)))
                continue;
            const dag::StageRef &r = d.costStages()[slot];
            throw std::logic_error("feature reuse: stage " + d.dag().stage(r).name + ", feature " + std::to_string(k) +
                                   ": taken from the parent " + std::to_string(a) + ", featurized whole " +
                                   std::to_string(b) +
                                   " (last Func decided: " + d.node(state.funcs().back().node).name + ")");
        }
}

} // namespace

Featurization computeFeatures(const State &state, const FeatureParams &params, const Featurization *parent,
                              bool keepSites, StageFeatureMemo *memo)
{
    std::optional<State> tiled;
    if (hasRootAwaitingGpuTiling(state))
        tiled = withUntiledRootsTiledForFeatures(state);
    const State &featurized = tiled ? *tiled : state;
    Featurization out = Featurizer(featurized, params, memo).run(parent, keepSites);
    if ((parent || memo) && checkingFeatureReuse())
        checkReuse(featurized, out.features, Featurizer(featurized, params).run().features);
    return out;
}

} // namespace beamscope::search
