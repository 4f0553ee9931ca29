// camera_pipe: Halide's apps/camera_pipe (v14.0.0) -- a raw Bayer frame to an
// 8-bit sRGB-ish image: hot-pixel suppression, channel deinterleave, an
// edge-aware demosaic, colour correction, a tone-curve LUT and unsharp masking.

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

namespace {

// Rounding-up mean of two non-negative values, computed in a type twice as
// wide so the sum cannot overflow, and narrowed back.
Expr roundUpMean(Expr p, Expr q)
{
    const Type t = p.type();
    return cast(t, (cast(t.with_bits(t.bits() * 2), p) + q + 1) / 2);
}

// A [1 2 1] / 4 smoothing made of two rounding means.
Expr smooth121(Expr left, Expr mid, Expr right) { return roundUpMean(roundUpMean(left, right), mid); }

} // namespace

PipelineInstance cameraPipe()
{
    // Inputs, in the generator's order. Scalar defaults are the generator's (none given: zero).
    ImageParam input(UInt(16), 2, "input");
    ImageParam matrix_3200(Float(32), 2, "matrix_3200");
    ImageParam matrix_7000(Float(32), 2, "matrix_7000");
    Param<float> color_temp("color_temp", 0.0f);
    Param<float> gamma("gamma", 0.0f);
    Param<float> contrast("contrast", 0.0f);
    Param<float> sharpen_strength("sharpen_strength", 0.0f);
    Param<int> blackLevel("blackLevel", 0);
    Param<int> whiteLevel("whiteLevel", 0);
    Var x("x"), y("y"), c("c");

    // Interleaving helpers; the Func names are the ones Halide's generator got
    // from its unique-name counter (see the loop-nest dumps).
    auto alternateX = [&](const char *name, Func even, Func odd) {
        Func f(name);
        f(x, y) = select((x % 2) == 0, even(x / 2, y), odd(x / 2, y));
        return f;
    };
    auto alternateY = [&](const char *name, Func even, Func odd) {
        Func f(name);
        f(x, y) = select((y % 2) == 0, even(x, y / 2), odd(x, y / 2));
        return f;
    };

    // The sensor frame, moved inwards so every stencil below stays inside it.
    Func shifted("f0");
    shifted(x, y) = input(x + 16, y + 12);

    // Hot pixels: never brighter than the brightest same-colour neighbour.
    Func denoised("f1");
    {
        Expr brightest = max(shifted(x - 2, y), shifted(x + 2, y), shifted(x, y - 2), shifted(x, y + 2));
        denoised(x, y) = clamp(shifted(x, y), 0, brightest);
    }

    // The four Bayer sites of each 2x2 cell as planes: gr, r, b, gb.
    Func deinterleaved("deinterleaved");
    deinterleaved(x, y, c) = mux(c, {denoised(2 * x, 2 * y), denoised(2 * x + 1, 2 * y), denoised(2 * x, 2 * y + 1),
                                     denoised(2 * x + 1, 2 * y + 1)});

    // Demosaic. <colour>_<site>: that colour's value at that kind of site.
    Func r_r("f2"), g_gr("f3"), g_gb("f4"), b_b("f5");
    g_gr(x, y) = deinterleaved(x, y, 0);
    r_r(x, y) = deinterleaved(x, y, 1);
    b_b(x, y) = deinterleaved(x, y, 2);
    g_gb(x, y) = deinterleaved(x, y, 3);

    Func b_r("f6"), g_r("f7"), b_gr("f8"), r_gr("f9"), b_gb("f10"), r_gb("f11"), r_b("f12"), g_b("f13");

    // Green at red and blue sites: interpolate along whichever axis varies less.
    {
        Expr vMean = roundUpMean(g_gb(x, y - 1), g_gb(x, y));
        Expr vDiff = absd(g_gb(x, y - 1), g_gb(x, y));
        Expr hMean = roundUpMean(g_gr(x + 1, y), g_gr(x, y));
        Expr hDiff = absd(g_gr(x + 1, y), g_gr(x, y));
        g_r(x, y) = select(hDiff < vDiff, hMean, vMean);
    }
    {
        Expr vMean = roundUpMean(g_gr(x, y + 1), g_gr(x, y));
        Expr vDiff = absd(g_gr(x, y + 1), g_gr(x, y));
        Expr hMean = roundUpMean(g_gb(x - 1, y), g_gb(x, y));
        Expr hDiff = absd(g_gb(x - 1, y), g_gb(x, y));
        g_b(x, y) = select(hDiff < vDiff, hMean, vMean);
    }

    // Red and blue at green sites: interpolate, then add back green's own
    // interpolation error at the same place.
    r_gr(x, y) = (g_gr(x, y) - roundUpMean(g_r(x, y), g_r(x - 1, y))) + roundUpMean(r_r(x - 1, y), r_r(x, y));
    b_gr(x, y) = (g_gr(x, y) - roundUpMean(g_b(x, y), g_b(x, y - 1))) + roundUpMean(b_b(x, y), b_b(x, y - 1));
    r_gb(x, y) = (g_gb(x, y) - roundUpMean(g_r(x, y), g_r(x, y + 1))) + roundUpMean(r_r(x, y), r_r(x, y + 1));
    b_gb(x, y) = (g_gb(x, y) - roundUpMean(g_b(x, y), g_b(x + 1, y))) + roundUpMean(b_b(x, y), b_b(x + 1, y));

    // Red at blue and blue at red: the same correction along both diagonals,
    // keeping the diagonal whose samples differ less.
    {
        Expr pos = (g_b(x, y) - roundUpMean(g_r(x, y), g_r(x - 1, y + 1))) + roundUpMean(r_r(x, y), r_r(x - 1, y + 1));
        Expr posDiff = absd(r_r(x, y), r_r(x - 1, y + 1));
        Expr neg = (g_b(x, y) - roundUpMean(g_r(x - 1, y), g_r(x, y + 1))) + roundUpMean(r_r(x - 1, y), r_r(x, y + 1));
        Expr negDiff = absd(r_r(x - 1, y), r_r(x, y + 1));
        r_b(x, y) = select(posDiff < negDiff, pos, neg);
    }
    {
        Expr pos = (g_r(x, y) - roundUpMean(g_b(x, y), g_b(x + 1, y - 1))) + roundUpMean(b_b(x, y), b_b(x + 1, y - 1));
        Expr posDiff = absd(b_b(x, y), b_b(x + 1, y - 1));
        Expr neg = (g_r(x, y) - roundUpMean(g_b(x + 1, y), g_b(x, y - 1))) + roundUpMean(b_b(x + 1, y), b_b(x, y - 1));
        Expr negDiff = absd(b_b(x + 1, y), b_b(x, y - 1));
        b_r(x, y) = select(posDiff < negDiff, pos, neg);
    }

    // Full-resolution planes. Halide's generator built the odd-row column
    // interleave first (its compiler evaluated the arguments right to left),
    // hence the numbering.
    Func oddRowsR = alternateX("f17", r_b, r_gb);
    Func evenRowsR = alternateX("f18", r_gr, r_r);
    Func red = alternateY("f19", evenRowsR, oddRowsR);
    Func oddRowsG = alternateX("f20", g_b, g_gb);
    Func evenRowsG = alternateX("f21", g_gr, g_r);
    Func green = alternateY("f22", evenRowsG, oddRowsG);
    Func oddRowsB = alternateX("f23", b_b, b_gb);
    Func evenRowsB = alternateX("f24", b_gr, b_r);
    Func blue = alternateY("f25", evenRowsB, oddRowsB);

    // Signed, since the green corrections above may have wrapped below zero.
    Func demosaiced("output");
    demosaiced(x, y, c) = cast<int16_t>(mux(c, {red(x, y), green(x, y), blue(x, y)}));

    // Colour matrix for this colour temperature: linear in 1/kelvin between the
    // two calibrated matrices, in Q8.8 fixed point.
    Func matrix("f26");
    {
        Expr alpha = (1.0f / color_temp - 1.0f / 3200) / (1.0f / 7000 - 1.0f / 3200);
        Expr blended = matrix_3200(x, y) * alpha + matrix_7000(x, y) * (1 - alpha);
        matrix(x, y) = cast<int16_t>(blended * 256.0f);
    }
    Func corrected("f27");
    {
        Expr inR = cast<int32_t>(demosaiced(x, y, 0));
        Expr inG = cast<int32_t>(demosaiced(x, y, 1));
        Expr inB = cast<int32_t>(demosaiced(x, y, 2));
        auto row = [&](int k) {
            Expr v = matrix(3, k) + matrix(0, k) * inR + matrix(1, k) * inG + matrix(2, k) * inB;
            return cast<int16_t>(v / 256);
        };
        corrected(x, y, c) = mux(c, {row(0), row(1), row(2)});
    }

    // Tone curve as a LUT over raw values (FCam's): gamma, then a piecewise
    // quadratic contrast curve, with a guard band outside (black, white].
    Func curve("curve");
    {
        const int resample = 1; // the LUT is only resampled on HVX
        Expr lo = 0 + blackLevel;
        Expr hi = whiteLevel;
        lo /= resample;
        hi /= resample;
        Expr scale = 1.0f / (hi - lo);
        Expr qb = 2.0f - pow(2.0f, contrast / 100.0f);
        Expr qa = 2.0f - 2.0f * qb;
        Expr lum = clamp(cast<float>(x - lo) * scale, 0.0f, 1.0f);
        Expr gc = pow(lum, 1.0f / gamma);
        Expr toned =
            select(gc > 0.5f, 1.0f - (qa * (1.0f - gc) * (1.0f - gc) + qb * (1.0f - gc)), qa * gc * gc + qb * gc);
        Expr v8 = cast(UInt(8), clamp(toned * 255.0f + 0.5f, 0.0f, 255.0f));
        curve(x) = select(x <= lo, 0, select(x > hi, 255, v8));
    }
    Func curved("f28");
    curved(x, y, c) = curve(clamp(corrected(x, y, c), 0, 1023)); // clamped so the LUT's extent is known

    // Unsharp mask; the strength as an 8-bit count of 1/32 steps.
    Func sharpen_strength_x32("sharpen_strength_x32");
    sharpen_strength_x32() = ConciseCasts::u8_sat(sharpen_strength * 32);
    Func unsharp_y("unsharp_y");
    unsharp_y(x, y, c) = smooth121(curved(x, y - 1, c), curved(x, y, c), curved(x, y + 1, c));
    Func unsharp("unsharp");
    unsharp(x, y, c) = smooth121(unsharp_y(x - 1, y, c), unsharp_y(x, y, c), unsharp_y(x + 1, y, c));
    Func mask("mask");
    mask(x, y, c) = cast<int16_t>(curved(x, y, c)) - cast<int16_t>(unsharp(x, y, c));
    Func sharpened("sharpened");
    sharpened(x, y, c) = ConciseCasts::u8_sat(curved(x, y, c) + (mask(x, y, c) * sharpen_strength_x32()) / 32);

    Func processed("processed");
    processed(x, y, c) = sharpened(x, y, c);

    input.set_estimates({{0, 2592}, {0, 1968}});
    matrix_3200.set_estimates({{0, 4}, {0, 3}});
    matrix_7000.set_estimates({{0, 4}, {0, 3}});
    color_temp.set_estimate(3700.0f);
    gamma.set_estimate(2.0f);
    contrast.set_estimate(50.0f);
    sharpen_strength.set_estimate(1.0f);
    blackLevel.set_estimate(25);
    whiteLevel.set_estimate(1023);
    processed.set_estimates({{0, 2592}, {0, 1968}, {0, 3}});

    // GPU: the LUT once, the denoised frame, the two green planes the rest of
    // the demosaic reads around each pixel, the demosaic's output and the
    // tone-mapped image (read by the 3x3 unsharp stencil) at root; the rest is
    // inlined. The 4x3 colour matrix stays inlined: a 16x16 root tile of it
    // would read the matrices outside their 4x3 extent.
    return makeInstance(
        "camera_pipe", {processed},
        {input, matrix_3200, matrix_7000, color_temp, gamma, contrast, sharpen_strength, blackLevel, whiteLevel},
        tiledGpuSchedule(processed, {curve, denoised, g_r, g_b, demosaiced, curved}));
}

} // namespace beamscope::pipelines::apps
