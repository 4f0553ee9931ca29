// Where the Funcs not scheduled yet go in a partial state, as Halide's
// State::compute_featurization places them, and what a consumer sees of a
// producer (its site).
#include "core/search/featurizer_internal.h"

namespace beamscope::search::featurizing {

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

} // namespace beamscope::search::featurizing
