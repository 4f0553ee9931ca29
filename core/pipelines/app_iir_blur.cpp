// iir_blur: the simplified stand-in, to be replaced by Halide's own app (apps/iir_blur at v14.0.0).

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

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

} // namespace beamscope::pipelines::apps
