// hist: Halide's apps/hist (v14.0.0): histogram equalization of an RGB
// image's luma, the chroma kept, converted back to RGB.

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

PipelineInstance hist()
{
    ImageParam input(UInt(8), 3, "input");
    Var x("x"), y("y"), c("c");

    // Luma and the two chroma planes (float, like the generator's arithmetic
    // on uint8 inputs with float constants).
    Func Y("Y");
    Y(x, y) = 0.299f * input(x, y, 0) + 0.587f * input(x, y, 1) + 0.114f * input(x, y, 2);
    Func Cr("Cr");
    Cr(x, y) = (input(x, y, 0) - Y(x, y)) * 0.713f + 128;
    Func Cb("Cb");
    Cb(x, y) = (input(x, y, 2) - Y(x, y)) * 0.564f + 128;

    // A histogram per row (a scatter over the row), then summed over rows.
    Func hist_rows("hist_rows");
    hist_rows(x, y) = 0;
    RDom rx(0, input.width());
    hist_rows(cast<int>(clamp(Y(rx, y), 0, 255)), y) += 1;

    Func histogram("hist");
    histogram(x) = 0;
    RDom ry(0, input.height());
    histogram(x) += hist_rows(x, ry);

    // Cumulative distribution: a serial prefix sum over the 256 bins.
    Func cdf("cdf");
    cdf(x) = histogram(0);
    RDom b(1, 255);
    cdf(b.x) = cdf(b.x - 1) + histogram(b.x);

    Func cdf_bin("cdf_bin");
    cdf_bin(x, y) = cast<uint8_t>(clamp(Y(x, y), 0, 255));

    Func eq("equalize");
    eq(x, y) = clamp(cdf(cdf_bin(x, y)) * (255.0f / (input.height() * input.width())), 0, 255);

    Expr r = cast<uint8_t>(clamp(eq(x, y) + (Cr(x, y) - 128) * 1.4f, 0, 255));
    Expr g = cast<uint8_t>(clamp(eq(x, y) - 0.343f * (Cb(x, y) - 128) - 0.711f * (Cr(x, y) - 128), 0, 255));
    Expr bl = cast<uint8_t>(clamp(eq(x, y) + 1.765f * (Cb(x, y) - 128), 0, 255));
    Func output("output");
    output(x, y, c) = mux(c, {r, g, bl});

    input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});

    auto gpu = [output, Y, hist_rows, histogram, cdf](const Target &) mutable {
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
        Var fx = output.args()[0], fy = output.args()[1];
        output.gpu_tile(fx, fy, xo, yo, xi, yi, 16, 16);
        Y.compute_root().gpu_tile(Y.args()[0], Y.args()[1], xo, yo, xi, yi, 16, 16);
        // One thread per row for the scatter, so no two threads share a bin.
        Var hx = hist_rows.args()[0], hy = hist_rows.args()[1];
        hist_rows.compute_root().gpu_tile(hx, hy, xo, yo, xi, yi, 16, 16);
        hist_rows.update().gpu_tile(hy, yo, yi, 16);
        Var bx = histogram.args()[0];
        histogram.compute_root().gpu_tile(bx, xo, xi, 16);
        histogram.update().gpu_tile(bx, xo, xi, 16);
        // The prefix sum is serial.
        cdf.compute_root().gpu_tile(cdf.args()[0], xo, xi, 16);
        cdf.update().gpu_single_thread();
    };
    return makeInstance("hist", {output}, {input}, gpu);
}

} // namespace beamscope::pipelines::apps
