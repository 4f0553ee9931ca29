// libFuzzer target for generator parameters (core/util/key_value.cpp): the
// input's lines are the `--param` entries; they give a map holding exactly
// them, or an error naming the entry.

#include "core/util/key_value.h"
#include "tests/fuzz/fuzz_support.h"

using namespace beamscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    constexpr const char *target = "fuzz_generator_params";
    std::vector<std::string> entries;
    const std::string_view text = fuzz::text(data, size);
    for (size_t pos = 0; pos <= text.size();) {
        const size_t eol = std::min(text.find('\n', pos), text.size());
        entries.emplace_back(text.substr(pos, eol - pos));
        pos = eol + 1;
    }
    std::string error;
    const auto params = parseKeyValues(entries, &error);
    if (!params) {
        if (error.rfind("generator param \"", 0) != 0 || error.find("expected") == std::string::npos)
            fuzz::fail(target, "an error that does not name the entry and what was expected");
        return 0;
    }
    if (params->size() != entries.size())
        fuzz::fail(target, "a map that lost or gained entries");
    for (const std::string &e : entries) {
        const size_t eq = e.find('=');
        const auto it = params->find(e.substr(0, eq));
        if (eq == std::string::npos || it == params->end() || it->second != e.substr(eq + 1))
            fuzz::fail(target, "an entry that is not in the map as written");
        if (it->first.empty() || (it->first[0] >= '0' && it->first[0] <= '9'))
            fuzz::fail(target, "a key that is empty or starts with a digit");
    }
    return 0;
}
