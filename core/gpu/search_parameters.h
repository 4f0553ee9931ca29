#pragma once
// The device-dependent part of Anderson2021's search parameters
// (HALIDE-FACTS.md, "Search parameters"), derived from a device's facts.

#include "core/gpu/device_facts.h"
#include "core/util/json.h"

namespace beamscope::gpu {

struct DeviceSearchParameters {
    int parallelism = 80;           // SM count
    int sharedMemoryLimitKb = 48;   // per block, without opt-in
    int sharedMemorySmLimitKb = 96; // per SM
    int activeBlockLimit = 32;      // resident blocks per SM
    int activeWarpLimit = 64;       // resident warps per SM

    Json toJson() const; // keys as Halide names them: parallelism, shared_memory_limit_kb, ...
};

DeviceSearchParameters searchParametersFor(const DeviceFacts &device);

} // namespace beamscope::gpu
