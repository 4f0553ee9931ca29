#include "core/search/halide_root_tilings.h"

#include "core/search/halide_gpu_tilings.h"
#include "core/search/integer_math.h"
#include "core/util/parallel_for.h"

#include <algorithm>
#include <cmath>

namespace beamscope::search {

namespace {

constexpr int64_t kWarpWidth = 32;
// Halide stops offering more tilings once one was accepted and the rest would leave
// over 20% of the cores idle (SearchSpace::generate_children).
constexpr double kMaxIdleCoreWastage = 1.2;

using Extents = std::vector<int64_t>;

bool allOnes(const Extents &v)
{
    return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 1; });
}

// Odd serial tiles (3, 5, 7) of the vector loop that leave each thread's share a whole
// number of warps (LoopNest::generate_vec_dim_serial_tilings).
Extents oddVectorSerialTiles(int64_t extent)
{
    Extents out;
    if (extent % kWarpWidth != 0)
        return out;
    for (int64_t s = 3; s < 8; s += 2)
        if ((extent / kWarpWidth) % s == 0)
            out.push_back(s);
    return out;
}

// Step 1 (Tiling.cpp generate_serial_tilings as compute_root calls it): per pure dimension
// the number of parallel iterations left once a serial tile of 1, 2, 4 or 8 points (or the
// odd tiles above, on the vector loop) is split off, every combination, outer dimensions
// varying slowest. Only "everything serial" is left out.
std::vector<Extents> parallelExtentsAfterSerialTiles(const Extents &extents, int vectorLoop)
{
    const Extents oddTiles = oddVectorSerialTiles(extents[static_cast<size_t>(vectorLoop)]);
    std::vector<Extents> prefixes{{}};
    for (size_t d = 0; d < extents.size(); d++) {
        const int64_t e = extents[d];
        const bool last = d + 1 == extents.size();
        std::vector<Extents> next;
        for (const Extents &prefix : prefixes) {
            Extents t = prefix;
            t.push_back(0);
            bool oddTileCoversExtent = false;
            if (static_cast<int>(d) == vectorLoop)
                for (int64_t inner : oddTiles) {
                    t.back() = ceilDiv(e, inner);
                    if (last && (t == extents || allOnes(t)))
                        continue;
                    oddTileCoversExtent = inner == e;
                    next.push_back(t);
                }
            // An extent of 3, 5 or 7 is either serial or not; others take power-of-two tiles up to 8.
            const bool oddExtent = e == 3 || e == 5 || e == 7;
            const int64_t maxInner = oddExtent ? e : 8;
            const int64_t factor = oddExtent ? e : 2;
            for (int64_t inner = 1; inner <= maxInner && inner <= e; inner *= factor) {
                if (inner == e && oddTileCoversExtent)
                    continue;
                t.back() = ceilDiv(e, inner);
                if (last && allOnes(t))
                    continue;
                next.push_back(t);
            }
        }
        prefixes = std::move(next);
    }
    return prefixes;
}

// A stage after step 1 (LoopNest::parallelize_in_tiles with adjusted tiles): each pure loop's
// serial tile and the parallel loop over those tiles; reduction loops run wholly serial.
struct SerialSplit {
    std::vector<Extents> serial;   // per stage, per loop
    std::vector<Extents> parallel; // per stage, per loop
};

SerialSplit splitSerial(const std::vector<Region> &stageLoops, const std::vector<std::vector<int>> &pureDims,
                        const Extents &parallelPerDim)
{
    SerialSplit out;
    for (size_t s = 0; s < stageLoops.size(); s++) {
        Extents serial, parallel;
        for (size_t i = 0; i < stageLoops[s].size(); i++) {
            const int64_t extent = stageLoops[s][i].extent();
            const int dim = pureDims[s][i];
            const int64_t inner = dim >= 0 ? ceilDiv(extent, parallelPerDim[static_cast<size_t>(dim)]) : extent;
            serial.push_back(inner);
            parallel.push_back(ceilDiv(extent, inner));
        }
        out.serial.push_back(std::move(serial));
        out.parallel.push_back(std::move(parallel));
    }
    return out;
}

// Step 2 (Tiling.cpp generate_gpu_tilings for a compute_root stage): thread counts over the
// parallel loops the serial tiles leave, the block holding nothing else yet.
std::vector<Extents> threadTilingsOver(const SerialSplit &split, const std::vector<std::vector<int>> &pureDims,
                                       const std::vector<int> &vectorLoops)
{
    GpuTilingQuery q;
    q.stageSizes = split.parallel;
    q.pureDims = pureDims;
    q.vectorLoops = vectorLoops;
    q.serialInner = false;
    q.isComputeRootStage = true;
    return halideGpuTilings(q);
}

struct ParallelOption {
    Extents threads; // per pure dimension
    double idleCoreWastage = 1;
    int64_t minParallelism = 0;
};

// Step 3 (SearchSpace::filter_parallel_tile_options): each thread tiling's block counts
// judged against the GPU's cores. A stage's block count is the product of the blocks along
// its pure loops; idle-core wastage is the worst ratio of whole waves to the waves needed,
// over the stages with enough parallelism to matter. Tilings whose least-parallel stage has
// under 2 blocks per core are kept only when nothing else is (then those with the most
// blocks, halving the bar until some qualify). Sorted by wastage with std::sort, whose order
// among equal wastages is the one Halide's list gets (same algorithm, same comparisons).
std::vector<ParallelOption> parallelOptions(const std::vector<Extents> &threadTilings, const Extents &pureParallel,
                                            const std::vector<Region> &stageLoops,
                                            const std::vector<std::vector<int>> &pureDims, int64_t parallelism)
{
    std::vector<ParallelOption> enough, insufficient;
    for (const Extents &threads : threadTilings) {
        ParallelOption o;
        o.threads = threads;
        Extents blocks(threads.size());
        for (size_t j = 0; j < threads.size(); j++)
            blocks[j] = ceilDiv(pureParallel[j], threads[j]);
        int64_t minTotal = 0;
        for (size_t s = 0; s < stageLoops.size(); s++) {
            int64_t total = 1, available = 1;
            for (size_t i = 0; i < pureDims[s].size(); i++) {
                const int dim = pureDims[s][i];
                if (dim < 0)
                    continue;
                total *= blocks[static_cast<size_t>(dim)];
                // The untiled extent of the loop over that dimension. (Read literally, Halide's
                // source takes the extent at the pure dimension's index, for an update stage
                // another loop; but on max_filter, whose sum has an update over [dy, x], Halide's
                // beam-1 winner tiles sum with 2 threads, which only this reading offers.)
                available *= stageLoops[s][i].extent();
            }
            // A stage too small to fill the GPU under any tiling does not count against one
            // that keeps it whole.
            if (available >= parallelism * 2 || total != available) {
                minTotal = minTotal != 0 ? std::min(minTotal, total) : total;
                const double tasksPerCore = static_cast<double>(total) / static_cast<double>(parallelism);
                o.idleCoreWastage = std::max(o.idleCoreWastage, std::ceil(tasksPerCore) / tasksPerCore);
            }
        }
        o.minParallelism = minTotal;
        (minTotal >= parallelism * 2 ? enough : insufficient).push_back(std::move(o));
    }
    for (int64_t bar = parallelism; enough.empty() && !insufficient.empty(); bar /= 2)
        for (const ParallelOption &o : insufficient)
            if (o.minParallelism >= bar)
                enough.push_back(o);
    std::sort(enough.begin(), enough.end(),
              [](const ParallelOption &a, const ParallelOption &b) { return a.idleCoreWastage < b.idleCoreWastage; });
    return enough;
}

FuncTiling toStageTilings(const SerialSplit &split, const Extents &threads,
                          const std::vector<std::vector<int>> &pureDims, const std::vector<int> &vectorLoops)
{
    FuncTiling out;
    for (size_t s = 0; s < pureDims.size(); s++) {
        StageTiling t;
        int64_t serialPoints = 1;
        for (size_t i = 0; i < pureDims[s].size(); i++) {
            const int dim = pureDims[s][i];
            t.threads.push_back(dim >= 0 ? threads[static_cast<size_t>(dim)] : 1);
            t.serial.push_back(split.serial[s][i]);
            serialPoints *= split.serial[s][i];
        }
        t.vectorLoop = std::max(0, vectorLoops[s]);
        t.hasVectorLoop = vectorLoops[s] >= 0;
        t.unrolled = unrollsSerialLoop(serialPoints);
        out.push_back(std::move(t));
    }
    return out;
}

} // namespace

std::vector<RootTilingCandidate> halideRootTilingCandidates(const dag::Node &node,
                                                            const std::vector<Region> &stageLoops, int vectorDim,
                                                            int64_t parallelism)
{
    std::vector<RootTilingCandidate> out;
    if (node.func.dimensions() == 0 || stageLoops.empty() || stageLoops[0].empty())
        return out;
    std::vector<std::vector<int>> pureDims;
    std::vector<int> vectorLoops;
    for (const dag::Stage &stage : node.stages) {
        pureDims.push_back(pureDimsOf(node, stage));
        vectorLoops.push_back(loopOverPureDim(pureDims.back(), vectorDim));
    }
    Extents pureExtents;
    for (const Span &s : stageLoops[0])
        pureExtents.push_back(s.extent());

    for (const Extents &parallelPerDim : parallelExtentsAfterSerialTiles(pureExtents, vectorLoops[0])) {
        const SerialSplit split = splitSerial(stageLoops, pureDims, parallelPerDim);
        const std::vector<Extents> threads = threadTilingsOver(split, pureDims, vectorLoops);
        bool first = true;
        for (const ParallelOption &o : parallelOptions(threads, split.parallel[0], stageLoops, pureDims, parallelism)) {
            RootTilingCandidate c;
            c.tiling = toStageTilings(split, o.threads, pureDims, vectorLoops);
            c.idleCoreWastage = o.idleCoreWastage;
            c.startsSplit = first;
            // Halide's calculate_cost drops a pure stage with more serial points per thread than it
            // unrolls (exceeds_serial_extents_limit); update stages are exempt.
            c.exceedsSerialLimit = pureSerialPoints(node.stages[0], c.tiling[0]) > kGpuUnrollLimit;
            out.push_back(std::move(c));
            first = false;
        }
    }
    return out;
}

namespace {

// Fed the candidates in order: whether one is judged at all, given whether any before it was accepted.
class RootTilingRule {
public:
    bool tries(const RootTilingCandidate &c, bool anyAccepted)
    {
        if (c.startsSplit) {
            m_stopped = false;
            m_previousWastage = 0;
        }
        if (m_stopped)
            return false;
        // Once something was accepted, the rest of this split's list leaves too many cores idle
        // (equal wastages are one group: Halide does not break inside it).
        if (anyAccepted && c.idleCoreWastage > kMaxIdleCoreWastage && c.idleCoreWastage != m_previousWastage) {
            m_stopped = true;
            return false;
        }
        m_previousWastage = c.idleCoreWastage;
        return !c.exceedsSerialLimit;
    }

private:
    bool m_stopped = false;
    double m_previousWastage = 0;
};

} // namespace

std::vector<bool> acceptRootTilings(const std::vector<RootTilingCandidate> &candidates, int threads,
                                    const std::function<bool(size_t)> &accept)
{
    std::vector<bool> accepted(candidates.size(), false);
    RootTilingRule rule;
    size_t next = 0;
    bool anyAccepted = false;
    for (; next < candidates.size() && !anyAccepted; next++)
        if (rule.tries(candidates[next], false))
            anyAccepted = accepted[next] = accept(next);
    std::vector<size_t> tried;
    for (; next < candidates.size(); next++)
        if (rule.tries(candidates[next], true))
            tried.push_back(next);
    // One byte per index, not vector<bool>'s shared words, so that threads write apart.
    std::vector<char> takes(tried.size(), 0);
    parallelFor(tried.size(), threads, [&](size_t k) { takes[k] = accept(tried[k]) ? 1 : 0; });
    for (size_t k = 0; k < tried.size(); k++)
        accepted[tried[k]] = takes[k] != 0;
    return accepted;
}

std::vector<FuncTiling> halideRootTilings(const dag::Node &node, const std::vector<Region> &stageLoops, int vectorDim,
                                          int64_t parallelism, const AcceptTiling &accept)
{
    std::vector<RootTilingCandidate> candidates = halideRootTilingCandidates(node, stageLoops, vectorDim, parallelism);
    const std::vector<bool> accepted =
        acceptRootTilings(candidates, 1, [&](size_t i) { return accept(candidates[i].tiling); });
    std::vector<FuncTiling> out;
    for (size_t i = 0; i < candidates.size(); i++)
        if (accepted[i])
            out.push_back(std::move(candidates[i].tiling));
    return out;
}

const std::vector<RootTilingCandidate> &RootTilingCandidates::of(const SearchDag &dag, int node)
{
    std::lock_guard lock(m_mutex);
    auto it = m_byNode.find(node);
    if (it == m_byNode.end()) {
        const dag::Node &n = dag.node(node);
        std::vector<Region> loops;
        for (size_t s = 0; s < n.stages.size(); s++)
            loops.push_back(dag.rootLoops(node, static_cast<int>(s)));
        it = m_byNode
                 .emplace(node, halideRootTilingCandidates(n, loops, halideRootVectorDim(n, loops[0]), m_parallelism))
                 .first;
    }
    return it->second;
}

} // namespace beamscope::search
