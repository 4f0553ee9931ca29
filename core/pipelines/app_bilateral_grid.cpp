// bilateral_grid: the simplified stand-in, to be replaced by Halide's own app (apps/bilateral_grid at v14.0.0).

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

namespace {

// Three-tap [1 4 6 4 1]-style blur of a 4-D grid along dimension `dim`.
Func gridBlur(const std::string &name, Func in, int dim)
{
    Var x("x"), y("y"), z("z"), c("c");
    Func f(name);
    auto at = [&](int d) {
        std::vector<Expr> a{x, y, z, c};
        a[static_cast<size_t>(dim)] = a[static_cast<size_t>(dim)] + d;
        return in(a);
    };
    f(x, y, z, c) = at(-2) + 4.0f * at(-1) + 6.0f * at(0) + 4.0f * at(1) + at(2);
    return f;
}

Expr trilinear(Func grid, Expr xi, Expr yi, Expr zi, Expr c, Expr xf, Expr yf, Expr zf)
{
    return lerp(lerp(lerp(grid(xi, yi, zi, c), grid(xi + 1, yi, zi, c), xf),
                     lerp(grid(xi, yi + 1, zi, c), grid(xi + 1, yi + 1, zi, c), xf), yf),
                lerp(lerp(grid(xi, yi, zi + 1, c), grid(xi + 1, yi, zi + 1, c), xf),
                     lerp(grid(xi, yi + 1, zi + 1, c), grid(xi + 1, yi + 1, zi + 1, c), xf), yf),
                zf);
}

} // namespace

PipelineInstance bilateralGrid()
{
    ImageParam input(Float(32), 2, "input");
    Param<float> r_sigma("r_sigma");
    const int s_sigma = 8;
    Var x("x"), y("y"), z("z"), c("c");
    Func clamped = BoundaryConditions::repeat_edge(input);

    RDom r(0, s_sigma, 0, s_sigma, "r");
    Expr val = clamp(clamped(x * s_sigma + r.x - s_sigma / 2, y * s_sigma + r.y - s_sigma / 2), 0.0f, 1.0f);
    Expr zi = cast<int>(val * (1.0f / r_sigma) + 0.5f);
    Func histogram("histogram");
    histogram(x, y, z, c) = 0.0f;
    histogram(x, y, zi, c) += select(c == 0, val, 1.0f);

    Func blurz = gridBlur("blurz", histogram, 2);
    Func blurx = gridBlur("blurx", blurz, 0);
    Func blury = gridBlur("blury", blurx, 1);

    Expr v = clamp(clamped(x, y), 0.0f, 1.0f);
    Expr zv = v * (1.0f / r_sigma);
    Expr zint = cast<int>(zv);
    Func interpolated("interpolated");
    interpolated(x, y, c) = trilinear(blury, x / s_sigma, y / s_sigma, zint, c, cast<float>(x % s_sigma) / s_sigma,
                                      cast<float>(y % s_sigma) / s_sigma, zv - cast<float>(zint));
    Func output("bilateral_grid");
    output(x, y) = interpolated(x, y, 0) / interpolated(x, y, 1);

    r_sigma.set_estimate(0.1f);
    input.set_estimates({{0, 1536}, {0, 2560}});
    output.set_estimates({{0, 1536}, {0, 2560}});
    return makeInstance("bilateral_grid", {output}, {input, r_sigma},
                        tiledGpuSchedule(output, {histogram, blurz, blurx, blury}));
}

} // namespace beamscope::pipelines::apps
