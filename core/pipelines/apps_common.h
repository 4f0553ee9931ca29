#pragma once
// Shared helpers of the app pipelines (apps_*.cpp).

#include "core/pipelines/builtin_lists.h"

namespace beamscope::pipelines::apps {

// A GPU schedule that tiles the output's first two dimensions 16 x 16 and
// computes each Func of `roots` at root, tiled the same way (updates too).
std::function<void(const Halide::Target &)> tiledGpuSchedule(Halide::Func output, std::vector<Halide::Func> roots);

// BoundaryConditions::repeat_edge(im) as Halide 14 builds it, spelled out so its two Funcs
// carry the names Halide's dumps give them ("lambda_0" or the given lambda name, and
// "repeat_edge") whatever lambdas this process made before: a Func wrapping the image and
// one clamping every coordinate into the image's bounds.
Halide::Func repeatEdge(const Halide::ImageParam &im, const std::string &lambdaName = "lambda_0");

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
