#pragma once
// Which GPU threads of a block are busy in one stage's thread loops, counted
// warp by warp the way Anderson2021's ThreadInfo does: thread x is the
// vectorized loop, then up to two more loops with extent > 1, within the
// block's largest thread counts (which other stages in the same kernel may set).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace beamscope::search {

constexpr int kMaxThreadsPerBlock = 1024;
constexpr int kWarpSize = 32;

struct ThreadInfo {
    int threads[3] = {1, 1, 1}; // this stage's thread extents, x y z
    int inBlock[3] = {1, 1, 1}; // the block's thread extents
    int64_t numThreads = 1;     // this stage's threads
    int64_t numThreadsInBlock = 1;
    int numWarpsPerBlock = 1;
    int numActiveWarpsPerBlock = 0;
    int64_t numActiveThreads = 0;
    std::vector<int> loopIndices; // stage loop of thread x, y, z

    double warpLaneUtilization() const
    {
        return numActiveWarpsPerBlock == 0 ? 0 : double(numActiveThreads) / double(numActiveWarpsPerBlock * kWarpSize);
    }
    double idleLaneWastage() const
    {
        return (double(numActiveWarpsPerBlock * kWarpSize) - double(numActiveThreads)) / kMaxThreadsPerBlock;
    }
    double blockOccupancy() const { return double(numThreads) / kMaxThreadsPerBlock; }
};

// A block's threads counted warp by warp: the stage's threads are those with every coordinate
// below `threads`, the block's span `inBlock`, numbered x fastest.
struct WarpCounts {
    int64_t activeThreads = 0;
    int activeWarps = 0;
    // The last warp when it is active with another number of active threads than the first
    // active warp (Halide counts such a tail warp's accesses on their own).
    bool hasTailWarp = false;
    int tailFirstThread = 0, tailThreads = 0;
};
// Memoized per thread: the search asks for the same few block shapes millions of times, and a
// count walks up to 1024 threads.
WarpCounts countWarps(const int threads[3], const int inBlock[3]);

// The thread dims a stage uses: `sizes` are its thread extents per loop.
void assignThreadLoops(int vectorLoop, const std::vector<int64_t> &sizes, int out[3], int64_t &count,
                       std::vector<int> &loopIndices);
ThreadInfo makeThreadInfo(int vectorLoop, const std::vector<int64_t> &sizes, const int blockThreads[3]);

} // namespace beamscope::search
