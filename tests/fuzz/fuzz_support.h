#pragma once
// What every fuzz target here shares: failing loudly when an invariant breaks
// (libFuzzer records the input that did it), and the input as text.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace beamscope::fuzz {

[[noreturn]] inline void fail(const char *target, const char *why)
{
    std::fprintf(stderr, "%s: invariant broken: %s\n", target, why);
    std::abort();
}

inline std::string_view text(const uint8_t *data, size_t size) { return {reinterpret_cast<const char *>(data), size}; }

} // namespace beamscope::fuzz
