#include "core/search/tiling.h"
#include "core/search/thread_info.h"

#include <algorithm>
#include <functional>

namespace beamscope::search {

namespace {

int64_t nextPow2(int64_t x)
{
    int64_t p = 1;
    while (p < x)
        p *= 2;
    return p;
}

void finish(StageTiling &t, const TilingLimits &limits)
{
    int64_t serial = 1;
    for (int64_t s : t.serial)
        serial *= s;
    t.unrolled = serial > 1 && serial <= limits.unrollLimit;
    // A stage without loops (a zero-dimensional Func, an update of a single point) has
    // nothing to vectorize: Halide's vectorized_loop_index stays -1 there.
    t.hasVectorLoop = !t.threads.empty();
    // Thread x: the innermost loop that has threads, else loop 0.
    t.vectorLoop = 0;
    for (size_t j = 0; j < t.threads.size(); j++)
        if (t.threads[j] > 1) {
            t.vectorLoop = static_cast<int>(j);
            break;
        }
}

// The loop that becomes thread x: the innermost pure loop with more than one point
// (finish() reports the same loop as vectorLoop whenever it has threads).
int vectorCandidate(const dag::Stage &stage, const Region &loops)
{
    for (size_t j = 0; j < loops.size(); j++)
        if (stage.loop[j].pure && loops[j].extent() > 1)
            return static_cast<int>(j);
    return -1;
}

bool onePureLoop(const dag::Stage &stage)
{
    return std::count_if(stage.loop.begin(), stage.loop.end(), [](const dag::Loop &l) { return l.pure; }) == 1;
}

// Thread counts Anderson2021's generate_gpu_tilings offers one loop of `extent`
// points: the vector loop warp-sized powers of two (from `minVectorThreads`), the
// others small powers of two that stop once padding to a whole number of
// threads wastes over 1/7 of the work, and always the whole extent when it is
// small enough to be one thread loop.
std::vector<int64_t> threadOptions(int64_t extent, bool isVector, int64_t minVectorThreads)
{
    std::vector<int64_t> out;
    bool wholeExtentSeen = false;
    for (int64_t t = isVector ? minVectorThreads : 1; t <= kMaxThreadsPerLoop; t *= 2) {
        wholeExtentSeen |= t == extent;
        if (t > extent || (!isVector && t > kMaxThreadsPerNonVectorLoop))
            break;
        const int64_t perThread = (extent + t - 1) / t;
        if (!isVector && t > 1 && t * perThread * 7 > extent * 8)
            break;
        out.push_back(t);
        if (t >= extent)
            break;
    }
    if (!wholeExtentSeen && extent < kMaxThreadsPerLoop)
        out.push_back(extent);
    return out;
}

} // namespace

std::vector<int64_t> gpuThreadOptions(const dag::Stage &stage, const Region &loops, size_t loop, bool computeRoot)
{
    const int vector = vectorCandidate(stage, loops);
    const bool isVector = static_cast<int>(loop) == vector;
    const int64_t minVector = computeRoot && onePureLoop(stage) ? 1 : kMinVectorThreads;
    return threadOptions(loops[loop].extent(), isVector, minVector);
}

std::vector<StageTiling> rootTilings(const dag::Stage &stage, const Region &loops, const TilingLimits &limits)
{
    const size_t n = loops.size();
    // Up to three parallel loops: pure, extent > 1, innermost first.
    std::vector<size_t> parallel;
    for (size_t j = 0; j < n && parallel.size() < 3; j++)
        if (stage.loop[j].pure && loops[j].extent() > 1)
            parallel.push_back(j);
    StageTiling base;
    base.threads.assign(n, 1);
    base.serial.assign(n, 1);
    for (size_t j = 0; j < n; j++)
        if (!stage.loop[j].pure)
            base.serial[j] = loops[j].extent();

    std::vector<StageTiling> out;
    std::vector<int64_t> threads(parallel.size(), 1);
    // Thread choices per parallel loop, then serial choices per parallel loop.
    std::function<void(size_t, int64_t)> chooseThreads = [&](size_t k, int64_t product) {
        if (k == parallel.size()) {
            std::vector<int64_t> serial(parallel.size(), 1);
            std::function<void(size_t, int64_t)> chooseSerial = [&](size_t m, int64_t sp) {
                if (m == parallel.size()) {
                    StageTiling t = base;
                    for (size_t q = 0; q < parallel.size(); q++) {
                        t.threads[parallel[q]] = threads[q];
                        t.serial[parallel[q]] = serial[q];
                    }
                    finish(t, limits);
                    out.push_back(std::move(t));
                    return;
                }
                const int64_t extent = loops[parallel[m]].extent();
                const int maxSerial = limits.disableSubtiling ? 1 : limits.maxSerialPerLoop;
                for (int64_t s = 1; s <= maxSerial; s *= 2) {
                    if (s > 1 && threads[m] * s > nextPow2(extent))
                        break;
                    if (sp * s > limits.maxSerialTotal)
                        break;
                    serial[m] = s;
                    chooseSerial(m + 1, sp * s);
                }
                serial[m] = 1;
            };
            chooseSerial(0, 1);
            return;
        }
        for (int64_t t : gpuThreadOptions(stage, loops, parallel[k], true)) {
            if (product * t > kMaxThreadsPerBlockForTiling)
                continue;
            threads[k] = t;
            chooseThreads(k + 1, product * t);
        }
        threads[k] = 1;
    };
    chooseThreads(0, 1);
    if (out.empty()) {
        StageTiling t = base;
        finish(t, limits);
        out.push_back(t);
    }
    return out;
}

std::vector<StageTiling> blockTilings(const dag::Stage &stage, const Region &loops, const TilingLimits &limits)
{
    const size_t n = loops.size();
    std::vector<StageTiling> out;
    StageTiling t;
    t.threads.assign(n, 1);
    t.serial.assign(n, 1);
    // Each thread's serial loop: Halide's max_serial_ext per loop, and Beamscope's total cap.
    const int64_t maxSerial = limits.disableSubtiling ? 1 : kMaxSerialPerThreadLoop;
    std::function<void(size_t, int64_t, int64_t, int)> choose = [&](size_t j, int64_t threads, int64_t serial,
                                                                    int threadLoops) {
        if (j == n) {
            if (threads > kMaxThreadsPerBlockForTiling || threadLoops > kMaxThreadLoops)
                return;
            StageTiling c = t;
            finish(c, limits);
            out.push_back(std::move(c));
            return;
        }
        const int64_t extent = loops[j].extent();
        if (!stage.loop[j].pure) {
            t.threads[j] = 1;
            t.serial[j] = extent;
            choose(j + 1, threads, serial, threadLoops);
            return;
        }
        for (int64_t th : gpuThreadOptions(stage, loops, j, false)) {
            const int64_t s = (extent + th - 1) / th;
            if (s > maxSerial || serial * s > limits.maxSerialTotal)
                continue;
            t.threads[j] = th;
            t.serial[j] = s;
            choose(j + 1, threads * th, serial * s, threadLoops + (th > 1 ? 1 : 0));
        }
    };
    choose(0, 1, 1, 0);
    return out;
}

StageTiling threadTiling(const dag::Stage &, const Region &loops, const TilingLimits &limits)
{
    StageTiling t;
    for (const Span &s : loops) {
        t.threads.push_back(1);
        t.serial.push_back(s.extent());
    }
    finish(t, limits);
    return t;
}

StageTiling followTiling(const dag::Stage &pure, const StageTiling &pureTiling, const dag::Stage &update,
                         const Region &loops, ComputeLocation location, const TilingLimits &limits)
{
    StageTiling t;
    for (size_t j = 0; j < update.loop.size(); j++) {
        const int64_t extent = loops[j].extent();
        int64_t threads = 1, serial = extent;
        if (update.loop[j].pure && location != ComputeLocation::ThreadLevel) {
            for (size_t k = 0; k < pure.loop.size(); k++)
                if (pure.loop[k].var == update.loop[j].var) {
                    serial = std::min(extent, pureTiling.serial[k]);
                    threads = location == ComputeLocation::Root ? std::min(extent, pureTiling.threads[k])
                                                                : (extent + serial - 1) / serial;
                }
            if (location == ComputeLocation::Root && threads == 1 && serial == extent)
                serial = 1; // a pure loop the pure stage did not see becomes a block loop
        }
        t.threads.push_back(threads);
        t.serial.push_back(serial);
    }
    finish(t, limits);
    return t;
}

StageTiling untiledRootFeatureTiling(const dag::Stage &stage, const Region &loops, const StageTiling &untiled)
{
    // Halide's FeatureLoopNestMutator::split_compute_root_loops splits the gpu_none loop twice with
    // parallelize_in_tiles: first into a parallel loop over every pure loop and a serial loop that
    // takes each reduction loop whole (pure stage: tiles of 1; update: its pure loops' full extents
    // outside, rvars moved inward), then the parallel loop into blocks and threads, the threads
    // being min(extent, 32) along the vectorized loop and 1 elsewhere.
    StageTiling t = untiled;
    t.threads.assign(loops.size(), 1);
    t.serial.assign(loops.size(), 1);
    int64_t serialPoints = 1;
    for (size_t j = 0; j < loops.size(); j++)
        if (stage.loop[j].rvar) {
            t.serial[j] = loops[j].extent();
            serialPoints *= t.serial[j];
        }
    // An update whose vectorized loop is a reduction loop has no pure dimension to put the warp on.
    const size_t v = static_cast<size_t>(untiled.vectorLoop);
    if (untiled.hasVectorLoop && v < loops.size() && !stage.loop[v].rvar)
        t.threads[v] = std::min<int64_t>(loops[v].extent(), kWarpSize);
    t.unrolled = serialPoints > 1 && serialPoints <= TilingLimits{}.unrollLimit;
    return t;
}

} // namespace beamscope::search
