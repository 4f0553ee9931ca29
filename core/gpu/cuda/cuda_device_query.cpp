// The local device through the CUDA runtime. Only compiled when CMake found
// the CUDA Toolkit (core/CMakeLists.txt), so the rest of core never needs it.

#include "core/gpu/device_facts.h"

#include <cuda_runtime_api.h>

namespace beamscope::gpu {

namespace {
int attribute(cudaDeviceAttr attr, int device)
{
    int value = 0;
    if (cudaDeviceGetAttribute(&value, attr, device) != cudaSuccess)
        return 0;
    return value;
}
} // namespace

LocalDeviceQuery queryCudaRuntime()
{
    LocalDeviceQuery q;
    q.supportBuilt = true;
    cudaRuntimeGetVersion(&q.runtimeVersion);
    cudaDriverGetVersion(&q.driverVersion);
    int count = 0;
    // Without a driver the runtime answers with an error (insufficient driver,
    // no device, ...) rather than failing to load: report it as "no device".
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        q.status = std::string("no CUDA device: ") + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
        cudaGetLastError(); // clear the sticky error for later callers
        return q;
    }
    q.deviceCount = count;
    if (count <= 0) {
        q.status = "no CUDA device: the CUDA runtime reports 0 devices";
        return q;
    }

    const int dev = 0;
    DeviceFacts d;
    char name[256] = {};
    // cudaDeviceProp lost several fields in CUDA 13, so everything but the name
    // comes from cudaDeviceGetAttribute, which every runtime version has.
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, dev) == cudaSuccess) {
        std::copy(prop.name, prop.name + sizeof(prop.name) - 1, name);
        d.globalMemoryBytes = static_cast<long long>(prop.totalGlobalMem);
    }
    d.name = name[0] ? name : "CUDA device 0";
    d.computeMajor = attribute(cudaDevAttrComputeCapabilityMajor, dev);
    d.computeMinor = attribute(cudaDevAttrComputeCapabilityMinor, dev);
    d.smCount = attribute(cudaDevAttrMultiProcessorCount, dev);
    d.sharedMemoryPerBlockBytes = attribute(cudaDevAttrMaxSharedMemoryPerBlock, dev);
    d.sharedMemoryPerBlockOptinBytes = attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    d.sharedMemoryPerSmBytes = attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
    d.registersPerBlock = attribute(cudaDevAttrMaxRegistersPerBlock, dev);
    d.registersPerSm = attribute(cudaDevAttrMaxRegistersPerMultiprocessor, dev);
    d.warpSize = attribute(cudaDevAttrWarpSize, dev);
    d.maxThreadsPerBlock = attribute(cudaDevAttrMaxThreadsPerBlock, dev);
    d.maxThreadsPerSm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    d.maxBlocksPerSm = attribute(cudaDevAttrMaxBlocksPerMultiprocessor, dev);
    d.clockKHz = attribute(cudaDevAttrClockRate, dev);
    d.memoryClockKHz = attribute(cudaDevAttrMemoryClockRate, dev);
    d.memoryBusWidthBits = attribute(cudaDevAttrGlobalMemoryBusWidth, dev);
    d.l2CacheBytes = attribute(cudaDevAttrL2CacheSize, dev);
    q.device = d;
    q.status = "CUDA device 0 of " + std::to_string(count);
    return q;
}

} // namespace beamscope::gpu
