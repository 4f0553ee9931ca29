#pragma once
// Shared helpers of the app pipelines (apps_*.cpp).

#include "core/pipelines/builtin_lists.h"

namespace beamscope::pipelines::apps {

// A GPU schedule that tiles the output's first two dimensions 16 x 16 and
// computes each Func of `roots` at root, tiled the same way (updates too).
std::function<void(const Halide::Target &)> tiledGpuSchedule(Halide::Func output, std::vector<Halide::Func> roots);

PipelineInstance bilateralGrid();
PipelineInstance bgu();
PipelineInstance cameraPipe();
PipelineInstance harris();
PipelineInstance hist();
PipelineInstance iirBlur();
PipelineInstance interpolate();
PipelineInstance lensBlur();
PipelineInstance localLaplacian();
PipelineInstance maxFilter();
PipelineInstance nlMeans();
PipelineInstance stencilChain();
PipelineInstance unsharp();
PipelineInstance convLayer();
PipelineInstance cudaMatMul();
PipelineInstance depthwiseSeparableConv();

} // namespace beamscope::pipelines::apps
