#include "core/search/halide_gpu_tilings.h"

#include "core/search/integer_math.h"
#include "core/search/tiling.h"

#include <algorithm>

namespace beamscope::search {

namespace {

using Extents = std::vector<int64_t>;

// generate_gpu_tilings' max_serial_ext: the serial iterations a thread may keep when its
// threads sit outside a serial loop.
constexpr int64_t kMaxSerialPerLoop = 16;

enum class Verdict { Ok, TooManyThreads, TooMuchSerial };

// The thread counts of every stage of the Func under `threads` (per pure dimension), lowered
// and merged into the siblings' union.
Extents blockUnion(const GpuTilingQuery &q, const Extents &threads)
{
    Extents u = q.siblingMaxThreads;
    for (size_t s = 0; s < q.pureDims.size(); s++) {
        Extents stageThreads;
        for (int dim : q.pureDims[s])
            stageThreads.push_back(dim >= 0 ? threads[static_cast<size_t>(dim)] : 1);
        widenInto(u, loweredThreadDims(stageThreads, q.vectorLoops[s]));
    }
    return u;
}

bool fitsOneBlock(const Extents &unionThreads, const Extents &own)
{
    int64_t total = 1;
    int dims = 0;
    for (size_t k = 0; k < std::max(unionThreads.size(), own.size()); k++) {
        const int64_t c = std::max(k < unionThreads.size() ? unionThreads[k] : 1, k < own.size() ? own[k] : 1);
        dims += c > 1 ? 1 : 0;
        total *= c;
    }
    return total <= kMaxThreadsPerBlockForTiling && dims <= kMaxThreadLoops;
}

// generate_gpu_tilings' is_valid_tiling: only a complete tiling (every loop chosen) is judged.
Verdict judge(const GpuTilingQuery &q, const Extents &threads)
{
    const Extents &size = q.stageSizes[0];
    if (threads.size() != size.size())
        return Verdict::Ok;
    if (!fitsOneBlock(blockUnion(q, threads), loweredThreadDims(threads, q.vectorLoops[0])))
        return Verdict::TooManyThreads;
    if (q.serialInner)
        for (size_t k = 0; k < size.size(); k++)
            if (ceilDiv(size[k], threads[k]) > kMaxSerialPerLoop)
                return Verdict::TooMuchSerial;
    return Verdict::Ok;
}

// Appends to `out` each tiling that extends `prefix` by a thread count for loop `d`.
void extendByLoop(const GpuTilingQuery &q, const Extents &prefix, size_t d, std::vector<Extents> &out)
{
    const int64_t e = q.stageSizes[0][d];
    const bool isVector = static_cast<int>(d) == q.vectorLoops[0];
    // A one-dimensional root Func may use less than a warp along its only loop.
    const int64_t minVectorThreads = q.isComputeRootStage && q.pureDims[0].size() == 1 ? 1 : kMinVectorThreads;
    Extents t = prefix;
    t.push_back(0);
    bool wholeExtentSeen = false;
    for (int64_t threads = isVector ? minVectorThreads : 1; threads <= kMaxThreadsPerLoop; threads *= 2) {
        wholeExtentSeen |= threads == e;
        if (threads > e || (!isVector && threads > kMaxThreadsPerNonVectorLoop))
            break;
        if (!isVector && threads > 1 && threads * ceilDiv(e, threads) * 7 > e * 8)
            break;
        t.back() = threads;
        const Verdict v = judge(q, t);
        if (v == Verdict::TooMuchSerial)
            continue;
        if (v == Verdict::TooManyThreads)
            break;
        out.push_back(t);
        if (threads >= e)
            break;
    }
    if (!wholeExtentSeen && e < kMaxThreadsPerLoop) {
        t.back() = e;
        if (judge(q, t) == Verdict::Ok)
            out.push_back(t);
    }
}

} // namespace

int64_t pureSerialPoints(const dag::Stage &stage, const StageTiling &t)
{
    int64_t points = 1;
    for (size_t l = 0; l < stage.loop.size() && l < t.serial.size(); l++)
        if (!stage.loop[l].rvar)
            points *= t.serial[l];
    return points;
}

std::vector<int> pureDimsOf(const dag::Node &node, const dag::Stage &stage)
{
    const std::vector<std::string> args = node.func.args();
    std::vector<int> out;
    for (const dag::Loop &l : stage.loop) {
        int dim = -1;
        if (!l.rvar)
            for (size_t a = 0; a < args.size(); a++)
                if (args[a] == l.var)
                    dim = static_cast<int>(a);
        out.push_back(dim);
    }
    return out;
}

int loopOverPureDim(const std::vector<int> &pureDims, int dim)
{
    for (size_t i = 0; i < pureDims.size(); i++)
        if (pureDims[i] == dim)
            return static_cast<int>(i);
    return -1;
}

int halideRootVectorDim(const dag::Node &node, const Region &computed)
{
    if (node.isOutput)
        return 0;
    for (size_t v = 0; v < computed.size(); v++)
        if (computed[v].extent() >= 16)
            return static_cast<int>(v);
    return 0;
}

std::vector<int64_t> loweredThreadDims(const std::vector<int64_t> &threads, int vectorLoop)
{
    Extents out;
    if (vectorLoop >= 0 && threads[static_cast<size_t>(vectorLoop)] > 1)
        out.push_back(threads[static_cast<size_t>(vectorLoop)]);
    for (size_t i = 0; i < threads.size(); i++)
        if (static_cast<int>(i) != vectorLoop && threads[i] > 1)
            out.push_back(threads[i]);
    return out;
}

void widenInto(std::vector<int64_t> &into, const std::vector<int64_t> &lowered)
{
    for (size_t k = 0; k < lowered.size(); k++) {
        if (k >= into.size())
            into.push_back(lowered[k]);
        else
            into[k] = std::max(into[k], lowered[k]);
    }
}

std::vector<std::vector<int64_t>> halideGpuTilings(const GpuTilingQuery &q)
{
    std::vector<Extents> prefixes{{}};
    for (size_t d = 0; d < q.stageSizes[0].size(); d++) {
        std::vector<Extents> next;
        for (const Extents &prefix : prefixes)
            extendByLoop(q, prefix, d, next);
        prefixes = std::move(next);
    }
    return prefixes;
}

} // namespace beamscope::search
