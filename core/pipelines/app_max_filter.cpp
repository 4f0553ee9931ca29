// max_filter: Halide's apps/max_filter (v14.0.0): the maximum over a disc of
// radius 26 around every pixel. Vertical maxima over power-of-two heights are
// built first (a log-sized pyramid), so any column height is the max of two of
// them; a horizontal pass then takes, at each offset dx, the column height
// that keeps the sample inside the disc.

#include "core/pipelines/apps_common.h"

#include <cmath>

namespace beamscope::pipelines::apps {

using namespace Halide;

PipelineInstance maxFilter()
{
    ImageParam input_(Float(32), 3, "input");
    const int radius = 26; // the generator's "radius" parameter, at its default
    Var x("x"), y("y"), c("c"), t("t");

    // BoundaryConditions::repeat_edge(input, <x and y bounds>), spelled out so that its
    // Funcs carry the names Halide's generator gets (the input wrapped as lambda_0,
    // then clamped in x and y; channels are never read out of range).
    Func lambda_0("lambda_0");
    lambda_0(x, y, c) = input_(x, y, c);
    auto edge = [&](const Expr &v, int d) {
        return clamp(likely(v), input_.dim(d).min(), input_.dim(d).min() + input_.dim(d).extent() - 1);
    };
    Func input("repeat_edge");
    input(x, y, c) = lambda_0(edge(x, 0), edge(y, 1), c);

    // Enough power-of-two heights that two of them cover any diameter up to 2 * radius + 1.
    const int slices = static_cast<int>(std::ceil(std::log(static_cast<float>(radius)) / std::log(2.0f))) + 1;

    // vert_log(x, y, c, t): max of input over rows [y, y + 2^t), each slice from
    // two overlapping samples of the one before.
    Func vert_log("vert_log");
    vert_log(x, y, c, t) = input(x, y, c);
    RDom r(-radius, input_.height() + radius, 1, slices - 1);
    Expr step = clamp(1 << (r.y - 1), 0, radius * 2);
    vert_log(x, r.x, c, r.y) = max(vert_log(x, r.x, c, r.y - 1), vert_log(x, r.x + step, c, r.y - 1));

    // The pyramid level whose height is the largest power of two within 2 * t + 1.
    Func slice_for_radius("slice_for_radius");
    slice_for_radius(t) = cast<int>(floor(log(2 * t + 1) / logf(2)));

    // vert(x, y, c, t): max over rows [y - t, y + t], as two overlapping samples of one level.
    Func vert("vert");
    Expr slice = clamp(slice_for_radius(t), 0, slices);
    Expr top = vert_log(x, y - t, c, slice);
    Expr bottom = vert_log(x, y + t + 1 - clamp(1 << slice, 0, 2 * radius), c, slice);
    vert(x, y, c, t) = max(top, bottom);

    // filter_height(x): the half-height of the disc's column at horizontal offset x
    // (Halide's inline sum(), written out with the name a fresh generator gives it).
    RDom dy(0, radius + 1);
    Func sum_h("sum");
    sum_h(x) = 0;
    sum_h(x) += select(x * x + dy * dy < (radius + 0.25f) * (radius + 0.25f), 1, 0);
    Func filter_height("filter_height");
    filter_height(x) = sum_h(x);

    // The horizontal max of the columns (Halide's inline maximum(), written out).
    RDom dx(-radius, 2 * radius + 1);
    Func maximum_f("maximum");
    maximum_f(x, y, c) = Float(32).min();
    maximum_f(x, y, c) = max(maximum_f(x, y, c), vert(x + dx, y, c, clamp(filter_height(dx), 0, radius + 1)));
    Func output("output");
    output(x, y, c) = maximum_f(x, y, c);

    input_.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});

    auto tiled = tiledGpuSchedule(output, {sum_h, maximum_f});
    auto gpu = [tiled, vert_log, r](const Target &target) mutable {
        tiled(target);
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
        const Var vx = vert_log.args()[0], vy = vert_log.args()[1], vc = vert_log.args()[2];
        vert_log.compute_root().gpu_tile(vx, vy, xo, yo, xi, yi, 16, 16);
        // Each level reads the one before, so a thread walks its column through
        // all levels serially; columns and channels run in parallel.
        vert_log.update().split(vx, xo, xi, 128).reorder(r.x, r.y, xi, xo, vc).gpu_blocks(xo, vc).gpu_threads(xi);
    };
    return makeInstance("max_filter", {output}, {input_}, gpu);
}

} // namespace beamscope::pipelines::apps
