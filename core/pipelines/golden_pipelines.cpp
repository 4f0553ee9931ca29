// The six golden test pipelines, statement for statement as in
// shared/golden/pipelines/PIPELINES.md (plain ImageParam variant). Names,
// expression order and types matter: they decide stage names and features.

#include "core/pipelines/builtin_lists.h"

namespace beamscope::pipelines {

using namespace Halide;

namespace {

PipelineInstance boxBlur()
{
    ImageParam input(Float(32), 2, "input");
    Var x("x"), y("y");
    Func blur_x("blur_x"), output("output");
    blur_x(x, y) = (input(x, y) + input(x + 1, y) + input(x + 2, y)) / 3.0f;
    output(x, y) = (blur_x(x, y) + blur_x(x, y + 1) + blur_x(x, y + 2)) / 3.0f;
    input.set_estimates({{0, 1538}, {0, 2562}});
    output.set_estimates({{0, 1536}, {0, 2560}});
    return makeInstance("box_blur", {output}, {input}, [output, blur_x](const Target &) mutable {
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
        output.gpu_tile(output.args()[0], output.args()[1], xo, yo, xi, yi, 16, 16);
        blur_x.compute_at(output, xo).gpu_threads(blur_x.args()[0], blur_x.args()[1]);
    });
}

PipelineInstance stencilChainU16()
{
    ImageParam input(UInt(16), 2, "input");
    Var x("x"), y("y");
    auto stencil = [&](auto &p) {
        Expr p00 = cast<uint32_t>(p(x, y)), p10 = cast<uint32_t>(p(x + 1, y)), p20 = cast<uint32_t>(p(x + 2, y));
        Expr p01 = cast<uint32_t>(p(x, y + 1)), p11 = cast<uint32_t>(p(x + 1, y + 1)),
             p21 = cast<uint32_t>(p(x + 2, y + 1));
        Expr p02 = cast<uint32_t>(p(x, y + 2)), p12 = cast<uint32_t>(p(x + 1, y + 2)),
             p22 = cast<uint32_t>(p(x + 2, y + 2));
        Expr sum = p00 + 2 * p10 + p20 + 2 * p01 + 4 * p11 + 2 * p21 + p02 + 2 * p12 + p22;
        return cast<uint16_t>(sum >> 4);
    };
    Func stage_1("stage_1"), stage_2("stage_2"), stage_3("stage_3"), stage_4("stage_4"), output("output");
    stage_1(x, y) = stencil(input);
    stage_2(x, y) = stencil(stage_1);
    stage_3(x, y) = stencil(stage_2);
    stage_4(x, y) = stencil(stage_3);
    output(x, y) = stencil(stage_4);
    input.set_estimates({{0, 1546}, {0, 2570}});
    output.set_estimates({{0, 1536}, {0, 2560}});
    return makeInstance(
        "stencil_chain_u16", {output}, {input},
        [output, stages = std::vector<Func>{stage_1, stage_2, stage_3, stage_4}](const Target &) mutable {
            Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
            output.gpu_tile(output.args()[0], output.args()[1], xo, yo, xi, yi, 16, 16);
            for (Func &f : stages) {
                Var fxo("fxo"), fyo("fyo"), fxi("fxi"), fyi("fyi");
                f.compute_root().gpu_tile(f.args()[0], f.args()[1], fxo, fyo, fxi, fyi, 16, 16);
            }
        });
}

PipelineInstance matmul()
{
    ImageParam A(Float(32), 2, "A"), B(Float(32), 2, "B");
    Var x("x"), y("y");
    RDom k(0, 1024, "k");
    Func prod("prod"), output("output");
    prod(x, y) = 0.0f;
    prod(x, y) += A(k, y) * B(x, k);
    output(x, y) = prod(x, y);
    A.set_estimates({{0, 1024}, {0, 1024}});
    B.set_estimates({{0, 1024}, {0, 1024}});
    output.set_estimates({{0, 1024}, {0, 1024}});
    return makeInstance("matmul", {output}, {A, B}, [output, prod](const Target &) mutable {
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
        output.gpu_tile(output.args()[0], output.args()[1], xo, yo, xi, yi, 16, 16);
        prod.compute_at(output, xo).gpu_threads(prod.args()[0], prod.args()[1]);
        prod.update().gpu_threads(prod.args()[0], prod.args()[1]);
    });
}

PipelineInstance histogram()
{
    ImageParam input(UInt(8), 2, "input");
    Var i("i");
    RDom r(0, 1536, 0, 2560, "r");
    Func hist("hist"), output("output");
    hist(i) = 0;
    hist(cast<int32_t>(input(r.x, r.y))) += 1;
    output(i) = hist(i);
    input.set_estimates({{0, 1536}, {0, 2560}});
    output.set_estimates({{0, 256}});
    return makeInstance("histogram", {output}, {input}, [output, hist](const Target &) mutable {
        Var io("io"), ii("ii");
        output.gpu_tile(output.args()[0], io, ii, 64);
        // The scatter runs serially on one GPU thread: correct, if slow.
        hist.compute_root().gpu_single_thread();
        hist.update().gpu_single_thread();
    });
}

PipelineInstance convRelu()
{
    ImageParam input(Float(32), 4, "input"), filter(Float(32), 4, "filter"), bias(Float(32), 1, "bias");
    Var c("c"), x("x"), y("y"), n("n");
    RDom r(0, 32, 0, 3, 0, 3, "r");
    Func conv("conv"), output("output");
    conv(c, x, y, n) = bias(c);
    conv(c, x, y, n) += filter(c, r.y, r.z, r.x) * input(r.x, x + r.y, y + r.z, n);
    output(c, x, y, n) = max(0.0f, conv(c, x, y, n));
    input.set_estimates({{0, 32}, {0, 66}, {0, 66}, {0, 4}});
    filter.set_estimates({{0, 32}, {0, 3}, {0, 3}, {0, 32}});
    bias.set_estimates({{0, 32}});
    output.set_estimates({{0, 32}, {0, 64}, {0, 64}, {0, 4}});
    return makeInstance("conv_relu", {output}, {input, filter, bias}, [output, conv](const Target &) mutable {
        Var co("co"), xo("xo"), ci("ci"), xi("xi");
        output.gpu_tile(output.args()[0], output.args()[1], co, xo, ci, xi, 32, 8);
        conv.compute_at(output, xo).gpu_threads(conv.args()[0], conv.args()[1]);
        conv.update().gpu_threads(conv.args()[0], conv.args()[1]);
    });
}

PipelineInstance selectCast()
{
    ImageParam input(UInt(8), 2, "input");
    Param<float> gain("gain");
    Var x("x"), y("y");
    Func widen("widen"), curve("curve"), tone("tone"), output("output");
    widen(x, y) = cast<int16_t>(input(x, y)) - cast<int16_t>(128);
    Expr v = widen(x, y);
    curve(x, y) = select(v > 64, min(v * 2, cast<int16_t>(255)), v < -64, max(v / 2, cast<int16_t>(-255)), v);
    Expr t = cast<double>(curve(x, y) + curve(x + 1, y)) * Expr(0.5);
    tone(x, y) = cast<float>(t) * gain + select(curve(x, y) == curve(x + 1, y), 0.0f, 0.5f);
    output(x, y) = cast<uint8_t>(clamp(cast<int32_t>(tone(x, y)) + 128, 0, 255));
    gain.set_estimate(1.5f);
    input.set_estimates({{0, 1537}, {0, 2560}});
    output.set_estimates({{0, 1536}, {0, 2560}});
    return makeInstance("select_cast", {output}, {input, gain}, [output, curve](const Target &) mutable {
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
        output.gpu_tile(output.args()[0], output.args()[1], xo, yo, xi, yi, 16, 16);
        curve.compute_at(output, xo).gpu_threads(curve.args()[0], curve.args()[1]);
    });
}

} // namespace

std::vector<PipelineInfo> goldenPipelines()
{
    return {
        {"box_blur", "golden: 3x3 separable box blur, float32", Origin::Golden, boxBlur},
        {"stencil_chain_u16", "golden: 5 chained 3x3 stencils, uint16", Origin::Golden, stencilChainU16},
        {"matmul", "golden: float32 matrix multiply, 1024^3", Origin::Golden, matmul},
        {"histogram", "golden: 256-bin histogram of an 8-bit image (scatter)", Origin::Golden, histogram},
        {"conv_relu", "golden: 3x3 convolution layer + bias + ReLU", Origin::Golden, convRelu},
        {"select_cast", "golden: select/min/max tone curve with a cast chain", Origin::Golden, selectCast},
    };
}

} // namespace beamscope::pipelines
