#include "core/search/device_limits.h"

#include "core/gpu/search_parameters.h"

namespace beamscope::search {

FeatureParams featureParamsFor(const gpu::DeviceFacts &device)
{
    const gpu::DeviceSearchParameters p = gpu::searchParametersFor(device);
    FeatureParams out;
    out.parallelism = p.parallelism;
    out.sharedMemoryLimitBytes = int64_t(p.sharedMemoryLimitKb) * 1024;
    out.sharedMemorySmLimitBytes = int64_t(p.sharedMemorySmLimitKb) * 1024;
    out.activeBlockLimit = p.activeBlockLimit;
    out.activeWarpLimit = p.activeWarpLimit;
    return out;
}

} // namespace beamscope::search
