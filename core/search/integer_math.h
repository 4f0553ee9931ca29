#pragma once
// Integer helpers the search's tilings, states and hashes share.

#include <cstdint>

namespace beamscope::search {

// ceil(a / b) for a >= 0; a itself when b is not positive (an extent that is
// not split stays whole).
constexpr int64_t ceilDiv(int64_t a, int64_t b) { return b <= 0 ? a : (a + b - 1) / b; }

} // namespace beamscope::search
