// harris: Halide's apps/harris (v14.0.0): the Harris corner response of an
// RGB image, from Sobel gradients of its luma summed over 3 x 3 windows.

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

namespace {

// The sum of f over the 3 x 3 window centred on (x, y), column by column.
Expr windowSum(Func f, Var x, Var y)
{
    Expr s;
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++) {
            Expr v = f(x + dx, y + dy);
            s = s.defined() ? s + v : v;
        }
    return s;
}

} // namespace

PipelineInstance harris()
{
    ImageParam input(Float(32), 3, "input");
    Var x("x"), y("y");

    // No boundary condition: the output's estimated region keeps every read
    // three pixels inside the input.
    Func gray("gray");
    gray(x, y) = 0.299f * input(x, y, 0) + 0.587f * input(x, y, 1) + 0.114f * input(x, y, 2);

    // Sobel gradients, scaled by 1/12.
    Func Iy("Iy");
    Iy(x, y) = gray(x - 1, y - 1) * (-1.0f / 12) + gray(x - 1, y + 1) * (1.0f / 12) + gray(x, y - 1) * (-2.0f / 12) +
               gray(x, y + 1) * (2.0f / 12) + gray(x + 1, y - 1) * (-1.0f / 12) + gray(x + 1, y + 1) * (1.0f / 12);
    Func Ix("Ix");
    Ix(x, y) = gray(x - 1, y - 1) * (-1.0f / 12) + gray(x + 1, y - 1) * (1.0f / 12) + gray(x - 1, y) * (-2.0f / 12) +
               gray(x + 1, y) * (2.0f / 12) + gray(x - 1, y + 1) * (-1.0f / 12) + gray(x + 1, y + 1) * (1.0f / 12);

    // The structure tensor's entries, then their window sums.
    Func Ixx("Ixx");
    Ixx(x, y) = Ix(x, y) * Ix(x, y);
    Func Iyy("Iyy");
    Iyy(x, y) = Iy(x, y) * Iy(x, y);
    Func Ixy("Ixy");
    Ixy(x, y) = Ix(x, y) * Iy(x, y);
    Func Sxx("Sxx");
    Sxx(x, y) = windowSum(Ixx, x, y);
    Func Syy("Syy");
    Syy(x, y) = windowSum(Iyy, x, y);
    Func Sxy("Sxy");
    Sxy(x, y) = windowSum(Ixy, x, y);

    Func det("det");
    det(x, y) = Sxx(x, y) * Syy(x, y) - Sxy(x, y) * Sxy(x, y);
    Func trace("trace");
    trace(x, y) = Sxx(x, y) + Syy(x, y);
    Func output("output");
    output(x, y) = det(x, y) - 0.04f * trace(x, y) * trace(x, y);

    input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    output.set_estimates({{3, 1536 - 6}, {3, 2560 - 6}});
    return makeInstance("harris", {output}, {input}, tiledGpuSchedule(output, {gray, Iy, Ix}));
}

} // namespace beamscope::pipelines::apps
