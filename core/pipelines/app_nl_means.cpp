// nl_means: Halide's apps/nl_means (v14.0.0): non-local means denoising. Every
// pixel becomes a weighted mean of the pixels in a search window around it,
// each weighted by how alike the patches around the two pixels are.

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

PipelineInstance nlMeans()
{
    ImageParam input(Float(32), 3, "input");
    Param<int> patch_size("patch_size");
    Param<int> search_area("search_area");
    Param<float> sigma("sigma");
    Var x("x"), y("y"), c("c"), dx("dx"), dy("dy");

    // Negative inverse of the squared noise level, normalised by the patch area.
    Expr inv_sigma_sq = -1.0f / (sigma * sigma * patch_size * patch_size);

    // BoundaryConditions::repeat_edge(input), spelled out so that its Funcs carry
    // the names Halide's generator gets (the input wrapped as lambda_0, then clamped).
    Func lambda_0("lambda_0");
    lambda_0(x, y, c) = input(x, y, c);
    auto edge = [&](const Expr &v, int d) {
        return clamp(likely(v), input.dim(d).min(), input.dim(d).min() + input.dim(d).extent() - 1);
    };
    Func clamped("repeat_edge");
    clamped(x, y, c) = lambda_0(edge(x, 0), edge(y, 1), edge(c, 2));

    // Squared difference between the image and its (dx, dy) shift, per channel.
    // Halide names both this Func and the channel sum below "d".
    Func dc("d");
    dc(x, y, dx, dy, c) = pow(clamped(x, y, c) - clamped(x + dx, y + dy, c), 2);

    // Halide's inline sum() makes a Func "sum" (zero, then += over the RDom) that
    // the named Func merely reads; written out here to name it as a fresh
    // generator does (sum, sum$1, sum$2) and to schedule it.
    RDom channels(0, 3);
    Func sum_c("sum");
    sum_c(x, y, dx, dy) = 0.0f;
    sum_c(x, y, dx, dy) += dc(x, y, dx, dy, channels);
    Func d("d");
    d(x, y, dx, dy) = sum_c(x, y, dx, dy);

    // Patch distance: a box blur of the difference image, vertical then horizontal.
    RDom patch_dom(-(patch_size / 2), patch_size);
    Func sum_y("sum");
    sum_y(x, y, dx, dy) = 0.0f;
    sum_y(x, y, dx, dy) += d(x, y + patch_dom, dx, dy);
    Func blur_d_y("blur_d_y");
    blur_d_y(x, y, dx, dy) = sum_y(x, y, dx, dy);
    Func sum_x("sum");
    sum_x(x, y, dx, dy) = 0.0f;
    sum_x(x, y, dx, dy) += blur_d_y(x + patch_dom, y, dx, dy);
    Func blur_d("blur_d");
    blur_d(x, y, dx, dy) = sum_x(x, y, dx, dy);

    // The weight each neighbour at offset (dx, dy) gets.
    Func w("w");
    w(x, y, dx, dy) = fast_exp(blur_d(x, y, dx, dy) * inv_sigma_sq);

    // A fourth channel of ones accumulates the total weight for normalisation.
    Func clamped_with_alpha("clamped_with_alpha");
    clamped_with_alpha(x, y, c) = mux(c, {clamped(x, y, 0), clamped(x, y, 1), clamped(x, y, 2), 1.0f});

    RDom s_dom(-(search_area / 2), search_area, -(search_area / 2), search_area);
    Func non_local_means_sum("non_local_means_sum");
    non_local_means_sum(x, y, c) += w(x, y, s_dom.x, s_dom.y) * clamped_with_alpha(x + s_dom.x, y + s_dom.y, c);

    Func non_local_means("non_local_means");
    non_local_means(x, y, c) = clamp(non_local_means_sum(x, y, c) / non_local_means_sum(x, y, 3), 0.0f, 1.0f);

    // The generator also fixes the output to three channels (a buffer constraint, not the
    // algorithm, and not in the features): left out so scaled-down runs can shrink it.

    input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    patch_size.set_estimate(7);
    search_area.set_estimate(7);
    sigma.set_estimate(0.12f);
    non_local_means.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    return makeInstance(
        "nl_means", {non_local_means}, {input, patch_size, search_area, sigma},
        tiledGpuSchedule(non_local_means, {clamped, clamped_with_alpha, sum_c, sum_y, sum_x, non_local_means_sum}));
}

} // namespace beamscope::pipelines::apps
