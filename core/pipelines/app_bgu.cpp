// bgu: the simplified stand-in, to be replaced by Halide's own app (apps/bgu at v14.0.0).

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

// Simplified bilateral guided upsampling: a bilateral grid over the low-res
// input's luma accumulates the colour offset (low-res output - input) per
// cell; the blurred grid is sliced with the full-res input's luma and the
// offset added back at full resolution.
PipelineInstance bgu()
{
    ImageParam lowIn(Float(32), 3, "low_res_in"), lowOut(Float(32), 3, "low_res_out"),
        fullIn(Float(32), 3, "full_res_in");
    const int s_sigma = 8, grid_z = 8, scale = 8;
    Var x("x"), y("y"), z("z"), c("c");
    Func li = BoundaryConditions::repeat_edge(lowIn), lo = BoundaryConditions::repeat_edge(lowOut);
    Func fi = BoundaryConditions::repeat_edge(fullIn);

    Func lumaLow("luma_low");
    lumaLow(x, y) = clamp(0.25f * li(x, y, 0) + 0.5f * li(x, y, 1) + 0.25f * li(x, y, 2), 0.0f, 1.0f);
    RDom r(0, s_sigma, 0, s_sigma, "r");
    Expr sx = x * s_sigma + r.x, sy = y * s_sigma + r.y;
    Expr zi = cast<int>(lumaLow(sx, sy) * grid_z + 0.5f);
    Func splat("splat");
    splat(x, y, z, c) = 0.0f;
    splat(x, y, zi, c) += select(c < 3, lo(sx, sy, min(c, 2)) - li(sx, sy, min(c, 2)), 1.0f);

    Func blurz = gridBlur("grid_blur_z", splat, 2);
    Func blurx = gridBlur("grid_blur_x", blurz, 0);
    Func blury = gridBlur("grid_blur_y", blurx, 1);

    Func lumaFull("luma_full");
    lumaFull(x, y) = clamp(0.25f * fi(x, y, 0) + 0.5f * fi(x, y, 1) + 0.25f * fi(x, y, 2), 0.0f, 1.0f);
    const int cell = s_sigma * scale; // full-res pixels per grid cell
    Expr zv = lumaFull(x, y) * grid_z;
    Expr zint = min(cast<int>(zv), grid_z - 1);
    Expr xf = cast<float>(x % cell) / cell, yf = cast<float>(y % cell) / cell;
    Func sliced("slice");
    sliced(x, y, c) = trilinear(blury, x / cell, y / cell, zint, c, xf, yf, zv - cast<float>(zint));
    Func output("bgu");
    output(x, y, c) = fi(x, y, c) + sliced(x, y, c) / max(sliced(x, y, 3), 1e-4f);

    lowIn.set_estimates({{0, 192}, {0, 320}, {0, 3}});
    lowOut.set_estimates({{0, 192}, {0, 320}, {0, 3}});
    fullIn.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    return makeInstance("bgu", {output}, {lowIn, lowOut, fullIn},
                        tiledGpuSchedule(output, {lumaLow, splat, blurz, blurx, blury, sliced}));
}

} // namespace beamscope::pipelines::apps
