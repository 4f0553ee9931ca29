#pragma once
// The plugin's search settings, read from the environment variables Halide's
// GPU autoscheduler (Anderson2021) used, plus Halide's MachineParams.
// A malformed value is an error naming the variable, never silently ignored.

#include "core/search/autoschedule_params.h"

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace beamscope::plugin {

class SettingsError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct PluginSettings {
    search::AutoscheduleParams params;
    std::filesystem::path weightsPath; // HL_WEIGHTS_DIR, else $BEAMSCOPE_WEIGHTS_PATH, else the shipped baseline
    std::string weightsNote;           // says so when the shipped baseline was taken
    bool debug = false;                // HL_DEBUG_AUTOSCHEDULE
    // HL_PARTIAL_SCHEDULE (Anderson2021's partial_schedule_path): a loop-nest
    // dump whose decisions the search keeps; empty when unset.
    std::filesystem::path partialSchedulePath;
    // BEAMSCOPE_COST_ONLY=1 (with HL_PARTIAL_SCHEDULE): cost the dump's complete
    // state as it is, print its per-stage costs and features, search nothing.
    bool costOnly = false;
    // BEAMSCOPE_TRACE=FILE: the search is recorded there (the explorer opens it); or
    // BEAMSCOPE_TRACE_DIR=DIR: recorded as DIR/<function name>.beamscope-trace.jsonl, one file per
    // library a build schedules (what the CMake package's beamscope_record_searches() sets).
    std::filesystem::path traceFile, traceDir;
};

// What Halide's generator main was asked to do, read from its command line (the plugin runs in
// that program): the generator (-g), the function (-f), the output folder (-o), the target, the
// machine params, and the GeneratorParams (every other key=value argument).
struct GeneratorInvocation {
    std::string generator, functionName, outputDir, target, machineParams;
    std::map<std::string, std::string> params;
};
GeneratorInvocation readGeneratorInvocation(const std::vector<std::string> &args);
std::vector<std::string> ownCommandLine(); // this process's arguments (/proc/self/cmdline)

// Where this search's trace goes: BEAMSCOPE_TRACE as given, else
// BEAMSCOPE_TRACE_DIR/<function or pipeline name>.beamscope-trace.jsonl; empty when neither is set.
std::filesystem::path tracePathFor(const PluginSettings &settings, const GeneratorInvocation &invocation,
                                   const std::string &pipelineName);

// getenv is injectable for tests. Throws SettingsError.
PluginSettings settingsFromEnvironment(int parallelism,
                                       const std::function<std::optional<std::string>(const char *)> &getenv);
PluginSettings settingsFromEnvironment(int parallelism);

} // namespace beamscope::plugin
