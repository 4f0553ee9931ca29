// nl_means: the simplified stand-in, to be replaced by Halide's own app (apps/nl_means at v14.0.0).

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

PipelineInstance nlMeans()
{
    ImageParam input(Float(32), 3, "input");
    Param<int> patch_size("patch_size"), search_area("search_area");
    Param<float> sigma("sigma");
    Var x("x"), y("y"), c("c"), dx("dx"), dy("dy");
    Func clamped = BoundaryConditions::repeat_edge(input);
    Expr inv_sigma_sq = -1.0f / (sigma * sigma * cast<float>(patch_size * patch_size));

    Func dc("channel_distance");
    Expr delta = clamped(x, y, c) - clamped(x + dx, y + dy, c);
    dc(x, y, dx, dy, c) = delta * delta;
    Func d("distance");
    d(x, y, dx, dy) = dc(x, y, dx, dy, 0) + dc(x, y, dx, dy, 1) + dc(x, y, dx, dy, 2);
    RDom patch(-(patch_size / 2), patch_size, "patch");
    Func blurY("blur_d_y"), blur("blur_d");
    blurY(x, y, dx, dy) = 0.0f;
    blurY(x, y, dx, dy) += d(x, y + patch, dx, dy);
    blur(x, y, dx, dy) = 0.0f;
    blur(x, y, dx, dy) += blurY(x + patch, y, dx, dy);
    Func w("weight");
    w(x, y, dx, dy) = exp(blur(x, y, dx, dy) * inv_sigma_sq);
    RDom s(-(search_area / 2), search_area, -(search_area / 2), search_area, "s");
    Func sum("non_local_means_sum");
    sum(x, y, c) = 0.0f;
    sum(x, y, c) += w(x, y, s.x, s.y) * select(c < 3, clamped(x + s.x, y + s.y, min(c, 2)), 1.0f);
    Func output("nl_means");
    output(x, y, c) = clamp(sum(x, y, c) / sum(x, y, 3), 0.0f, 1.0f);

    patch_size.set_estimate(7);
    search_area.set_estimate(7);
    sigma.set_estimate(0.12f);
    input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    return makeInstance("nl_means", {output}, {input, patch_size, search_area, sigma},
                        tiledGpuSchedule(output, {blurY, blur, sum}));
}

} // namespace beamscope::pipelines::apps
