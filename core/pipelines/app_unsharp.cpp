// unsharp: Halide's apps/unsharp (v14.0.0): unsharp masking of an RGB image,
// sharpening its luma against a separable Gaussian blur of it.

#include "core/pipelines/apps_common.h"

#include <cmath>

namespace beamscope::pipelines::apps {

using namespace Halide;

PipelineInstance unsharp()
{
    const float sigma = 1.5f; // the generator's GeneratorParam default
    ImageParam input(Float(32), 3, "input");
    Var x("x"), y("y"), c("c");

    const float pi = 3.14159265358979310000f;
    // The Gaussian's taps as a Func of the offset.
    Func kernel("kernel");
    kernel(x) = exp(-x * x / (2 * sigma * sigma)) / (std::sqrt(2 * pi) * sigma);

    // BoundaryConditions::repeat_edge(input) by hand, so that its Funcs get
    // the names a generator gives them whatever this process built before.
    Func wrapped("lambda_0");
    wrapped(_) = input(_);
    Region bounds;
    for (int d = 0; d < 3; d++)
        bounds.push_back({Expr(input.dim(d).min()), Expr(input.dim(d).extent())});
    Func clamped = BoundaryConditions::repeat_edge(wrapped, bounds);

    Func gray("gray");
    gray(x, y) = 0.299f * clamped(x, y, 0) + 0.587f * clamped(x, y, 1) + 0.114f * clamped(x, y, 2);

    // Symmetric 7-tap blur, vertical then horizontal; paired taps share a weight.
    Func blur_y("blur_y");
    blur_y(x, y) = kernel(0) * gray(x, y) + kernel(1) * (gray(x, y - 1) + gray(x, y + 1)) +
                   kernel(2) * (gray(x, y - 2) + gray(x, y + 2)) + kernel(3) * (gray(x, y - 3) + gray(x, y + 3));
    Func blur_x("blur_x");
    blur_x(x, y) = kernel(0) * blur_y(x, y) + kernel(1) * (blur_y(x - 1, y) + blur_y(x + 1, y)) +
                   kernel(2) * (blur_y(x - 2, y) + blur_y(x + 2, y)) +
                   kernel(3) * (blur_y(x - 3, y) + blur_y(x + 3, y));

    Func sharpen("sharpen");
    sharpen(x, y) = 2 * gray(x, y) - blur_x(x, y);
    Func ratio("ratio");
    ratio(x, y) = sharpen(x, y) / gray(x, y);

    // The output scales the unclamped input by the luma ratio.
    Func output("output");
    output(x, y, c) = ratio(x, y) * input(x, y, c);

    input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    return makeInstance("unsharp", {output}, {input}, tiledGpuSchedule(output, {kernel, gray, blur_y}));
}

} // namespace beamscope::pipelines::apps
