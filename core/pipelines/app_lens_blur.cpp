// lens_blur: the simplified stand-in, to be replaced by Halide's own app (apps/lens_blur at v14.0.0).

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

// Block-matching stereo picks a disparity per pixel; the left image is then
// blurred over a disc of sample points whose radius grows with the distance
// from the focal depth.
PipelineInstance lensBlur()
{
    ImageParam left(UInt(8), 3, "left"), right(UInt(8), 3, "right");
    Param<int> slices("slices"), focus_depth("focus_depth");
    Param<float> blur_radius_scale("blur_radius_scale");
    const int samples = 24, max_radius = 8;
    Var x("x"), y("y"), z("z"), c("c"), s("s");
    Func l = BoundaryConditions::repeat_edge(left), r = BoundaryConditions::repeat_edge(right);

    Func diff("diff");
    diff(x, y, z, c) = min(absd(l(x, y, c), r(x + 2 * z, y, c)), absd(l(x, y, c), r(x + 2 * z + 1, y, c)));
    Func cost("cost");
    auto sq = [](Expr e) {
        Expr f = cast<float>(e);
        return f * f;
    };
    cost(x, y, z) = sq(diff(x, y, z, 0)) + sq(diff(x, y, z, 1)) + sq(diff(x, y, z, 2));
    Func costX("cost_blur_x"), costY("cost_blur");
    costX(x, y, z) = cost(x - 2, y, z) + cost(x - 1, y, z) + cost(x, y, z) + cost(x + 1, y, z) + cost(x + 2, y, z);
    costY(x, y, z) = costX(x, y - 2, z) + costX(x, y - 1, z) + costX(x, y, z) + costX(x, y + 1, z) + costX(x, y + 2, z);

    RDom rz(0, slices, "rz");
    Func depth("depth"); // argmin over disparities, as an explicit reduction
    depth(x, y) = Tuple(0, Float(32).max());
    Expr better = costY(x, y, rz) < depth(x, y)[1];
    depth(x, y) = Tuple(select(better, rz, depth(x, y)[0]), select(better, costY(x, y, rz), depth(x, y)[1]));

    Func radius("blur_radius");
    radius(x, y) = cast<float>(abs(depth(x, y)[0] - focus_depth)) * blur_radius_scale;
    Func offsetX("sample_x"), offsetY("sample_y"), sampleR("sample_radius");
    Expr rs = sqrt((cast<float>(s) + 0.5f) / samples) * max_radius;
    sampleR(s) = rs;
    offsetX(s) = cast<int>(clamp(rs * cos(cast<float>(s) * 2.39996f), -float(max_radius), float(max_radius)));
    offsetY(s) = cast<int>(clamp(rs * sin(cast<float>(s) * 2.39996f), -float(max_radius), float(max_radius)));
    Func withAlpha("input_with_alpha");
    withAlpha(x, y, c) = select(c < 3, cast<float>(l(x, y, min(c, 2))) / 255.0f, 1.0f);

    RDom rs_dom(0, samples, "samples");
    Func blurred("lens_blurred");
    blurred(x, y, c) = 0.0f;
    Expr inside = select(sampleR(rs_dom) <= radius(x, y) + 0.5f, 1.0f, 0.0f);
    blurred(x, y, c) += inside * withAlpha(x + offsetX(rs_dom), y + offsetY(rs_dom), c);
    Func output("lens_blur");
    output(x, y, c) = blurred(x, y, c) / max(blurred(x, y, 3), 1.0f);

    slices.set_estimate(32);
    focus_depth.set_estimate(13);
    blur_radius_scale.set_estimate(0.5f);
    left.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    right.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    return makeInstance("lens_blur", {output}, {left, right, slices, focus_depth, blur_radius_scale},
                        tiledGpuSchedule(output, {cost, costY, depth, offsetX, offsetY, sampleR, blurred}));
}

} // namespace beamscope::pipelines::apps
