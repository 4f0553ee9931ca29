// local_laplacian: Halide's apps/local_laplacian (v14.0.0): edge-aware detail
// enhancement with local Laplacian filters over an 8-level pyramid.

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

namespace {

// Halide's generator leaves its Funcs unnamed, so they are called f0, f1, ... in
// construction order (including whole arrays of 20 it declares up front). This
// hands out the same names in the same order, whatever this process's counters are.
class FuncNamer {
public:
    Func next() { return Func("f" + std::to_string(count_++)); }
    std::vector<Func> array(int n)
    {
        std::vector<Func> fs;
        for (int i = 0; i < n; i++)
            fs.push_back(next());
        return fs;
    }

private:
    int count_ = 0;
};

} // namespace

PipelineInstance localLaplacian()
{
    constexpr int maxJ = 20;         // the size of the generator's Func arrays
    constexpr int pyramidLevels = 8; // GeneratorParam pyramid_levels
    const int J = pyramidLevels;

    ImageParam input(UInt(16), 3, "input");
    Param<int> levels("levels");
    Param<float> alpha("alpha"), beta("beta");
    Var x("x"), y("y"), c("c"), k("k");
    FuncNamer names;

    // Separable [1 3 3 1] / 8 decimation; `_` carries the k dimension when there is one.
    auto downsample = [&](Func f) {
        Func dx = names.next(), dy = names.next();
        dx(x, y, _) = (f(2 * x - 1, y, _) + 3.0f * (f(2 * x, y, _) + f(2 * x + 1, y, _)) + f(2 * x + 2, y, _)) / 8.0f;
        dy(x, y, _) =
            (dx(x, 2 * y - 1, _) + 3.0f * (dx(x, 2 * y, _) + dx(x, 2 * y + 1, _)) + dx(x, 2 * y + 2, _)) / 8.0f;
        return dy;
    };
    // Bilinear 2x upsampling: weights 3/4 and 1/4 toward the nearer coarse sample.
    auto upsample = [&](Func f) {
        Func ux = names.next(), uy = names.next();
        ux(x, y, _) = lerp(f((x + 1) / 2, y, _), f((x - 1) / 2, y, _), ((x % 2) * 2 + 1) / 4.0f);
        uy(x, y, _) = lerp(ux(x, (y + 1) / 2, _), ux(x, (y - 1) / 2, _), ((y % 2) * 2 + 1) / 4.0f);
        return uy;
    };

    // The tone curve, tabulated with 256 entries per intensity level.
    Func remap = names.next();
    Expr fx = cast<float>(x) / 256.0f;
    remap(x) = alpha * fx * exp(-fx * fx / 2.0f);

    Func clamped = repeatEdge(input);
    Func floating = names.next();
    floating(x, y, c) = clamped(x, y, c) / 65535.0f;
    Func gray = names.next();
    gray(x, y) = 0.299f * floating(x, y, 0) + 0.587f * floating(x, y, 1) + 0.114f * floating(x, y, 2);

    // One processed copy of the image per intensity level k, and its Gaussian pyramid.
    std::vector<Func> gPyramid = names.array(maxJ);
    Expr level = k * (1.0f / (levels - 1));
    Expr idx = clamp(cast<int>(gray(x, y) * cast<float>(levels - 1) * 256.0f), 0, (levels - 1) * 256);
    gPyramid[0](x, y, k) = beta * (gray(x, y) - level) + level + remap(idx - 256 * k);
    for (int j = 1; j < J; j++)
        gPyramid[j](x, y, k) = downsample(gPyramid[j - 1])(x, y, k);

    // Its Laplacian pyramid.
    std::vector<Func> lPyramid = names.array(maxJ);
    lPyramid[J - 1](x, y, k) = gPyramid[J - 1](x, y, k);
    for (int j = J - 2; j >= 0; j--)
        lPyramid[j](x, y, k) = gPyramid[j](x, y, k) - upsample(gPyramid[j + 1])(x, y, k);

    // Gaussian pyramid of the input's luminance, which picks the levels to blend.
    std::vector<Func> inGPyramid = names.array(maxJ);
    inGPyramid[0](x, y) = gray(x, y);
    for (int j = 1; j < J; j++)
        inGPyramid[j](x, y) = downsample(inGPyramid[j - 1])(x, y);

    // Output Laplacian pyramid: interpolate between the two nearest processed levels.
    std::vector<Func> outLPyramid = names.array(maxJ);
    for (int j = 0; j < J; j++) {
        Expr lv = inGPyramid[j](x, y) * cast<float>(levels - 1);
        Expr li = clamp(cast<int>(lv), 0, levels - 2);
        Expr lf = lv - cast<float>(li);
        outLPyramid[j](x, y) = (1.0f - lf) * lPyramid[j](x, y, li) + lf * lPyramid[j](x, y, li + 1);
    }

    // Collapse it into the output's Gaussian pyramid.
    std::vector<Func> outGPyramid = names.array(maxJ);
    outGPyramid[J - 1](x, y) = outLPyramid[J - 1](x, y);
    for (int j = J - 2; j >= 0; j--)
        outGPyramid[j](x, y) = upsample(outGPyramid[j + 1])(x, y) + outLPyramid[j](x, y);

    // Put the colour back (eps keeps dark noise from being amplified), then back to 16 bits.
    Func color = names.next();
    const float eps = 0.01f;
    color(x, y, c) = outGPyramid[0](x, y) * (floating(x, y, c) + eps) / (gray(x, y) + eps);
    Func output("output");
    output(x, y, c) = cast<uint16_t>(clamp(color(x, y, c), 0.0f, 1.0f) * 65535.0f);

    input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    levels.set_estimate(8);
    alpha.set_estimate(1.0f);
    beta.set_estimate(1.0f);
    output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});

    // Roots as in Halide's GPU schedule: the lookup table and every pyramid level.
    std::vector<Func> roots{remap};
    for (int j = 0; j < J; j++) {
        if (j > 0) {
            roots.push_back(inGPyramid[j]);
            roots.push_back(gPyramid[j]);
        }
        roots.push_back(outGPyramid[j]);
    }
    return makeInstance("local_laplacian", {output}, {input, levels, alpha, beta}, tiledGpuSchedule(output, roots));
}

} // namespace beamscope::pipelines::apps
