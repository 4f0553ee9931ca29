#include "core/gpu/search_parameters.h"

#include <algorithm>

namespace beamscope::gpu {

DeviceSearchParameters searchParametersFor(const DeviceFacts &device)
{
    DeviceSearchParameters p;
    p.parallelism = device.smCount;
    // The search sizes tiles for the shared memory a block gets without opt-in,
    // as Halide's defaults (48 KB on a V100) do.
    p.sharedMemoryLimitKb = device.sharedMemoryPerBlockBytes / 1024;
    p.sharedMemorySmLimitKb = device.sharedMemoryPerSmBytes / 1024;
    p.activeBlockLimit = device.maxBlocksPerSm;
    p.activeWarpLimit = device.warpSize > 0 ? device.maxThreadsPerSm / device.warpSize : 0;
    return p;
}

Json DeviceSearchParameters::toJson() const
{
    Json j = Json::object();
    j["parallelism"] = parallelism;
    j["shared_memory_limit_kb"] = sharedMemoryLimitKb;
    j["shared_memory_sm_limit_kb"] = sharedMemorySmLimitKb;
    j["active_block_limit"] = activeBlockLimit;
    j["active_warp_limit"] = activeWarpLimit;
    return j;
}

} // namespace beamscope::gpu
