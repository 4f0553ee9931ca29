// bilateral_grid: Halide's apps/bilateral_grid (v14.0.0) in Beamscope's own words.

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

namespace {

// One five-tap [1 4 6 4 1] pass of the grid blur, along the argument `dim`.
Expr fiveTap(const Func &f, int dim, const std::vector<Var> &at)
{
    auto tap = [&](int offset) {
        std::vector<Expr> a(at.begin(), at.end());
        if (offset != 0) // the centre tap reads the coordinate itself, as Halide's code writes it
            a[static_cast<size_t>(dim)] = a[static_cast<size_t>(dim)] + offset;
        return f(a);
    };
    // Halide adds the taps left to right with the weight on the right of each product.
    return tap(-2) + tap(-1) * 4 + tap(0) * 6 + tap(1) * 4 + tap(2);
}

} // namespace

// The bilateral filter by a bilateral grid: splat the image into a coarse
// (x, y, intensity) histogram, blur it in z, x and y, then read it back with
// trilinear interpolation and divide the weighted sum by the weight.
PipelineInstance bilateralGrid()
{
    const int s_sigma = 8; // GeneratorParam s_sigma

    ImageParam input(Float(32), 2, "input");
    Param<float> r_sigma("r_sigma");
    Var x("x"), y("y"), z("z"), c("c");

    Func clamped = repeatEdge(input);

    // Each grid cell gathers an s_sigma x s_sigma block of pixels centred on it.
    RDom r(0, s_sigma, 0, s_sigma);
    Expr val = clamp(clamped(x * s_sigma + r.x - s_sigma / 2, y * s_sigma + r.y - s_sigma / 2), 0.0f, 1.0f);
    Expr zi = cast<int>(val * (1.0f / r_sigma) + 0.5f);
    Func histogram("histogram");
    histogram(x, y, z, c) = 0.0f;
    histogram(x, y, zi, c) += mux(c, {val, 1.0f}); // channel 0: intensity sum, 1: count

    Func blurx("blurx"), blury("blury"), blurz("blurz");
    const std::vector<Var> xyzc{x, y, z, c};
    blurz(x, y, z, c) = fiveTap(histogram, 2, xyzc);
    blurx(x, y, z, c) = fiveTap(blurz, 0, xyzc);
    blury(x, y, z, c) = fiveTap(blurx, 1, xyzc);

    // Slice: the full-res pixel's own (unclamped-coordinate) intensity picks z.
    Expr v = clamp(input(x, y), 0.0f, 1.0f);
    Expr zv = v * (1.0f / r_sigma);
    Expr zc = cast<int>(zv);
    Expr zf = zv - zc;
    Expr xf = cast<float>(x % s_sigma) / s_sigma;
    Expr yf = cast<float>(y % s_sigma) / s_sigma;
    Expr xc = x / s_sigma, yc = y / s_sigma;
    // A grid corner: offsets of 0 leave the coordinate as it is (no "+ 0" in the Expr).
    auto plus = [](Expr e, int d) { return d ? e + d : e; };
    auto g = [&](int dx, int dy, int dz) { return blury(plus(xc, dx), plus(yc, dy), plus(zc, dz), c); };
    Func interpolated("interpolated");
    interpolated(x, y, c) = lerp(lerp(lerp(g(0, 0, 0), g(1, 0, 0), xf), lerp(g(0, 1, 0), g(1, 1, 0), xf), yf),
                                 lerp(lerp(g(0, 0, 1), g(1, 0, 1), xf), lerp(g(0, 1, 1), g(1, 1, 1), xf), yf), zf);

    Func bilateral_grid("bilateral_grid");
    bilateral_grid(x, y) = interpolated(x, y, 0) / interpolated(x, y, 1);

    input.set_estimates({{0, 1536}, {0, 2560}});
    r_sigma.set_estimate(0.1f);
    // The grid's z extent does not follow from the output's bounds alone.
    histogram.set_estimate(z, -2, 16);
    blurz.set_estimate(z, 0, 12);
    blurx.set_estimate(z, 0, 12);
    blury.set_estimate(z, 0, 12);
    bilateral_grid.set_estimates({{0, 1536}, {0, 2560}});

    return makeInstance("bilateral_grid", {bilateral_grid}, {input, r_sigma},
                        tiledGpuSchedule(bilateral_grid, {histogram, blurz, blurx, blury}));
}

} // namespace beamscope::pipelines::apps
