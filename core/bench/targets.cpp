#include "core/bench/targets.h"

#include "core/pipelines/host_target.h"

namespace beamscope::bench {

std::optional<TargetKind> parseTargetKind(const std::string &name)
{
    if (name == "host")
        return TargetKind::Host;
    if (name == "cuda")
        return TargetKind::Cuda;
    if (name == "opencl")
        return TargetKind::OpenCL;
    return std::nullopt;
}

const char *targetKindName(TargetKind kind)
{
    switch (kind) {
    case TargetKind::Host: return "host";
    case TargetKind::Cuda: return "cuda";
    case TargetKind::OpenCL: return "opencl";
    }
    return "?";
}

int halideCudaCapability(int capability)
{
    static const int supported[] = {80, 75, 70, 61, 50, 35, 32, 30};
    for (int c : supported)
        if (c <= capability && c <= kMaxHalideCudaCapability)
            return c;
    return 30;
}

namespace {
Halide::Target::Feature capabilityFeature(int capability)
{
    switch (halideCudaCapability(capability)) {
    case 80: return Halide::Target::CUDACapability80;
    case 75: return Halide::Target::CUDACapability75;
    case 70: return Halide::Target::CUDACapability70;
    case 61: return Halide::Target::CUDACapability61;
    case 50: return Halide::Target::CUDACapability50;
    case 35: return Halide::Target::CUDACapability35;
    case 32: return Halide::Target::CUDACapability32;
    default: return Halide::Target::CUDACapability30;
    }
}
} // namespace

Halide::Target benchTarget(TargetKind kind, int cudaCapability)
{
    // Halide 14 can report CPU features this CPU lacks (see host_target.h).
    Halide::Target t = pipelines::hostTarget();
    switch (kind) {
    case TargetKind::Host: break;
    case TargetKind::OpenCL: t = t.with_feature(Halide::Target::OpenCL); break;
    case TargetKind::Cuda:
        t = t.with_feature(Halide::Target::CUDA).with_feature(capabilityFeature(cudaCapability));
        break;
    }
    return t;
}

Halide::Target benchTarget(TargetKind kind, const gpu::LocalDeviceQuery &local)
{
    const int capability = local.device ? local.device->computeCapability() : kDefaultCudaCapability;
    return benchTarget(kind, capability);
}

} // namespace beamscope::bench
