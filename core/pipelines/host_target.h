#pragma once
// The Halide target for code that runs on this machine.
//
// Halide 14's get_host_target() reports avx512_sapphirerapids on CPUs with
// AVX512-BF16 and VNNI (AMD Zen 4 among them) even when they lack AVX512-FP16,
// and LLVM then emits FP16 instructions (vmovw) that fault with SIGILL. This
// drops the feature unless the CPU really has AVX512-FP16.

#include <Halide.h>

namespace beamscope::pipelines {

Halide::Target hostTarget();

// The same correction for any target whose host part came from get_host_target().
Halide::Target correctedForThisCpu(Halide::Target target);

} // namespace beamscope::pipelines
