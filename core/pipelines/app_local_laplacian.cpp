// local_laplacian: the simplified stand-in, to be replaced by Halide's own app (apps/local_laplacian at v14.0.0).

#include "core/pipelines/apps_common.h"

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

} // namespace beamscope::pipelines::apps
