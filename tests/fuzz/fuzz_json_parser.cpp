// libFuzzer target for parseJson (core/util/json*.cpp): any bytes give a value
// or an "offset N: expected X, found Y" error with N inside the input; a value
// written out reads back and writes the same text again (compact and indented).

#include "core/util/json.h"
#include "tests/fuzz/fuzz_support.h"

#include <string>

using namespace beamscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    constexpr const char *target = "fuzz_json_parser";
    const JsonParseResult r = parseJson(fuzz::text(data, size));
    if (!r.value) {
        if (r.error.rfind("offset ", 0) != 0 || r.error.find(": expected ") == std::string::npos ||
            r.error.find(", found ") == std::string::npos)
            fuzz::fail(target, "an error not of the form \"offset N: expected X, found Y\"");
        if (std::stoull(r.error.substr(7)) > size)
            fuzz::fail(target, "an error offset beyond the input");
        return 0;
    }
    if (!r.error.empty())
        fuzz::fail(target, "a value together with an error");
    for (const int indent : {-1, 2}) {
        const std::string once = r.value->dump(indent);
        const JsonParseResult again = parseJson(once);
        if (!again.value)
            fuzz::fail(target, "what dump() wrote does not parse");
        if (again.value->dump(indent) != once)
            fuzz::fail(target, "a value read back from dump() dumps differently");
    }
    return 0;
}
