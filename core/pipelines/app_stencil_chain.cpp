// stencil_chain: Halide's apps/stencil_chain (v14.0.0): a chain of 32
// weighted 5 x 5 stencils over a uint16 image with clamped edges.

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

PipelineInstance stencilChain()
{
    const int stencils = 32; // the generator's GeneratorParam default
    ImageParam input(UInt(16), 2, "input");
    Var x("x"), y("y");

    // BoundaryConditions::repeat_edge(input) by hand, so that its Funcs get
    // the names a generator gives them whatever this process built before.
    Func wrapped("lambda_0");
    wrapped(_) = input(_);
    Region bounds;
    for (int d = 0; d < 2; d++)
        bounds.push_back({Expr(input.dim(d).min()), Expr(input.dim(d).extent())});
    std::vector<Func> stages{BoundaryConditions::repeat_edge(wrapped, bounds)};

    // Each stage: the previous one's 5 x 5 neighbourhood, weighted by
    // (i + 3) * (j + 3) and summed in uint16 (wrapping, as in the generator).
    for (int s = 0; s < stencils; s++) {
        Func f("stage_" + std::to_string(s));
        const Func prev = stages.back();
        Expr acc = cast<uint16_t>(0);
        for (int i = -2; i <= 2; i++)
            for (int j = -2; j <= 2; j++)
                acc += ((i + 3) * (j + 3)) * prev(x + i, y + j);
        f(x, y) = acc;
        stages.push_back(f);
    }

    Func output("output");
    output(x, y) = stages.back()(x, y);

    input.set_estimates({{0, 1536}, {0, 2560}});
    output.set_estimates({{0, 1536}, {0, 2560}});

    // Every stencil at root but the last, which the output inlines.
    std::vector<Func> roots(stages.begin() + 1, stages.end() - 1);
    return makeInstance("stencil_chain", {output}, {input}, tiledGpuSchedule(output, roots));
}

} // namespace beamscope::pipelines::apps
