// iir_blur: Halide's apps/iir_blur (v14.0.0): a first-order recursive (IIR)
// low-pass filter run down and back up the columns, then the image transposed;
// done twice, so both columns and rows are blurred and the orientation restored.

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

namespace {

struct BlurPass {
    Func blur, transpose;
    RDom ry;
};

// One pass: the columns of `in` filtered causally, then anti-causally, then
// transposed. Both passes name their Funcs "blur" and "transpose", as the
// generator's two calls do; Halide numbers the second pair (blur$1, ...).
BlurPass blurColsTranspose(Func in, Expr height, Expr alpha)
{
    Var x("x"), y("y"), c("c");
    Func blur("blur");
    // The pure definition leaves the buffer unset: every row is written below.
    blur(x, y, c) = undef<float>();
    // The first row starts the recursion.
    blur(x, 0, c) = in(x, 0, c);
    RDom ry(1, height - 1);
    // Downwards: each row mixes the previous output row with this input row.
    blur(x, ry, c) = (1 - alpha) * blur(x, ry - 1, c) + alpha * in(x, ry, c);
    // Upwards, over the same rows in reverse, mixing with the row below.
    Expr flip_ry = height - ry - 1;
    blur(x, flip_ry, c) = (1 - alpha) * blur(x, flip_ry + 1, c) + alpha * blur(x, flip_ry, c);

    Func transpose("transpose");
    transpose(x, y, c) = blur(y, x, c);
    return {blur, transpose, ry};
}

} // namespace

PipelineInstance iirBlur()
{
    ImageParam input(Float(32), 3, "input");
    Param<float> alpha("alpha");

    // Columns of the input, then columns of the transposed result (the rows of
    // the original); the second transpose is the output.
    BlurPass first = blurColsTranspose(input, input.height(), alpha);
    BlurPass second = blurColsTranspose(first.transpose, input.width(), alpha);
    Func output = second.transpose;

    input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    alpha.set_estimate(0.1f);
    output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});

    auto gpu = [output, first, second](const Target &) mutable {
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
        output.gpu_tile(output.args()[0], output.args()[1], xo, yo, xi, yi, 16, 16);
        first.transpose.compute_root().gpu_tile(first.transpose.args()[0], first.transpose.args()[1], xo, yo, xi, yi,
                                                16, 16);
        for (BlurPass *pass : {&first, &second}) {
            Func blur = pass->blur;
            const Var x = blur.args()[0], c = blur.args()[2];
            blur.compute_root();
            // The first row: one thread per column. Updates round their splits up by
            // default, which would read input columns past its edge: guard instead.
            blur.update(0).gpu_tile(x, xo, xi, 32, TailStrategy::GuardWithIf);
            // The scans: one thread per column walks all rows serially.
            for (int u = 1; u <= 2; u++)
                blur.update(u).reorder(pass->ry.x, x, c).gpu_tile(x, xo, xi, 32, TailStrategy::GuardWithIf);
        }
    };
    return makeInstance("iir_blur", {output}, {input, alpha}, gpu);
}

} // namespace beamscope::pipelines::apps
