#include "core/search/search_space.h"

#include "core/search/halide_root_tilings.h"
#include "core/search/thread_info.h"
#include "core/search/tiling.h"

#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>
#include <sstream>

namespace beamscope::search {

namespace {

// The (node, stage) pairs that finally read `node`, looking through Funcs inlined into them.
void effectiveConsumers(const State &s, int node, std::set<std::pair<int, int>> &out, bool &blocked)
{
    for (int e : s.dag().node(node).outgoingEdges) {
        const dag::Edge &edge = s.dag().edge(e);
        const FuncSchedule *c = s.scheduleOf(edge.consumerNode);
        if (!c) {
            blocked = true; // cannot happen when scheduling outputs first
            continue;
        }
        if (c->location == ComputeLocation::Inlined)
            effectiveConsumers(s, edge.consumerNode, out, blocked);
        else
            out.insert({edge.consumerNode, edge.consumerStage});
    }
}

std::string joinTiles(const std::vector<int64_t> &v)
{
    std::ostringstream os;
    for (size_t i = 0; i < v.size(); i++)
        os << (i ? "x" : "") << v[i];
    return os.str();
}

} // namespace

std::string describe(const SearchDag &dag, const FuncSchedule &f)
{
    std::ostringstream os;
    os << dag.node(f.node).name << ": " << locationName(f.location);
    if (f.location == ComputeLocation::BlockLevel || f.location == ComputeLocation::ThreadLevel)
        os << " of " << dag.node(f.consumer).name << (f.insideSerialLoop ? ", inside its serial loop" : "") << " ("
           << memoryTypeName(f.storageMemory()) << ")";
    if (f.awaitingGpuTiling)
        return os.str() + ", not yet tiled";
    for (size_t s = 0; s < f.stages.size(); s++) {
        const StageTiling &t = f.stages[s];
        os << (s ? "; s" + std::to_string(s) : std::string()) << ", threads " << joinTiles(t.threads) << ", serial "
           << joinTiles(t.serial) << (t.unrolled ? " unrolled" : "");
    }
    return os.str();
}

Json Decision::toJson(const SearchDag &dag, const FuncSchedule &f) const
{
    Json j = Json::object();
    j["func"] = dag.node(f.node).name;
    j["location"] = locationName(f.location);
    j["memory"] = memoryTypeName(f.storageMemory());
    if (f.consumer >= 0) {
        j["consumer"] = dag.node(f.consumer).name;
        j["consumer_stage"] = f.consumerStage;
    }
    if (f.storedAtRoot)
        j["stored_at_root"] = true;
    if (f.insideSerialLoop)
        j["inside_serial_loop"] = true;
    if (f.awaitingGpuTiling)
        j["awaiting_gpu_tiling"] = true;
    Json stages = Json::array();
    for (const StageTiling &t : f.stages) {
        Json st = Json::object();
        Json th = Json::array(), se = Json::array();
        for (int64_t v : t.threads)
            th.push(Json(v));
        for (int64_t v : t.serial)
            se.push(Json(v));
        st["threads"] = th;
        st["serial"] = se;
        st["vector_loop"] = t.vectorLoop;
        if (!t.hasVectorLoop && !t.threads.empty()) // Halide's vectorized_loop_index -1, read from its dump
            st["has_vector_loop"] = false;
        st["unrolled"] = t.unrolled;
        stages.push(st);
    }
    j["stages"] = stages;
    return j;
}

namespace {

// Halide's randomized tilings: per group of same-hash candidates, a random
// floor(log2(N)) of them (a group of one is kept whole).
std::vector<Child> sampleByHash(std::vector<Child> candidates, int granularity, std::mt19937_64 &rng)
{
    std::vector<uint64_t> order;
    std::unordered_map<uint64_t, std::vector<Child>> groups;
    for (Child &c : candidates) {
        const uint64_t h = coarseToFineHash(c.state, granularity);
        auto [it, fresh] = groups.try_emplace(h);
        if (fresh)
            order.push_back(h);
        it->second.push_back(std::move(c));
    }
    std::vector<Child> out;
    for (uint64_t h : order) {
        std::vector<Child> &g = groups[h];
        size_t keep = g.size();
        if (keep > 1)
            keep = static_cast<size_t>(std::log2(static_cast<double>(keep)));
        std::shuffle(g.begin(), g.end(), rng);
        for (size_t i = 0; i < keep; i++)
            out.push_back(std::move(g[i]));
    }
    return out;
}

// Halide's phase-1 tilings of `node` at root (halide_root_tilings.h), each a child when legal; a
// tiling that is not legal counts as rejected for Halide's stopping rule, as calculate_cost does.
template <typename MakeChild>
void addHalideRootTilings(const SearchDag &d, int node, int64_t parallelism, MakeChild &make, std::vector<Child> &out)
{
    const dag::Node &n = d.node(node);
    std::vector<Region> loops;
    for (size_t s = 0; s < n.stages.size(); s++)
        loops.push_back(d.rootLoops(node, static_cast<int>(s)));
    const auto accept = [&](const FuncTiling &t) {
        FuncSchedule f;
        f.node = node;
        f.location = ComputeLocation::Root;
        f.stages = t;
        std::optional<Child> c = make(std::move(f));
        if (c)
            out.push_back(std::move(*c));
        return c.has_value();
    };
    halideRootTilings(n, loops, halideRootVectorDim(n, loops[0]), parallelism, accept);
}

} // namespace

std::vector<Child> generateChildren(const State &parent, const AutoscheduleParams &params,
                                    const GenerateOptions &options, std::mt19937_64 &rng)
{
    std::vector<Child> out;
    const int node = parent.nextNode();
    if (node < 0)
        return out;
    const SearchDag &d = parent.dag();
    const dag::Node &n = d.node(node);
    // compute_root Funcs are tiled with serial sub-tiles even in Mullapudi's
    // space; only Funcs computed inside a block lose them.
    const TilingLimits rootLimits;
    TilingLimits innerLimits;
    innerLimits.disableSubtiling = params.disableSubtiling;
    const bool sample = params.randomizeTilings;
    const size_t cap = sample ? std::numeric_limits<size_t>::max() : options.maxTilings;

    auto legal = [&](const State &s) {
        return s
            .legalityProblem(kMaxThreadsPerBlock, params.device.sharedMemoryLimitBytes, params.device.activeWarpLimit)
            .empty();
    };
    auto make = [&](FuncSchedule f) -> std::optional<Child> {
        State s = parent;
        Decision dec;
        dec.node = node;
        dec.location = f.location;
        dec.consumer = f.consumer;
        dec.text = describe(d, f);
        s.add(std::move(f));
        if (!legal(s))
            return std::nullopt;
        return Child{std::move(s), std::move(dec)};
    };

    if (options.fixed) {
        if (std::optional<Child> c = make(*options.fixed)) {
            out.push_back(std::move(*c));
            return out;
        }
        if (options.fixedIsStrict)
            return out;
    }

    // Tilings of one location, sampled as a group when randomizing.
    std::vector<Child> group;
    auto push = [&](FuncSchedule f) {
        if (std::optional<Child> c = make(std::move(f)))
            group.push_back(std::move(*c));
    };
    auto flush = [&] {
        if (sample)
            group = sampleByHash(std::move(group), options.pass, rng);
        for (Child &c : group)
            out.push_back(std::move(c));
        group.clear();
    };

    // Inline.
    if (params.options.inlineFuncs && !n.isOutput && n.stages.size() == 1 && !n.outgoingEdges.empty()) {
        FuncSchedule f;
        f.node = node;
        f.location = ComputeLocation::Inlined;
        push(std::move(f));
        flush();
    }

    // compute_root (always offered for outputs, which must be realized).
    const bool inside = !options.prePass && (params.options.computeAtBlock || params.options.computeAtThread);
    if (params.options.computeRoot || inside || n.isOutput) {
        // Halide's own tilings, in its order, unless randomizing (Halide then samples by hash,
        // which Beamscope does over its own enumeration). Beamscope's enumeration also stands in
        // where Halide's offers nothing legal, e.g. for a Func without loops, which Halide leaves
        // untiled at root and Beamscope cannot express untiled.
        if (!sample) {
            addHalideRootTilings(d, node, params.device.parallelism, make, group);
            if (options.maxRootTilings > 0)
                group = subsample(std::move(group), options.maxRootTilings);
        }
        if (group.empty()) {
            const Region &loops0 = d.rootLoops(node, 0);
            for (const StageTiling &t : subsample(rootTilings(n.stages[0], loops0, rootLimits), cap)) {
                FuncSchedule f;
                f.node = node;
                f.location = ComputeLocation::Root;
                f.stages.push_back(t);
                for (size_t s = 1; s < n.stages.size(); s++)
                    f.stages.push_back(followTiling(n.stages[0], t, n.stages[s], d.rootLoops(node, static_cast<int>(s)),
                                                    ComputeLocation::Root, rootLimits));
                push(std::move(f));
            }
        }
        flush();
    }

    // Block / thread level of the single consumer stage. Halide computes a Func inside a
    // loop only where its region shrinks (LoopNest::compute_in_tiles): never a Func without
    // dimensions (one point at every level), and never inside a consumer stage without
    // loops, whose loop nest has no loop to compute anything in.
    if (!n.isOutput && inside && n.func.dimensions() > 0) {
        std::set<std::pair<int, int>> consumers;
        bool blocked = false;
        effectiveConsumers(parent, node, consumers, blocked);
        if (!blocked && consumers.size() == 1) {
            const auto [c, cs] = *consumers.begin();
            const FuncSchedule *cf = parent.scheduleOf(c);
            if (cf && cf->location == ComputeLocation::Root && d.loopCount(c, cs) > 0) {
                for (const ComputeLocation loc : {ComputeLocation::BlockLevel, ComputeLocation::ThreadLevel}) {
                    if (loc == ComputeLocation::BlockLevel && !params.options.computeAtBlock)
                        continue;
                    if (loc == ComputeLocation::ThreadLevel &&
                        (!params.options.computeAtThread || params.disableSubtiling))
                        continue;
                    // Regions of this Func at that level, for its tilings.
                    State probe = parent;
                    FuncSchedule f;
                    f.node = node;
                    f.location = loc;
                    f.consumer = c;
                    f.consumerStage = cs;
                    probe.add(f);
                    std::vector<Region> loops;
                    int64_t points = 1;
                    for (size_t s = 0; s < n.stages.size(); s++)
                        loops.push_back(probe.stageLoops(node, static_cast<int>(s)));
                    for (const Span &sp : loops[0])
                        points *= sp.extent();
                    if (loc == ComputeLocation::ThreadLevel) {
                        // Registers: keep per-thread realizations small.
                        if (points > 256)
                            continue;
                        f.stages.clear();
                        for (size_t s = 0; s < n.stages.size(); s++)
                            f.stages.push_back(threadTiling(n.stages[s], loops[s], innerLimits));
                        push(f);
                        flush();
                        continue;
                    }
                    // Halide's search realizes a Func it computes inside a kernel at root as well
                    // (LoopNest::compute_in_tiles adds it to the root's store_at when pushing it into
                    // the root's child), and its featurizer takes that outermost store site.
                    f.storedAtRoot = true;
                    for (const StageTiling &t : subsample(blockTilings(n.stages[0], loops[0], innerLimits), cap)) {
                        f.stages.clear();
                        f.stages.push_back(t);
                        for (size_t s = 1; s < n.stages.size(); s++)
                            f.stages.push_back(followTiling(n.stages[0], t, n.stages[s], loops[s], loc, innerLimits));
                        push(f);
                    }
                    flush();
                }
            }
        }
    }

    // Random dropout: keep each child with the given probability, but never none.
    if (params.randomDropout < 100 && out.size() > 1) {
        std::uniform_int_distribution<int> pct(0, 99);
        std::vector<Child> kept;
        for (Child &c : out)
            if (pct(rng) < params.randomDropout)
                kept.push_back(std::move(c));
        if (kept.empty())
            kept.push_back(std::move(out[std::uniform_int_distribution<size_t>(0, out.size() - 1)(rng)]));
        out = std::move(kept);
    }
    return out;
}

} // namespace beamscope::search
