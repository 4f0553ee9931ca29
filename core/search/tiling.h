#pragma once
// Candidate tilings of one stage: how many GPU threads and how many serial
// points per thread along each loop (Anderson2021's Tiling.cpp generates
// power-of-two splits in the same spirit; Beamscope enumerates them directly
// and keeps an evenly spread or random subset when there are too many).

#include "core/search/state.h"

#include <algorithm>
#include <random>
#include <vector>

namespace beamscope::search {

constexpr int64_t kMaxThreadsPerBlockForTiling = 1024;
// Anderson2021's per-loop thread limits (Tiling.cpp generate_gpu_tilings): the
// vector loop (thread x) takes kMinVectorThreads..kMaxThreadsPerLoop threads, other
// loops at most kMaxThreadsPerNonVectorLoop, either may take its whole extent when
// that is under kMaxThreadsPerLoop, and at most kMaxThreadLoops loops have threads.
constexpr int64_t kMinVectorThreads = 16;
constexpr int64_t kMaxThreadsPerLoop = 64;
constexpr int64_t kMaxThreadsPerNonVectorLoop = 16;
constexpr int kMaxThreadLoops = 3;
// A thread's serial loop inside a block (Halide's max_serial_ext).
constexpr int64_t kMaxSerialPerThreadLoop = 16;

struct TilingLimits {
    bool disableSubtiling = false; // serial tiles of 1 only
    int maxSerialPerLoop = 8;
    int64_t maxSerialTotal = 64;
    int64_t unrollLimit = 16; // serial tiles up to this many points are unrolled
};

// Thread counts the search may give loop `loop` of `stage` (extents `loops`):
// the innermost pure loop with more than one point is the vector loop; a
// compute_root stage with a single pure loop may give it fewer than
// kMinVectorThreads threads.
std::vector<int64_t> gpuThreadOptions(const dag::Stage &stage, const Region &loops, size_t loop, bool computeRoot);

// Root stage: blocks x threads x serial over its loops (extents `loops`).
std::vector<StageTiling> rootTilings(const dag::Stage &stage, const Region &loops, const TilingLimits &limits);
// Block-level stage: threads cover the region computed per block, each thread
// computes `serial` points along each loop.
std::vector<StageTiling> blockTilings(const dag::Stage &stage, const Region &loops, const TilingLimits &limits);
// Thread-level stage: serial loops over the whole (small) region.
StageTiling threadTiling(const dag::Stage &stage, const Region &loops, const TilingLimits &limits);
// An update stage follows the pure stage's choices on loops with the same variable.
StageTiling followTiling(const dag::Stage &pure, const StageTiling &pureTiling, const dag::Stage &update,
                         const Region &loops, ComputeLocation location, const TilingLimits &limits);

// The tiling Halide's featurizer assumes for a stage of a Func computed at root but not yet tiled
// (FuncSchedule::awaitingGpuTiling): one full warp along the vectorized loop where it has that many
// points (else all of them) as threads, every other pure loop across blocks, reduction loops serial
// inside the thread; a stage without a vectorized loop gets one thread.
StageTiling untiledRootFeatureTiling(const dag::Stage &stage, const Region &loops, const StageTiling &untiled);

// Keeps at most `cap` candidates, evenly spread over the list (randomized
// tilings sample by structural hash instead: search_space.cpp).
template <typename T>
std::vector<T> subsample(std::vector<T> all, size_t cap)
{
    if (all.size() <= cap)
        return all;
    std::vector<T> out;
    for (size_t i = 0; i < cap; i++)
        out.push_back(all[i * all.size() / cap]);
    return out;
}

} // namespace beamscope::search
