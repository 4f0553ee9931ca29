#pragma once
// The local OpenCL device (PoCL's CPU device where there is no GPU), as the
// bench worker sees it: the worker, not this process, loads the OpenCL runtime,
// since PoCL brings an LLVM that must never share a process with libHalide's.

#include <string>

namespace beamscope::gpu {

struct OpenClQuery {
    bool ok = false;
    std::string platform, platformVersion, device, deviceVersion;
    int computeUnits = 0;
    std::string error; // why nothing was found: no worker, no OpenCL runtime, no device
};

// Runs `beamscope-bench-worker --describe-opencl` (util/bench_worker_path.h), 30 s at most.
OpenClQuery queryOpenClDevice();

} // namespace beamscope::gpu
