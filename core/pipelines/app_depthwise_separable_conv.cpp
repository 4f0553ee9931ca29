// depthwise_separable_conv: the simplified stand-in, to be replaced by Halide's own app (apps/depthwise_separable_conv at v14.0.0).

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

PipelineInstance depthwiseSeparableConv()
{
    const int N = 4, CI = 32, CO = 16, W = 112, H = 112;
    ImageParam input(Float(32), 4, "input"), depthwiseFilter(Float(32), 3, "depthwise_filter");
    ImageParam pointwiseFilter(Float(32), 2, "pointwise_filter"), bias(Float(32), 1, "bias");
    Var ci("ci"), co("co"), x("x"), y("y"), n("n");
    RDom rd(0, 3, 0, 3, "rd");
    Func depthwise("depthwise");
    depthwise(ci, x, y, n) = 0.0f;
    depthwise(ci, x, y, n) += depthwiseFilter(ci, rd.x, rd.y) * input(ci, x + rd.x, y + rd.y, n);
    RDom rc(0, CI, "rc");
    Func pointwise("pointwise");
    pointwise(co, x, y, n) = bias(co);
    pointwise(co, x, y, n) += pointwiseFilter(co, rc) * depthwise(rc, x, y, n);
    Func output("depthwise_separable_conv");
    output(co, x, y, n) = max(pointwise(co, x, y, n), 0.0f);

    input.set_estimates({{0, CI}, {0, W + 2}, {0, H + 2}, {0, N}});
    depthwiseFilter.set_estimates({{0, CI}, {0, 3}, {0, 3}});
    pointwiseFilter.set_estimates({{0, CO}, {0, CI}});
    bias.set_estimates({{0, CO}});
    output.set_estimates({{0, CO}, {0, W}, {0, H}, {0, N}});
    return makeInstance("depthwise_separable_conv", {output}, {input, depthwiseFilter, pointwiseFilter, bias},
                        tiledGpuSchedule(output, {depthwise, pointwise}));
}

} // namespace beamscope::pipelines::apps
