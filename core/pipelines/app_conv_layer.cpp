// conv_layer: the simplified stand-in, to be replaced by Halide's own app (apps/conv_layer at v14.0.0).

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

PipelineInstance convLayer()
{
    const int N = 5, CI = 128, CO = 128, W = 100, H = 80;
    ImageParam input(Float(32), 4, "input"), filter(Float(32), 4, "filter"), bias(Float(32), 1, "bias");
    Var c("c"), x("x"), y("y"), n("n");
    RDom r(0, CI, 0, 3, 0, 3, "r");
    Func conv("conv");
    conv(c, x, y, n) = bias(c);
    conv(c, x, y, n) += filter(c, r.y, r.z, r.x) * input(r.x, x + r.y, y + r.z, n);
    Func output("conv_layer");
    output(c, x, y, n) = max(0.0f, conv(c, x, y, n));

    input.set_estimates({{0, CI}, {0, W + 2}, {0, H + 2}, {0, N}});
    filter.set_estimates({{0, CO}, {0, 3}, {0, 3}, {0, CI}});
    bias.set_estimates({{0, CO}});
    output.set_estimates({{0, CO}, {0, W}, {0, H}, {0, N}});
    return makeInstance("conv_layer", {output}, {input, filter, bias}, tiledGpuSchedule(output, {conv}));
}

} // namespace beamscope::pipelines::apps
