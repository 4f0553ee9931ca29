// max_filter: the simplified stand-in, to be replaced by Halide's own app (apps/max_filter at v14.0.0).

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

PipelineInstance maxFilter()
{
    ImageParam input(Float(32), 3, "input");
    const int radius = 26, slices = 6;
    Var x("x"), y("y"), c("c");
    Func clamped = BoundaryConditions::repeat_edge(input);
    // vertical_max_<t>(x, y) = max over [y, y + 2^t)
    std::vector<Func> vert{clamped}, roots;
    for (int t = 1; t < slices; t++) {
        Func f("vertical_max_" + std::to_string(t));
        f(x, y, c) = max(vert.back()(x, y, c), vert.back()(x, y + (1 << (t - 1)), c));
        vert.push_back(f);
        roots.push_back(f);
    }
    const int span = 1 << (slices - 1); // 32 <= 2 * radius + 1 < 64
    Func vertical("vertical_max");
    vertical(x, y, c) = max(vert.back()(x, y - radius, c), vert.back()(x, y + radius + 1 - span, c));
    RDom rx(-radius, 2 * radius + 1, "rx");
    Func horizontal("horizontal_max");
    horizontal(x, y, c) = Float(32).min();
    horizontal(x, y, c) = max(horizontal(x, y, c), vertical(x + rx, y, c));
    Func output("max_filter");
    output(x, y, c) = horizontal(x, y, c);
    roots.push_back(vertical);
    roots.push_back(horizontal);

    input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    return makeInstance("max_filter", {output}, {input}, tiledGpuSchedule(output, roots));
}

} // namespace beamscope::pipelines::apps
