#pragma once
// The Halide targets Beamscope measures on (ARCHITECTURE.md, "Devices and targets").

#include "core/gpu/device_facts.h"

#include <Halide.h>

#include <optional>
#include <string>

namespace beamscope::bench {

enum class TargetKind { Host, Cuda, OpenCL };

std::optional<TargetKind> parseTargetKind(const std::string &name); // "host", "cuda", "opencl"
const char *targetKindName(TargetKind kind);

// Halide 14 generates PTX up to sm_80 (ARCHITECTURE.md); newer GPUs JIT that PTX.
constexpr int kMaxHalideCudaCapability = 80;
// Without a local device, PTX is generated for the V100 reference profile (sm_70).
constexpr int kDefaultCudaCapability = 70;

// The highest capability Halide 14 has a target feature for that does not
// exceed `capability` (e.g. 90 -> 80, 86 -> 80, 72 -> 70, 60 -> 50).
int halideCudaCapability(int capability);

// host, host-opencl, or host-cuda-cuda_capability_NN with NN from the local
// device when there is one (else kDefaultCudaCapability).
Halide::Target benchTarget(TargetKind kind, const gpu::LocalDeviceQuery &local);
Halide::Target benchTarget(TargetKind kind, int cudaCapability);

} // namespace beamscope::bench
