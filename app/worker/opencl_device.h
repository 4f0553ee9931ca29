#pragma once
// What OpenCL device the worker's GPU schedules run on, for provenance: the
// first platform's name and version and its first device's name, version and
// compute units. Here, not in core: the OpenCL runtime (PoCL brings its own
// LLVM) must never be loaded into a process that has libHalide.

#include "core/util/json.h"

namespace beamscope::worker {

// {"ok": true, "platform", "platform_version", "device", "device_version",
// "compute_units"} or {"ok": false, "error"}. Loads libOpenCL.so.1 with dlopen,
// so the worker runs where there is no OpenCL at all.
beamscope::Json describeOpenCL();

} // namespace beamscope::worker
