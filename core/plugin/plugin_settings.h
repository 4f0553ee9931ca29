#pragma once
// The plugin's search settings, read from the environment variables Halide's
// GPU autoscheduler (Anderson2021) used, plus Halide's MachineParams.
// A malformed value is an error naming the variable, never silently ignored.

#include "core/search/autoschedule_params.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

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
};

// getenv is injectable for tests. Throws SettingsError.
PluginSettings settingsFromEnvironment(int parallelism,
                                       const std::function<std::optional<std::string>(const char *)> &getenv);
PluginSettings settingsFromEnvironment(int parallelism);

} // namespace beamscope::plugin
