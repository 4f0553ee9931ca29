// hist: the simplified stand-in, to be replaced by Halide's own app (apps/hist at v14.0.0).

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

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

} // namespace beamscope::pipelines::apps
