// libFuzzer target for search traces (core/search/search_trace.cpp, which is
// plain C++ over core/util/json: no Halide, so it is compiled here as it is).
// Any text gives a trace or a "line N: ..." error; a trace that parses
// serializes to text that parses to a trace serializing the same way.

#include "core/search/search_trace.h"
#include "tests/fuzz/fuzz_support.h"

using namespace beamscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    constexpr const char *target = "fuzz_search_trace";
    std::string error;
    const auto trace = search::SearchTrace::parse(std::string(fuzz::text(data, size)), &error);
    if (!trace) {
        if (error.rfind("line ", 0) != 0)
            fuzz::fail(target, "an error without its line");
        return 0;
    }
    for (const auto &n : trace->nodes()) {
        if (n.parent < -1 || n.parent >= n.id)
            fuzz::fail(target, "a node whose parent is not -1 or an earlier node");
        if (!n.features.empty() && n.features.size() != n.stageCosts.size())
            fuzz::fail(target, "features and stage costs of different lengths");
    }
    const std::string once = trace->serialize();
    std::string againError;
    const auto again = search::SearchTrace::parse(once, &againError);
    if (!again)
        fuzz::fail(target, "a serialized trace does not parse");
    if (again->serialize() != once)
        fuzz::fail(target, "a trace read back serializes differently");
    return 0;
}
