#include "core/search/thread_info.h"

#include <algorithm>

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

    const WarpCounts w = countWarps(t.threads, t.inBlock);
    t.numActiveThreads = w.activeThreads;
    t.numActiveWarpsPerBlock = w.activeWarps;
    return t;
}

namespace {

WarpCounts walkWarps(const int threads[3], const int inBlock[3])
{
    WarpCounts w;
    const int64_t last = int64_t(inBlock[0]) * inBlock[1] * inBlock[2] - 1;
    int id = 0, activeInWarp = 0, threadsInWarp = 0, activeInFirstWarp = 0;
    bool warpActive = false, first = true;
    for (int z = 0; z < inBlock[2]; z++)
        for (int y = 0; y < inBlock[1]; y++)
            for (int x = 0; x < inBlock[0]; x++, id++) {
                const bool active = x < threads[0] && y < threads[1] && z < threads[2];
                warpActive = warpActive || active;
                activeInWarp += active ? 1 : 0;
                w.activeThreads += active ? 1 : 0;
                threadsInWarp++;
                if ((id + 1) % kWarpSize == 0 || id == last) {
                    if (warpActive) {
                        w.activeWarps++;
                        if (first) {
                            first = false;
                            activeInFirstWarp = activeInWarp;
                        }
                        if (id == last) {
                            w.tailThreads = threadsInWarp;
                            w.hasTailWarp = activeInFirstWarp != activeInWarp;
                            w.tailFirstThread = id - threadsInWarp + 1;
                        }
                    }
                    warpActive = false;
                    activeInWarp = threadsInWarp = 0;
                }
            }
    return w;
}

} // namespace

WarpCounts countWarps(const int threads[3], const int inBlock[3])
{
    // A small direct-mapped cache: a slot holds the last shape that hashed to it.
    struct Slot {
        int key[6] = {-1, -1, -1, -1, -1, -1};
        WarpCounts counts;
    };
    constexpr size_t kSlots = 1024;
    thread_local std::vector<Slot> cache(kSlots);
    const int key[6] = {threads[0], threads[1], threads[2], inBlock[0], inBlock[1], inBlock[2]};
    uint64_t h = 1469598103934665603ULL;
    for (int k : key)
        h = (h ^ static_cast<uint64_t>(static_cast<uint32_t>(k))) * 1099511628211ULL;
    Slot &slot = cache[h % kSlots];
    if (!std::equal(key, key + 6, slot.key)) {
        slot.counts = walkWarps(threads, inBlock);
        std::copy(key, key + 6, slot.key);
    }
    return slot.counts;
}

} // namespace beamscope::search
