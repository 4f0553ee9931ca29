#pragma once
// The device a search command sizes its schedules for, from --profile: "local"
// (the CUDA device here) or a reference profile's name. One place for
// autoschedule and autotune.

#include "core/gpu/device_facts.h"

#include <optional>
#include <string>

namespace beamscope::cli {

// Empty with `error` set ("--profile local: no CUDA device ...", or the unknown
// name with the names there are).
std::optional<gpu::DeviceFacts> chooseProfile(const std::string &profile, std::string &error);

} // namespace beamscope::cli
