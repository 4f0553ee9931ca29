// stencil_chain: the simplified stand-in, to be replaced by Halide's own app (apps/stencil_chain at v14.0.0).

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

PipelineInstance stencilChain()
{
    ImageParam input(UInt(16), 2, "input");
    const int stencils = 8;
    Var x("x"), y("y");
    Func prev = BoundaryConditions::repeat_edge(input);
    std::vector<Func> roots;
    for (int s = 0; s < stencils; s++) {
        Func f("stencil_" + std::to_string(s));
        Expr sum = cast<uint32_t>(0);
        for (int dy = -2; dy <= 2; dy++)
            for (int dx = -2; dx <= 2; dx++)
                sum = sum + cast<uint32_t>(prev(x + dx, y + dy));
        f(x, y) = cast<uint16_t>(sum / 25);
        roots.push_back(f);
        prev = f;
    }
    roots.pop_back();
    Func output("stencil_chain");
    output(x, y) = prev(x, y);

    input.set_estimates({{0, 1536}, {0, 2560}});
    output.set_estimates({{0, 1536}, {0, 2560}});
    return makeInstance("stencil_chain", {output}, {input}, tiledGpuSchedule(output, roots));
}

} // namespace beamscope::pipelines::apps
