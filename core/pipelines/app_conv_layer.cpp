// conv_layer: Halide's apps/conv_layer (v14.0.0): one 3x3 convolution layer
// with bias and ReLU, channels innermost.

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

PipelineInstance convLayer()
{
    // The generator's fixed problem size (batch, channels in/out, width, height).
    const int N = 5, CI = 128, CO = 128, W = 100, H = 80;
    ImageParam input(Float(32), 4, "input");   // [CI, W + 2, H + 2, N]
    ImageParam filter(Float(32), 4, "filter"); // [CO, 3, 3, CI]
    ImageParam bias(Float(32), 1, "bias");     // [CO]

    Var x("x"), y("y"), c("c"), n("n");
    // r.x walks the input channels, r.y / r.z the 3x3 window.
    RDom r(0, CI, 0, 3, 0, 3, "r");
    Func conv("conv");
    conv(c, x, y, n) = bias(c);
    conv(c, x, y, n) += filter(c, r.y, r.z, r.x) * input(r.x, x + r.y, y + r.z, n);

    Func relu("relu");
    relu(c, x, y, n) = max(0, conv(c, x, y, n));

    input.set_estimates({{0, CI}, {0, W + 2}, {0, H + 2}, {0, N}});
    filter.set_estimates({{0, CO}, {0, 3}, {0, 3}, {0, CI}});
    bias.set_estimates({{0, CO}});
    // Halide's generator gives the output's estimates in this order (width
    // first, channels third), unlike its layout; kept as Halide has it.
    relu.set_estimates({{0, W}, {0, H}, {0, CO}, {0, N}});
    return makeInstance("conv_layer", {relu}, {input, filter, bias}, tiledGpuSchedule(relu, {conv}));
}

} // namespace beamscope::pipelines::apps
