#include "core/search/structural_hash.h"
#include "core/search/integer_math.h"

#include <algorithm>

namespace beamscope::search {

namespace {

void combine(uint64_t &h, uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); }

constexpr uint64_t kBarrier = ~uint64_t(0);

// Extents of one level of a stage's loops, coarse (> 1) or exact.
void hashExtents(uint64_t &h, const std::vector<int64_t> &extents, bool exact)
{
    for (int64_t e : extents)
        combine(h, exact ? static_cast<uint64_t>(e) : static_cast<uint64_t>(e > 1));
}

} // namespace

uint64_t coarseToFineHash(const State &state, int granularity, int prefix)
{
    const std::vector<FuncSchedule> &all = state.funcs();
    const size_t count = prefix < 0 ? all.size() : std::min(all.size(), static_cast<size_t>(prefix));
    uint64_t h = count;
    if (granularity < 0)
        return h;
    const SearchDag &dag = state.dag();
    const auto funcs = [&](auto &&visit) {
        for (size_t i = 0; i < count; i++)
            visit(all[i]);
    };

    // Root level: the compute_root Funcs.
    funcs([&](const FuncSchedule &f) {
        if (f.location == ComputeLocation::Root)
            combine(h, static_cast<uint64_t>(f.node));
    });
    combine(h, kBarrier);
    if (granularity < 1)
        return h;

    // Block counts of every root stage, then what each root stage computes per block.
    funcs([&](const FuncSchedule &f) {
        if (f.location != ComputeLocation::Root)
            return;
        for (size_t s = 0; s < f.stages.size(); s++) {
            const StageTiling &t = f.stages[s];
            const Region &loops = dag.rootLoops(f.node, static_cast<int>(s));
            std::vector<int64_t> blocks;
            for (size_t j = 0; j < loops.size() && j < t.threads.size(); j++)
                blocks.push_back(ceilDiv(loops[j].extent(), t.threads[j] * t.serial[j]));
            hashExtents(h, blocks, granularity >= 2);
            combine(h, static_cast<uint64_t>(t.vectorLoop));
        }
    });
    combine(h, kBarrier);
    if (granularity < 2)
        return h;
    funcs([&](const FuncSchedule &f) {
        if (f.location == ComputeLocation::BlockLevel) {
            combine(h, static_cast<uint64_t>(f.node));
            combine(h, static_cast<uint64_t>(f.consumer));
            combine(h, static_cast<uint64_t>(f.consumerStage));
            combine(h, f.storedAtRoot ? 1 : 0);
        }
    });
    combine(h, kBarrier);
    if (granularity < 3)
        return h;

    // Thread level: thread counts of kernels and block-level Funcs, then the
    // Funcs computed per thread and those inlined (Halide keeps inlined Funcs
    // in the innermost loops, below the threads).
    funcs([&](const FuncSchedule &f) {
        if (f.location != ComputeLocation::Root && f.location != ComputeLocation::BlockLevel)
            return;
        for (const StageTiling &t : f.stages)
            hashExtents(h, t.threads, granularity >= 4);
    });
    combine(h, kBarrier);
    if (granularity < 4)
        return h;
    funcs([&](const FuncSchedule &f) {
        if (f.location == ComputeLocation::ThreadLevel) {
            combine(h, static_cast<uint64_t>(f.node));
            combine(h, static_cast<uint64_t>(f.consumer));
            combine(h, static_cast<uint64_t>(f.consumerStage));
        }
    });
    combine(h, kBarrier);
    funcs([&](const FuncSchedule &f) {
        if (f.location == ComputeLocation::Inlined)
            combine(h, static_cast<uint64_t>(f.node));
    });
    combine(h, kBarrier);
    if (granularity < 5)
        return h;

    // Serial loops per thread.
    funcs([&](const FuncSchedule &f) {
        for (const StageTiling &t : f.stages) {
            hashExtents(h, t.serial, granularity >= 6);
            if (granularity >= 6) {
                combine(h, t.unrolled ? 1 : 0);
                combine(h, static_cast<uint64_t>(t.vectorLoop));
            }
        }
    });
    return h;
}

} // namespace beamscope::search
