// Imaging apps: bilateral grid, BGU, camera pipe, Harris, histogram
// equalisation, IIR blur, multi-scale interpolation, lens blur. Estimates
// follow the sizes Halide's own apps use (around 1536 x 2560).

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

PipelineInstance cameraPipe()
{
    ImageParam input(UInt(16), 2, "input");
    ImageParam matrix(Float(32), 2, "matrix"); // matrix(column, row): 3 gains + offset per output channel
    Param<float> gamma("gamma"), contrast("contrast"), sharpen_strength("sharpen_strength");
    Param<int> black_level("black_level"), white_level("white_level");
    Var x("x"), y("y"), c("c"), i("i");

    Func shifted("shifted");
    shifted(x, y) = input(x + 16, y + 12);
    Func denoised("denoised"); // hot pixel suppression
    denoised(x, y) = clamp(shifted(x, y), cast<uint16_t>(0),
                           max(max(shifted(x - 2, y), shifted(x + 2, y)), max(shifted(x, y - 2), shifted(x, y + 2))));
    Func deinterleaved("deinterleaved"); // g_gr, r_r, b_b, g_gb planes at half resolution
    deinterleaved(x, y, c) = select(c == 0, denoised(2 * x, 2 * y), c == 1, denoised(2 * x + 1, 2 * y), c == 2,
                                    denoised(2 * x, 2 * y + 1), denoised(2 * x + 1, 2 * y + 1));
    Func linear("linear");
    linear(x, y, c) =
        cast<float>(cast<int>(deinterleaved(x, y, c)) - black_level) / cast<float>(white_level - black_level);

    // Bilinear demosaic: each plane upsampled to full resolution.
    auto plane = [&](Expr p) {
        Expr hx = x / 2, hy = y / 2, ox = x % 2, oy = y % 2;
        return 0.25f *
               (linear(hx, hy, p) + linear(hx + ox, hy, p) + linear(hx, hy + oy, p) + linear(hx + ox, hy + oy, p));
    };
    Func demosaiced("demosaiced");
    demosaiced(x, y, c) = select(c == 0, plane(1), c == 1, 0.5f * (plane(0) + plane(3)), plane(2));
    Func corrected("corrected");
    corrected(x, y, c) = matrix(3, c) + matrix(0, c) * demosaiced(x, y, 0) + matrix(1, c) * demosaiced(x, y, 1) +
                         matrix(2, c) * demosaiced(x, y, 2);

    Func curve("curve"); // gamma and an S-shaped contrast curve, as a 1024-entry table
    {
        Expr xf = clamp(cast<float>(i) / 1023.0f, 0.0f, 1.0f);
        Expr g = pow(xf, 1.0f / gamma);
        Expr b = 2.0f - pow(2.0f, contrast / 100.0f);
        Expr a = 2.0f - 2.0f * b;
        Expr zc = select(g > 0.5f, 1.0f - (a * (1.0f - g) * (1.0f - g) + b * (1.0f - g)), a * g * g + b * g);
        curve(i) = cast<uint8_t>(clamp(zc * 255.0f + 0.5f, 0.0f, 255.0f));
    }
    Func processed("processed");
    processed(x, y, c) = curve(clamp(cast<int>(corrected(x, y, c) * 1023.0f), 0, 1023));
    Func blurred("sharpen_blur");
    blurred(x, y, c) = (cast<int16_t>(processed(x - 1, y, c)) + 2 * cast<int16_t>(processed(x, y, c)) +
                        cast<int16_t>(processed(x + 1, y, c)) + cast<int16_t>(processed(x, y - 1, c)) +
                        cast<int16_t>(processed(x, y + 1, c))) /
                       6;
    Func output("camera_pipe");
    Expr p = cast<float>(processed(x, y, c));
    output(x, y, c) = cast<uint8_t>(clamp(p + sharpen_strength * (p - cast<float>(blurred(x, y, c))), 0.0f, 255.0f));

    gamma.set_estimate(2.0f);
    contrast.set_estimate(50.0f);
    sharpen_strength.set_estimate(1.0f);
    black_level.set_estimate(25);
    white_level.set_estimate(1023);
    input.set_estimates({{0, 2592}, {0, 1968}});
    matrix.set_estimates({{0, 4}, {0, 3}});
    output.set_estimates({{0, 2560}, {0, 1920}, {0, 3}});
    return makeInstance("camera_pipe", {output},
                        {input, matrix, gamma, contrast, sharpen_strength, black_level, white_level},
                        tiledGpuSchedule(output, {denoised, demosaiced, curve, processed}));
}

PipelineInstance harris()
{
    ImageParam input(Float(32), 3, "input");
    Var x("x"), y("y");
    Func in = BoundaryConditions::repeat_edge(input);
    Func gray("gray");
    gray(x, y) = 0.299f * in(x, y, 0) + 0.587f * in(x, y, 1) + 0.114f * in(x, y, 2);
    Func Iy("Iy"), Ix("Ix");
    Iy(x, y) = gray(x - 1, y - 1) * (-1.0f / 12) + gray(x - 1, y + 1) * (1.0f / 12) + gray(x, y - 1) * (-2.0f / 12) +
               gray(x, y + 1) * (2.0f / 12) + gray(x + 1, y - 1) * (-1.0f / 12) + gray(x + 1, y + 1) * (1.0f / 12);
    Ix(x, y) = gray(x - 1, y - 1) * (-1.0f / 12) + gray(x + 1, y - 1) * (1.0f / 12) + gray(x - 1, y) * (-2.0f / 12) +
               gray(x + 1, y) * (2.0f / 12) + gray(x - 1, y + 1) * (-1.0f / 12) + gray(x + 1, y + 1) * (1.0f / 12);
    Func Ixx("Ixx"), Iyy("Iyy"), Ixy("Ixy");
    Ixx(x, y) = Ix(x, y) * Ix(x, y);
    Iyy(x, y) = Iy(x, y) * Iy(x, y);
    Ixy(x, y) = Ix(x, y) * Iy(x, y);
    auto box = [&](const std::string &name, Func f) {
        Func b(name);
        Expr s = 0.0f;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                s = s + f(x + dx, y + dy);
        b(x, y) = s;
        return b;
    };
    Func Sxx = box("Sxx", Ixx), Syy = box("Syy", Iyy), Sxy = box("Sxy", Ixy);
    Func det("det"), trace("trace"), response("harris_response");
    det(x, y) = Sxx(x, y) * Syy(x, y) - Sxy(x, y) * Sxy(x, y);
    trace(x, y) = Sxx(x, y) + Syy(x, y);
    response(x, y) = det(x, y) - 0.04f * trace(x, y) * trace(x, y);
    Func output("harris");
    output(x, y) = response(x + 2, y + 2);

    input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    output.set_estimates({{0, 1532}, {0, 2556}});
    return makeInstance("harris", {output}, {input}, tiledGpuSchedule(output, {gray, Ix, Iy}));
}

PipelineInstance hist()
{
    ImageParam input(UInt(8), 3, "input");
    Var x("x"), y("y"), c("c"), i("i");
    Func in = BoundaryConditions::repeat_edge(input);
    Func fin("as_float");
    fin(x, y, c) = cast<float>(in(x, y, c));
    Func Y("Y"), Cr("Cr"), Cb("Cb");
    Y(x, y) = 0.299f * fin(x, y, 0) + 0.587f * fin(x, y, 1) + 0.114f * fin(x, y, 2);
    Cr(x, y) = (fin(x, y, 0) - Y(x, y)) * 0.713f + 128.0f;
    Cb(x, y) = (fin(x, y, 2) - Y(x, y)) * 0.564f + 128.0f;
    Func Yi("Y_index");
    Yi(x, y) = cast<uint8_t>(clamp(Y(x, y), 0.0f, 255.0f));

    RDom r(0, input.width(), 0, input.height(), "r");
    Func histogram("histogram");
    histogram(i) = 0;
    histogram(cast<int>(Yi(r.x, r.y))) += 1;
    RDom b(1, 255, "b");
    Func cdf("cdf");
    cdf(i) = histogram(0);
    cdf(b) = cdf(b - 1) + histogram(b);

    Func eq("equalized");
    Expr pixels = cast<float>(input.width() * input.height());
    eq(x, y) = clamp(cast<float>(cdf(cast<int>(Yi(x, y)))) * (255.0f / pixels), 0.0f, 255.0f);
    Expr red = eq(x, y) + 1.403f * (Cr(x, y) - 128.0f);
    Expr green = eq(x, y) - 0.344f * (Cb(x, y) - 128.0f) - 0.714f * (Cr(x, y) - 128.0f);
    Expr blue = eq(x, y) + 1.773f * (Cb(x, y) - 128.0f);
    Func output("hist");
    output(x, y, c) = cast<uint8_t>(clamp(select(c == 0, red, c == 1, green, blue), 0.0f, 255.0f));

    input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    auto gpu = [output, Yi, histogram, cdf](const Target &) mutable {
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi"), io("io"), ii("ii");
        output.gpu_tile(output.args()[0], output.args()[1], xo, yo, xi, yi, 16, 16);
        Yi.compute_root().gpu_tile(Yi.args()[0], Yi.args()[1], xo, yo, xi, yi, 16, 16);
        histogram.compute_root().gpu_tile(histogram.args()[0], io, ii, 64);
        histogram.update().gpu_single_thread(); // a serial scatter: correct, if slow
        cdf.compute_root().gpu_single_thread();
        cdf.update().gpu_single_thread();
    };
    return makeInstance("hist", {output}, {input}, gpu);
}

namespace {

// Causal then anti-causal first-order IIR down the columns of f, transposed.
Func blurColumnsTransposed(const std::string &name, Func f, Expr height, Expr alpha, std::vector<Func> &roots)
{
    Var x("x"), y("y"), c("c");
    Func blur(name);
    blur(x, y, c) = f(x, y, c);
    RDom ry(1, height - 1, name + "_ry");
    blur(x, ry, c) = (1 - alpha) * blur(x, ry - 1, c) + alpha * f(x, ry, c);
    RDom ryi(1, height - 1, name + "_ryi");
    Expr yr = height - 1 - ryi;
    blur(x, yr, c) = (1 - alpha) * blur(x, yr + 1, c) + alpha * blur(x, yr, c);
    roots.push_back(blur);
    Func transposed(name + "_transposed");
    transposed(x, y, c) = blur(y, x, c);
    return transposed;
}

} // namespace

PipelineInstance iirBlur()
{
    ImageParam input(Float(32), 3, "input");
    Param<float> alpha("alpha");
    Var x("x"), y("y"), c("c");
    Func in("input_f");
    in(x, y, c) = input(x, y, c);
    std::vector<Func> roots;
    Func cols = blurColumnsTransposed("blur_columns", in, input.height(), alpha, roots);
    Func rows = blurColumnsTransposed("blur_rows", cols, input.width(), alpha, roots);
    Func output("iir_blur");
    output(x, y, c) = rows(x, y, c);

    alpha.set_estimate(0.1f);
    input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    auto gpu = [output, roots, cols](const Target &) mutable {
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
        output.gpu_tile(output.args()[0], output.args()[1], xo, yo, xi, yi, 16, 16);
        cols.compute_root().gpu_tile(cols.args()[0], cols.args()[1], xo, yo, xi, yi, 16, 16);
        for (Func &f : roots) {
            f.compute_root().gpu_tile(f.args()[0], f.args()[1], xo, yo, xi, yi, 16, 16);
            // Each column's recursion runs serially inside one GPU thread.
            for (int u = 0; u < f.num_update_definitions(); u++) {
                Var uo("uo"), ui("ui");
                f.update(u).gpu_tile(f.args()[0], uo, ui, 32);
            }
        }
    };
    return makeInstance("iir_blur", {output}, {input, alpha}, gpu);
}

PipelineInstance interpolate()
{
    ImageParam input(Float(32), 3, "input"); // RGB + alpha
    const int levels = 6;
    Var x("x"), y("y"), c("c");
    Func clamped = BoundaryConditions::repeat_edge(input);
    std::vector<Func> downsampled(levels), interpolated(levels), roots;
    downsampled[0] = Func("downsampled_0");
    downsampled[0](x, y, c) = select(c < 3, clamped(x, y, c) * clamped(x, y, 3), clamped(x, y, 3));
    for (int l = 1; l < levels; l++) {
        Func prev = downsampled[static_cast<size_t>(l - 1)];
        Func dx("downsampled_x_" + std::to_string(l));
        dx(x, y, c) = (prev(2 * x - 1, y, c) + 2.0f * prev(2 * x, y, c) + prev(2 * x + 1, y, c)) * 0.25f;
        downsampled[static_cast<size_t>(l)] = Func("downsampled_" + std::to_string(l));
        downsampled[static_cast<size_t>(l)](x, y, c) =
            (dx(x, 2 * y - 1, c) + 2.0f * dx(x, 2 * y, c) + dx(x, 2 * y + 1, c)) * 0.25f;
        roots.push_back(downsampled[static_cast<size_t>(l)]);
    }
    interpolated[levels - 1] = downsampled[levels - 1];
    for (int l = levels - 2; l >= 0; l--) {
        Func coarse = interpolated[static_cast<size_t>(l + 1)];
        Func ux("upsampled_x_" + std::to_string(l)), up("upsampled_" + std::to_string(l));
        ux(x, y, c) = (coarse(x / 2, y, c) + coarse((x + 1) / 2, y, c)) * 0.5f;
        up(x, y, c) = (ux(x, y / 2, c) + ux(x, (y + 1) / 2, c)) * 0.5f;
        Func fine = downsampled[static_cast<size_t>(l)];
        interpolated[static_cast<size_t>(l)] = Func("interpolated_" + std::to_string(l));
        interpolated[static_cast<size_t>(l)](x, y, c) = fine(x, y, c) + (1.0f - fine(x, y, 3)) * up(x, y, c);
        roots.push_back(interpolated[static_cast<size_t>(l)]);
    }
    Func output("interpolate");
    output(x, y, c) = interpolated[0](x, y, c) / max(interpolated[0](x, y, 3), 1e-6f);

    input.set_estimates({{0, 1536}, {0, 2560}, {0, 4}});
    output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    return makeInstance("interpolate", {output}, {input}, tiledGpuSchedule(output, roots));
}

// Block-matching stereo picks a disparity per pixel; the left image is then
// blurred over a disc of sample points whose radius grows with the distance
// from the focal depth.
PipelineInstance lensBlur()
{
    ImageParam left(UInt(8), 3, "left"), right(UInt(8), 3, "right");
    Param<int> slices("slices"), focus_depth("focus_depth");
    Param<float> blur_radius_scale("blur_radius_scale");
    const int samples = 24, max_radius = 8;
    Var x("x"), y("y"), z("z"), c("c"), s("s");
    Func l = BoundaryConditions::repeat_edge(left), r = BoundaryConditions::repeat_edge(right);

    Func diff("diff");
    diff(x, y, z, c) = min(absd(l(x, y, c), r(x + 2 * z, y, c)), absd(l(x, y, c), r(x + 2 * z + 1, y, c)));
    Func cost("cost");
    auto sq = [](Expr e) {
        Expr f = cast<float>(e);
        return f * f;
    };
    cost(x, y, z) = sq(diff(x, y, z, 0)) + sq(diff(x, y, z, 1)) + sq(diff(x, y, z, 2));
    Func costX("cost_blur_x"), costY("cost_blur");
    costX(x, y, z) = cost(x - 2, y, z) + cost(x - 1, y, z) + cost(x, y, z) + cost(x + 1, y, z) + cost(x + 2, y, z);
    costY(x, y, z) = costX(x, y - 2, z) + costX(x, y - 1, z) + costX(x, y, z) + costX(x, y + 1, z) + costX(x, y + 2, z);

    RDom rz(0, slices, "rz");
    Func depth("depth"); // argmin over disparities, as an explicit reduction
    depth(x, y) = Tuple(0, Float(32).max());
    Expr better = costY(x, y, rz) < depth(x, y)[1];
    depth(x, y) = Tuple(select(better, rz, depth(x, y)[0]), select(better, costY(x, y, rz), depth(x, y)[1]));

    Func radius("blur_radius");
    radius(x, y) = cast<float>(abs(depth(x, y)[0] - focus_depth)) * blur_radius_scale;
    Func offsetX("sample_x"), offsetY("sample_y"), sampleR("sample_radius");
    Expr rs = sqrt((cast<float>(s) + 0.5f) / samples) * max_radius;
    sampleR(s) = rs;
    offsetX(s) = cast<int>(clamp(rs * cos(cast<float>(s) * 2.39996f), -float(max_radius), float(max_radius)));
    offsetY(s) = cast<int>(clamp(rs * sin(cast<float>(s) * 2.39996f), -float(max_radius), float(max_radius)));
    Func withAlpha("input_with_alpha");
    withAlpha(x, y, c) = select(c < 3, cast<float>(l(x, y, min(c, 2))) / 255.0f, 1.0f);

    RDom rs_dom(0, samples, "samples");
    Func blurred("lens_blurred");
    blurred(x, y, c) = 0.0f;
    Expr inside = select(sampleR(rs_dom) <= radius(x, y) + 0.5f, 1.0f, 0.0f);
    blurred(x, y, c) += inside * withAlpha(x + offsetX(rs_dom), y + offsetY(rs_dom), c);
    Func output("lens_blur");
    output(x, y, c) = blurred(x, y, c) / max(blurred(x, y, 3), 1.0f);

    slices.set_estimate(32);
    focus_depth.set_estimate(13);
    blur_radius_scale.set_estimate(0.5f);
    left.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    right.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    return makeInstance("lens_blur", {output}, {left, right, slices, focus_depth, blur_radius_scale},
                        tiledGpuSchedule(output, {cost, costY, depth, offsetX, offsetY, sampleR, blurred}));
}

} // namespace beamscope::pipelines::apps
