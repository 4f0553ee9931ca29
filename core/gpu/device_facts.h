#pragma once
// What the scheduler needs to know about a GPU: the local device (queried
// through the CUDA runtime when Beamscope was built with the toolkit) and
// reference profiles of the GPUs Halide's weights were trained or run on.

#include "core/util/json.h"

#include <optional>
#include <string>
#include <vector>

namespace beamscope::gpu {

struct DeviceFacts {
    std::string name;
    int computeMajor = 0;
    int computeMinor = 0;
    int smCount = 0;
    int sharedMemoryPerBlockBytes = 0;      // without opt-in (the default a kernel gets)
    int sharedMemoryPerBlockOptinBytes = 0; // with cudaFuncAttributeMaxDynamicSharedMemorySize
    int sharedMemoryPerSmBytes = 0;
    int registersPerBlock = 0;
    int registersPerSm = 0;
    int warpSize = 32;
    int maxThreadsPerBlock = 0;
    int maxThreadsPerSm = 0;
    int maxBlocksPerSm = 0;
    int clockKHz = 0;       // peak SM clock
    int memoryClockKHz = 0; // peak memory clock
    int memoryBusWidthBits = 0;
    int l2CacheBytes = 0;
    long long globalMemoryBytes = 0;

    // Peak DRAM bandwidth: two transfers per memory clock (DDR / HBM) times the bus width.
    double memoryBandwidthGBps() const;
    int computeCapability() const { return computeMajor * 10 + computeMinor; } // 70 for 7.0
    Json toJson() const;
};

// The result of asking the CUDA runtime about the local GPU. Never throws and
// never crashes: with no toolkit at build time, no driver, or no device, the
// answer is an empty `device` and a status that says which.
struct LocalDeviceQuery {
    bool supportBuilt = false;         // built with the CUDA Toolkit
    std::optional<DeviceFacts> device; // the first device, when one answered
    int deviceCount = 0;
    int driverVersion = 0;  // cudaDriverGetVersion, e.g. 12040 for 12.4; 0 when unknown
    int runtimeVersion = 0; // cudaRuntimeGetVersion of the runtime built in
    std::string status;     // "CUDA device 0 of 1", "no CUDA device: ...", "no CUDA device support built"
};

LocalDeviceQuery queryLocalDevice();

// Reference profiles from vendors' public specifications: "V100" (SXM2 16GB),
// "A100" (SXM4 40GB), "H100" (SXM5 80GB), "H200" (SXM 141GB).
const std::vector<DeviceFacts> &referenceProfiles();
std::optional<DeviceFacts> findProfile(const std::string &name); // case-insensitive, "v100" or the full name
std::vector<std::string> profileNames();                         // short names, in the order above

// The device a search sizes its schedules for: "local" (the CUDA device here,
// queried) or a reference profile's name. Empty with `error` set ("local: no
// CUDA device ...", or "unknown profile 'x' (expected local or one of ...)");
// callers put the option's name in front.
std::optional<DeviceFacts> resolveProfile(const std::string &name, std::string &error);

} // namespace beamscope::gpu
