#include "core/plugin/plugin_settings.h"

#include "core/weights/shipped_weights.h"

#include <charconv>
#include <fstream>
#include <set>
#include <cstdlib>

namespace beamscope::plugin {

namespace {

int64_t integer(const std::function<std::optional<std::string>(const char *)> &getenv, const char *name,
                int64_t fallback, int64_t lo, int64_t hi)
{
    const auto v = getenv(name);
    if (!v || v->empty())
        return fallback;
    int64_t out = 0;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
    if (ec != std::errc() || end != v->data() + v->size() || out < lo || out > hi)
        throw SettingsError(std::string(name) + ": expected an integer in " + std::to_string(lo) + ".." +
                            std::to_string(hi) + ", found '" + *v + "'");
    return out;
}

} // namespace

PluginSettings settingsFromEnvironment(int parallelism,
                                       const std::function<std::optional<std::string>(const char *)> &getenv)
{
    PluginSettings s;
    search::AutoscheduleParams &p = s.params;
    p.beamSize = static_cast<int>(integer(getenv, "HL_BEAM_SIZE", 32, 1, 100000));
    p.numPasses = static_cast<int>(integer(getenv, "HL_NUM_PASSES", 0, 0, 100));
    p.randomDropout = static_cast<int>(integer(getenv, "HL_RANDOM_DROPOUT", 100, 1, 100));
    p.randomDropoutSeed = static_cast<uint64_t>(integer(getenv, "HL_SEED", 0, 0, INT64_MAX));
    // Halide's limits are in KB; the search wants bytes.
    p.device.sharedMemoryLimitBytes = integer(getenv, "HL_SHARED_MEMORY_LIMIT", 48, 1, 1 << 20) * 1024;
    p.device.sharedMemorySmLimitBytes = integer(getenv, "HL_SHARED_MEMORY_SM_LIMIT", 96, 1, 1 << 20) * 1024;
    p.device.activeBlockLimit = static_cast<int>(integer(getenv, "HL_ACTIVE_BLOCK_LIMIT", 32, 1, 1 << 16));
    p.device.activeWarpLimit = static_cast<int>(integer(getenv, "HL_ACTIVE_WARP_LIMIT", 64, 1, 1 << 16));
    if (parallelism < 1)
        throw SettingsError("machine_params: parallelism must be positive, found " + std::to_string(parallelism));
    p.device.parallelism = parallelism;
    if (const auto o = getenv("HL_SEARCH_SPACE_OPTIONS"); o && !o->empty() && !p.options.parse(*o))
        throw SettingsError("HL_SEARCH_SPACE_OPTIONS: expected four 0/1 flags such as 1111, found '" + *o + "'");
    p.disableSubtiling = integer(getenv, "HL_NO_SUBTILING", 0, 0, 1) == 1;
    p.randomizeTilings = integer(getenv, "HL_RANDOMIZE_TILINGS", 0, 0, 1) == 1;
    p.freezeInlineComputeRoot = integer(getenv, "HL_FREEZE_INLINE_COMPUTE_ROOT", 0, 0, 1) == 1;
    s.debug = integer(getenv, "HL_DEBUG_AUTOSCHEDULE", 0, 0, 1000) > 0;
    if (const auto partial = getenv("HL_PARTIAL_SCHEDULE"); partial && !partial->empty())
        s.partialSchedulePath = *partial;
    s.costOnly = integer(getenv, "BEAMSCOPE_COST_ONLY", 0, 0, 1) == 1;
    if (s.costOnly && s.partialSchedulePath.empty())
        throw SettingsError("BEAMSCOPE_COST_ONLY=1 needs HL_PARTIAL_SCHEDULE: the loop-nest dump whose cost to print");

    if (const auto t = getenv("BEAMSCOPE_TRACE"); t && !t->empty())
        s.traceFile = *t;
    if (const auto d = getenv("BEAMSCOPE_TRACE_DIR"); d && !d->empty())
        s.traceDir = *d;

    if (const auto w = getenv("HL_WEIGHTS_DIR"); w && !w->empty())
        s.weightsPath = *w;
    else if (const auto b = getenv("BEAMSCOPE_WEIGHTS_PATH"); b && !b->empty())
        s.weightsPath = *b;
    else if (const auto shipped = weights::shippedBaselineWeights()) {
        // Halide's own plugin falls back to its compiled-in baseline; this is the same file.
        s.weightsPath = *shipped;
        s.weightsNote = "HL_WEIGHTS_DIR is not set: using the shipped " + shipped->string() +
                        " (Halide's default baseline.weights)";
    } else
        throw SettingsError("no weights: HL_WEIGHTS_DIR is not set and no shipped weights were found beside the "
                            "plugin; set HL_WEIGHTS_DIR to a .weights file or a legacy weights directory "
                            "(Beamscope never uses random weights)");
    return s;
}

PluginSettings settingsFromEnvironment(int parallelism)
{
    return settingsFromEnvironment(parallelism, [](const char *name) -> std::optional<std::string> {
        const char *v = std::getenv(name);
        return v ? std::optional<std::string>(v) : std::nullopt;
    });
}

GeneratorInvocation readGeneratorInvocation(const std::vector<std::string> &args)
{
    // Halide 14's generator main: these flags take a value; key=value arguments are the target,
    // the autoscheduler's settings and the GeneratorParams.
    static const std::set<std::string> withValue = {"-c", "-d", "-e", "-f", "-g", "-i", "-n",
                                                    "-o", "-p", "-r", "-s", "-t", "-x"};
    static const std::set<std::string> notParams = {"target", "auto_schedule", "machine_params"};
    GeneratorInvocation out;
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string &a = args[i];
        if (withValue.count(a) && i + 1 < args.size()) {
            const std::string &value = args[++i];
            if (a == "-g")
                out.generator = value;
            else if (a == "-f")
                out.functionName = value;
            else if (a == "-o")
                out.outputDir = value;
            continue;
        }
        const size_t eq = a.find('=');
        if (a.empty() || a.front() == '-' || eq == std::string::npos || eq == 0)
            continue;
        const std::string key = a.substr(0, eq), value = a.substr(eq + 1);
        if (key == "target")
            out.target = value;
        else if (key == "machine_params")
            out.machineParams = value;
        else if (!notParams.count(key))
            out.params[key] = value;
    }
    return out;
}

std::vector<std::string> ownCommandLine()
{
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    std::vector<std::string> args;
    std::string arg;
    while (std::getline(in, arg, '\0'))
        args.push_back(arg);
    return args;
}

std::filesystem::path tracePathFor(const PluginSettings &settings, const GeneratorInvocation &invocation,
                                   const std::string &pipelineName)
{
    if (!settings.traceFile.empty())
        return settings.traceFile;
    if (settings.traceDir.empty())
        return {};
    const std::string name = !invocation.functionName.empty() ? invocation.functionName : pipelineName;
    return settings.traceDir / (name + ".beamscope-trace.jsonl");
}

} // namespace beamscope::plugin
