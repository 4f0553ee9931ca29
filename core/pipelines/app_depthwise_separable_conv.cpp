// depthwise_separable_conv: Halide's apps/depthwise_separable_conv (v14.0.0):
// a zero-padded depthwise convolution followed by a 1x1 (pointwise)
// convolution with bias and ReLU, as in a MobileNet layer.

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

PipelineInstance depthwiseSeparableConv()
{
    ImageParam input(Float(32), 4, "input");                      // [in channels, width, height, batch]
    ImageParam depthwiseFilter(Float(32), 4, "depthwise_filter"); // [multiplier, in channels, fw, fh]
    ImageParam pointwiseFilter(Float(32), 2, "pointwise_filter"); // [out channels, multiplier * in channels]
    ImageParam bias(Float(32), 1, "bias");                        // [out channels]

    Var x("x"), y("y"), d("d"), b("b");

    // Zero padding in x and y, written by hand (as Halide does) rather than
    // with a boundary-condition helper; Halide's generator leaves it unnamed,
    // hence f0.
    Func inputBounded("f0");
    Expr inside = x >= 0 && x < input.dim(1).extent() && y >= 0 && y < input.dim(2).extent();
    Expr xc = clamp(x, 0, input.dim(1).max());
    Expr yc = clamp(y, 0, input.dim(2).max());
    inputBounded(d, x, y, b) = select(inside, input(d, xc, yc, b), 0.0f);

    // Everything about the filter is read from its buffer at run time.
    Expr multiplier = depthwiseFilter.dim(0).extent();
    Expr padW = depthwiseFilter.dim(2).extent() / 2;
    Expr padH = depthwiseFilter.dim(3).extent() / 2;
    RDom dom(0, depthwiseFilter.dim(0).extent(), 0, depthwiseFilter.dim(2).extent(), 0, depthwiseFilter.dim(3).extent(),
             "dom");
    RVar rd = dom[0], rx = dom[1], ry = dom[2];
    // Only an update: it accumulates onto the implicit zero.
    Func depthwise("depthwise_convolved");
    depthwise(d, x, y, b) +=
        depthwiseFilter(rd, d, rx, ry) * inputBounded(d / multiplier, x + rx - padW, y + ry - padH, b);

    // Mixes all intermediate channels into each output channel.
    RDom rc(0, pointwiseFilter.dim(1).extent(), "rc");
    Func pointwise("pointwise_convolved");
    pointwise(d, x, y, b) = bias(d);
    pointwise(d, x, y, b) += pointwiseFilter(d, rc) * depthwise(rc, x, y, b);

    Func output("output");
    output(d, x, y, b) = max(pointwise(d, x, y, b), 0.f);

    // The generator's estimates: the second layer of MobileNet v2.
    const int N = 4, CI = 32, CO = 16, CM = 1, W = 112, H = 112;
    input.set_estimates({{0, CI}, {0, W}, {0, H}, {0, N}});
    depthwiseFilter.set_estimates({{0, CI / CO}, {0, CI}, {0, 3}, {0, 3}});
    pointwiseFilter.set_estimates({{0, CO}, {0, CI * CM}});
    bias.set_estimates({{0, CO}});
    output.set_estimates({{0, CO}, {0, W}, {0, H}, {0, N}});
    return makeInstance("depthwise_separable_conv", {output}, {input, depthwiseFilter, pointwiseFilter, bias},
                        tiledGpuSchedule(output, {depthwise, pointwise}));
}

} // namespace beamscope::pipelines::apps
