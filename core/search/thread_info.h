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

// The thread dims a stage uses: `sizes` are its thread extents per loop.
void assignThreadLoops(int vectorLoop, const std::vector<int64_t> &sizes, int out[3], int64_t &count,
                       std::vector<int> &loopIndices);
ThreadInfo makeThreadInfo(int vectorLoop, const std::vector<int64_t> &sizes, const int blockThreads[3]);

} // namespace beamscope::search
