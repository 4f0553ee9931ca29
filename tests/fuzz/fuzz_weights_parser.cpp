// libFuzzer target: any byte string given to the hwf1 parser must give either
// complete weights that serialize back to exactly those bytes, or an error
// diagnostic and no weights; never a crash, a hang or a giant allocation.

#include "core/weights/statistics.h"
#include "core/weights/weights.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace beamscope::weights;

namespace {
[[noreturn]] void fail(const char *why)
{
    std::fprintf(stderr, "fuzz_weights_parser: invariant broken: %s\n", why);
    std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::span<const char> bytes(reinterpret_cast<const char *>(data), size);
    const LoadResult result = parseWeightsFile(bytes, "fuzz.weights");
    for (const auto &d : result.diagnostics)
        if (d.format().empty() || d.message.empty())
            fail("a diagnostic without a message");

    if (!result.ok()) {
        if (!result.firstError())
            fail("no weights and no error");
        return 0;
    }
    if (result.firstError())
        fail("weights returned together with an error");
    const Weights &w = *result.weights;
    if (!shapeProblem(w).empty())
        fail("returned weights disagree with their network's shapes");
    const auto again = serializeWeightsFile(w);
    if (again.size() != size || std::memcmp(again.data(), data, size) != 0)
        fail("a file that loads does not serialize back to the same bytes");
    for (const Tensor &t : w.tensors) {
        const TensorStats s = computeStats(t);
        if (s.count != t.data.size() || s.nanCount + s.infCount > s.count)
            fail("statistics count elements wrongly");
    }
    for (const auto &t : diffWeights(w, w).tensors)
        if (t.changedCount != 0)
            fail("weights differ from themselves");
    return 0;
}
