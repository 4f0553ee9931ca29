#include "core/search/thread_info.h"

namespace beamscope::search {

void assignThreadLoops(int vectorLoop, const std::vector<int64_t> &sizes, int out[3], int64_t &count,
                       std::vector<int> &loopIndices)
{
    out[0] = out[1] = out[2] = 1;
    count = 1;
    loopIndices.clear();
    int used = 0;
    if (vectorLoop >= 0 && vectorLoop < static_cast<int>(sizes.size()) && sizes[static_cast<size_t>(vectorLoop)] != 1) {
        out[0] = static_cast<int>(sizes[static_cast<size_t>(vectorLoop)]);
        count *= sizes[static_cast<size_t>(vectorLoop)];
        loopIndices.push_back(vectorLoop);
        used = 1;
    }
    for (size_t i = 0; i < sizes.size() && used < 3; i++) {
        if (sizes[i] == 1 || static_cast<int>(i) == vectorLoop)
            continue;
        if (count * sizes[i] > kMaxThreadsPerBlock)
            break;
        out[used++] = static_cast<int>(sizes[i]);
        count *= sizes[i];
        loopIndices.push_back(static_cast<int>(i));
    }
    if (loopIndices.empty())
        loopIndices.push_back(0);
}

ThreadInfo makeThreadInfo(int vectorLoop, const std::vector<int64_t> &sizes, const int blockThreads[3])
{
    ThreadInfo t;
    assignThreadLoops(vectorLoop, sizes, t.threads, t.numThreads, t.loopIndices);
    // The block: its largest thread counts, skipping 1s, while they fit.
    int used = 0;
    for (int d = 0; d < 3; d++) {
        const int c = blockThreads[d];
        if (c == 1)
            continue;
        if (t.numThreadsInBlock * c > kMaxThreadsPerBlock)
            break;
        t.inBlock[used++] = c;
        t.numThreadsInBlock *= c;
    }
    t.numWarpsPerBlock = static_cast<int>((t.numThreadsInBlock + kWarpSize - 1) / kWarpSize);

    int id = 0;
    bool warpActive = false;
    const int64_t last = t.numThreadsInBlock - 1;
    for (int z = 0; z < t.inBlock[2]; z++)
        for (int y = 0; y < t.inBlock[1]; y++)
            for (int x = 0; x < t.inBlock[0]; x++) {
                const bool active = x < t.threads[0] && y < t.threads[1] && z < t.threads[2];
                warpActive = warpActive || active;
                if (active)
                    t.numActiveThreads++;
                if ((id + 1) % kWarpSize == 0 || id == last) {
                    if (warpActive)
                        t.numActiveWarpsPerBlock++;
                    warpActive = false;
                }
                id++;
            }
    return t;
}

} // namespace beamscope::search
