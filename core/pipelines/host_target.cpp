#include "core/pipelines/host_target.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace beamscope::pipelines {

namespace {

bool cpuHasAvx512Fp16()
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return false;
    return (d >> 23) & 1u; // CPUID.(EAX=7,ECX=0):EDX[23] = AVX512-FP16
#else
    return false;
#endif
}

} // namespace

Halide::Target correctedForThisCpu(Halide::Target target)
{
    if (target.arch == Halide::Target::X86 && target.has_feature(Halide::Target::AVX512_SapphireRapids) &&
        !cpuHasAvx512Fp16())
        target = target.without_feature(Halide::Target::AVX512_SapphireRapids);
    return target;
}

Halide::Target hostTarget() { return correctedForThisCpu(Halide::get_host_target()); }

} // namespace beamscope::pipelines
