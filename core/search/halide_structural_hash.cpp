#include "core/search/halide_structural_hash.h"

#include "core/util/fnv1a.h"

#include <algorithm>
#include <map>
#include <string>

namespace beamscope::search {

namespace {

void combine(uint64_t &h, uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); }

constexpr uint64_t kBarrier = ~uint64_t(0);

uint64_t funcId(const std::string &name) { return fnv1a(name); }

struct Level {
    std::vector<int> realized, loops, inlined; // entry indices, loops in Halide's child order
    std::vector<int> stageOf;                  // per loop: which stage of its Func it is
};

// Halide's dump prints a level's realizations, then its child loops last-first, then its inlined
// Funcs; a Func's stages are all computed at the same level, stage 0 first among the children.
Level readLevel(const LoopNestText &nest, int entry)
{
    Level l;
    for (int c : nest.entries[static_cast<size_t>(entry)].children) {
        const NestEntry &e = nest.entries[static_cast<size_t>(c)];
        if (e.kind == NestLineKind::Realize)
            l.realized.push_back(c);
        else if (e.kind == NestLineKind::Inlined)
            l.inlined.push_back(c);
        else if (e.kind == NestLineKind::Loop)
            l.loops.push_back(c);
    }
    std::reverse(l.loops.begin(), l.loops.end());
    std::map<std::string, int> seen;
    for (int c : l.loops)
        l.stageOf.push_back(seen[nest.entries[static_cast<size_t>(c)].func]++);
    return l;
}

void hashLevel(const LoopNestText &nest, int entry, int depth, uint64_t &h)
{
    if (depth < 0)
        return;
    const Level l = readLevel(nest, entry);
    for (int r : l.realized)
        combine(h, funcId(nest.entries[static_cast<size_t>(r)].func));
    combine(h, kBarrier);
    for (size_t i = 0; i < l.loops.size(); i++) {
        combine(h, funcId(nest.entries[static_cast<size_t>(l.loops[i])].func));
        combine(h, static_cast<uint64_t>(l.stageOf[i]));
    }
    combine(h, kBarrier);
    for (int n : l.inlined)
        combine(h, funcId(nest.entries[static_cast<size_t>(n)].func));
    combine(h, kBarrier);
    if (depth > 0) {
        for (int c : l.loops)
            for (const LoopSize &s : nest.entries[static_cast<size_t>(c)].sizes)
                combine(h, static_cast<uint64_t>(depth == 1 ? (s.value > 1 ? 1 : 0) : s.value));
        const NestEntry &self = nest.entries[static_cast<size_t>(entry)];
        const bool root = self.kind == NestLineKind::Root;
        combine(h, static_cast<uint64_t>(static_cast<int64_t>(root ? -1 : self.vectorLoop)));
        combine(h, static_cast<uint64_t>(static_cast<int64_t>(root ? -1 : self.vectorDim)));
    }
    if (depth > 1)
        for (int c : l.loops)
            hashLevel(nest, c, depth - 2, h);
}

} // namespace

uint64_t halideStructuralHash(const LoopNestText &nest, int decisionsMade, int depth)
{
    uint64_t h = static_cast<uint64_t>(decisionsMade);
    if (!nest.entries.empty())
        hashLevel(nest, 0, depth, h);
    return h;
}

} // namespace beamscope::search
