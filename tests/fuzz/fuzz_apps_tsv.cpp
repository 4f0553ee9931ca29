// libFuzzer target for a sample root's apps.tsv (core/samples/apps_file.cpp):
// every line either maps an id to a plausible app name or gives an error
// "fuzz/apps.tsv:LINE: ..."; the return value says whether there was none.

#include "core/samples/apps_file.h"
#include "tests/fuzz/fuzz_support.h"

using namespace beamscope::samples;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    constexpr const char *target = "fuzz_apps_tsv";
    std::map<int32_t, std::string> apps;
    std::vector<std::string> errors;
    const bool ok = parseAppsTsv(beamscope::fuzz::text(data, size), "fuzz/apps.tsv", apps, errors);
    if (ok != errors.empty())
        beamscope::fuzz::fail(target, "the result disagrees with the errors");
    for (const std::string &e : errors)
        if (e.rfind("fuzz/apps.tsv:", 0) != 0 || e.find(": expected") == std::string::npos)
            beamscope::fuzz::fail(target, "an error without file:line and what was expected");
    for (const auto &[id, app] : apps)
        if (app.empty() || app.find('/') != std::string::npos || app.find('\t') != std::string::npos ||
            app.find('\n') != std::string::npos || app.front() == ' ' || app.back() == ' ')
            beamscope::fuzz::fail(target, "an app name that is empty, untrimmed or holds '/', a tab or a newline");
    return 0;
}
