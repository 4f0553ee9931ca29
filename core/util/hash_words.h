#pragma once
// A hash of a fixed run of integers, for the search's memo tables keyed by small arrays (a warp's
// access pattern, a loop's bounds): cheap, and it mixes every word into every bit.

#include <cstddef>
#include <cstdint>
#include <span>

namespace beamscope {

inline size_t hashWords(std::span<const int64_t> words)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int64_t w : words)
        h = (h ^ static_cast<uint64_t>(w)) * 0xff51afd7ed558ccdull;
    return static_cast<size_t>(h ^ (h >> 33));
}

} // namespace beamscope
