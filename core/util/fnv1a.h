#pragma once
// 64-bit FNV-1a: the hash Halide's recorded search trees give each loop-nest dump
// (tests/fixtures/halide/search_trees), and the checksum of training checkpoints.

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace beamscope {

constexpr uint64_t kFnv1aOffset = 0xcbf29ce484222325ull;

constexpr uint64_t fnv1a(std::string_view bytes, uint64_t h = kFnv1aOffset)
{
    for (char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ull;
    }
    return h;
}

// 16 lower-case hex digits, as the search trees print it.
inline std::string fnv1aHex(uint64_t h)
{
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

} // namespace beamscope
