// Filter and learning apps: local Laplacian, max filter, non-local means,
// stencil chain, unsharp mask, conv layer, matrix multiply and depthwise
// separable convolution. Estimates follow Halide's own apps.

#include "core/pipelines/apps_common.h"

#include <cmath>

namespace beamscope::pipelines::apps {

using namespace Halide;

namespace {

// [1 3 3 1] / 8 downsample and [1 3] / 4 upsample in x and y, any extra dimensions
// passed through with Halide's implicit `_`.
Func downsample(const std::string &name, Func f)
{
    Var x("x"), y("y");
    Func dx(name + "_x"), d(name);
    dx(x, y, _) = (f(2 * x - 1, y, _) + 3.0f * (f(2 * x, y, _) + f(2 * x + 1, y, _)) + f(2 * x + 2, y, _)) / 8.0f;
    d(x, y, _) = (dx(x, 2 * y - 1, _) + 3.0f * (dx(x, 2 * y, _) + dx(x, 2 * y + 1, _)) + dx(x, 2 * y + 2, _)) / 8.0f;
    return d;
}

Func upsample(const std::string &name, Func f)
{
    Var x("x"), y("y");
    Func ux(name + "_x"), u(name);
    ux(x, y, _) = 0.25f * f((x / 2) - 1 + 2 * (x % 2), y, _) + 0.75f * f(x / 2, y, _);
    u(x, y, _) = 0.25f * ux(x, (y / 2) - 1 + 2 * (y % 2), _) + 0.75f * ux(x, y / 2, _);
    return u;
}

} // namespace

PipelineInstance localLaplacian()
{
    ImageParam input(UInt(16), 3, "input");
    Param<int> levels("levels");
    Param<float> alpha("alpha"), beta("beta");
    const int J = 5; // pyramid levels
    Var x("x"), y("y"), c("c"), k("k"), i("i");
    Func clamped = BoundaryConditions::repeat_edge(input);
    Func floating("floating");
    floating(x, y, c) = cast<float>(clamped(x, y, c)) / 65535.0f;
    Func gray("gray");
    gray(x, y) = 0.299f * floating(x, y, 0) + 0.587f * floating(x, y, 1) + 0.114f * floating(x, y, 2);

    Func remap("remap"); // the detail-remapping curve, tabulated
    Expr fx = cast<float>(i) / 256.0f;
    remap(i) = alpha * fx * exp(-fx * fx / 2.0f);

    Func processed("processed"); // the image as processed around each of `levels` intensities
    Expr level = cast<float>(k) * (1.0f / cast<float>(levels - 1));
    Expr idx = clamp(cast<int>(gray(x, y) * cast<float>(levels - 1) * 256.0f), 0, (levels - 1) * 256);
    processed(x, y, k) = beta * (gray(x, y) - level) + level + remap(idx - 256 * k);

    std::vector<Func> gPyramid(J), lPyramid(J), inGPyramid(J), outLPyramid(J), outGPyramid(J), roots;
    gPyramid[0] = processed;
    inGPyramid[0] = gray;
    for (int j = 1; j < J; j++) {
        gPyramid[j] = downsample("g_pyramid_" + std::to_string(j), gPyramid[j - 1]);
        inGPyramid[j] = downsample("in_g_pyramid_" + std::to_string(j), inGPyramid[j - 1]);
        roots.push_back(gPyramid[j]);
        roots.push_back(inGPyramid[j]);
    }
    lPyramid[J - 1] = gPyramid[J - 1];
    for (int j = J - 2; j >= 0; j--) {
        lPyramid[j] = Func("l_pyramid_" + std::to_string(j));
        lPyramid[j](x, y, k) = gPyramid[j](x, y, k) - upsample("g_up_" + std::to_string(j), gPyramid[j + 1])(x, y, k);
    }
    for (int j = 0; j < J; j++) {
        Expr lv = inGPyramid[j](x, y) * cast<float>(levels - 1);
        Expr li = clamp(cast<int>(lv), 0, levels - 2);
        Expr lf = lv - cast<float>(li);
        outLPyramid[j] = Func("out_l_pyramid_" + std::to_string(j));
        outLPyramid[j](x, y) = (1.0f - lf) * lPyramid[j](x, y, li) + lf * lPyramid[j](x, y, li + 1);
    }
    outGPyramid[J - 1] = outLPyramid[J - 1];
    for (int j = J - 2; j >= 0; j--) {
        outGPyramid[j] = Func("out_g_pyramid_" + std::to_string(j));
        outGPyramid[j](x, y) = upsample("out_up_" + std::to_string(j), outGPyramid[j + 1])(x, y) + outLPyramid[j](x, y);
        roots.push_back(outGPyramid[j]);
    }
    Func color("color");
    color(x, y, c) = outGPyramid[0](x, y) * (floating(x, y, c) + 0.01f) / (gray(x, y) + 0.01f);
    Func output("local_laplacian");
    output(x, y, c) = cast<uint16_t>(clamp(color(x, y, c), 0.0f, 1.0f) * 65535.0f);

    levels.set_estimate(8);
    alpha.set_estimate(1.0f / 7.0f);
    beta.set_estimate(1.0f);
    input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    return makeInstance("local_laplacian", {output}, {input, levels, alpha, beta}, tiledGpuSchedule(output, roots));
}

PipelineInstance maxFilter()
{
    ImageParam input(Float(32), 3, "input");
    const int radius = 26, slices = 6;
    Var x("x"), y("y"), c("c");
    Func clamped = BoundaryConditions::repeat_edge(input);
    // vertical_max_<t>(x, y) = max over [y, y + 2^t)
    std::vector<Func> vert{clamped}, roots;
    for (int t = 1; t < slices; t++) {
        Func f("vertical_max_" + std::to_string(t));
        f(x, y, c) = max(vert.back()(x, y, c), vert.back()(x, y + (1 << (t - 1)), c));
        vert.push_back(f);
        roots.push_back(f);
    }
    const int span = 1 << (slices - 1); // 32 <= 2 * radius + 1 < 64
    Func vertical("vertical_max");
    vertical(x, y, c) = max(vert.back()(x, y - radius, c), vert.back()(x, y + radius + 1 - span, c));
    RDom rx(-radius, 2 * radius + 1, "rx");
    Func horizontal("horizontal_max");
    horizontal(x, y, c) = Float(32).min();
    horizontal(x, y, c) = max(horizontal(x, y, c), vertical(x + rx, y, c));
    Func output("max_filter");
    output(x, y, c) = horizontal(x, y, c);
    roots.push_back(vertical);
    roots.push_back(horizontal);

    input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    return makeInstance("max_filter", {output}, {input}, tiledGpuSchedule(output, roots));
}

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

PipelineInstance stencilChain()
{
    ImageParam input(UInt(16), 2, "input");
    const int stencils = 8;
    Var x("x"), y("y");
    Func prev = BoundaryConditions::repeat_edge(input);
    std::vector<Func> roots;
    for (int s = 0; s < stencils; s++) {
        Func f("stencil_" + std::to_string(s));
        Expr sum = cast<uint32_t>(0);
        for (int dy = -2; dy <= 2; dy++)
            for (int dx = -2; dx <= 2; dx++)
                sum = sum + cast<uint32_t>(prev(x + dx, y + dy));
        f(x, y) = cast<uint16_t>(sum / 25);
        roots.push_back(f);
        prev = f;
    }
    roots.pop_back();
    Func output("stencil_chain");
    output(x, y) = prev(x, y);

    input.set_estimates({{0, 1536}, {0, 2560}});
    output.set_estimates({{0, 1536}, {0, 2560}});
    return makeInstance("stencil_chain", {output}, {input}, tiledGpuSchedule(output, roots));
}

PipelineInstance unsharp()
{
    ImageParam input(Float(32), 3, "input");
    const float sigma = 1.5f;
    const int radius = 3;
    Var x("x"), y("y"), c("c");
    Func clamped = BoundaryConditions::repeat_edge(input);
    std::vector<float> kernel;
    float total = 0;
    for (int i = -radius; i <= radius; i++) {
        kernel.push_back(std::exp(-float(i * i) / (2 * sigma * sigma)));
        total += kernel.back();
    }
    Func gray("gray");
    gray(x, y) = 0.299f * clamped(x, y, 0) + 0.587f * clamped(x, y, 1) + 0.114f * clamped(x, y, 2);
    Func blurY("blur_y"), blurX("blur_x");
    Expr sy = 0.0f, sx = 0.0f;
    for (int i = -radius; i <= radius; i++) {
        sy = sy + (kernel[static_cast<size_t>(i + radius)] / total) * gray(x, y + i);
    }
    blurY(x, y) = sy;
    for (int i = -radius; i <= radius; i++)
        sx = sx + (kernel[static_cast<size_t>(i + radius)] / total) * blurY(x + i, y);
    blurX(x, y) = sx;
    Func sharpen("sharpen"), ratio("ratio");
    sharpen(x, y) = 2.0f * gray(x, y) - blurX(x, y);
    ratio(x, y) = sharpen(x, y) / max(gray(x, y), 1e-3f);
    Func output("unsharp");
    output(x, y, c) = ratio(x, y) * clamped(x, y, c);

    input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    return makeInstance("unsharp", {output}, {input}, tiledGpuSchedule(output, {gray, blurY}));
}

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

PipelineInstance cudaMatMul()
{
    const int size = 2048;
    ImageParam A(Float(32), 2, "A"), B(Float(32), 2, "B");
    Var x("x"), y("y");
    RDom k(0, A.dim(0).extent(), "k");
    Func prod("prod");
    prod(x, y) = 0.0f;
    prod(x, y) += A(k, y) * B(x, k);
    Func output("cuda_mat_mul");
    output(x, y) = prod(x, y);

    A.set_estimates({{0, size}, {0, size}});
    B.set_estimates({{0, size}, {0, size}});
    output.set_estimates({{0, size}, {0, size}});
    return makeInstance("cuda_mat_mul", {output}, {A, B}, tiledGpuSchedule(output, {prod}));
}

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
