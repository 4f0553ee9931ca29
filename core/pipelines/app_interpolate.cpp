// interpolate: the simplified stand-in, to be replaced by Halide's own app (apps/interpolate at v14.0.0).

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

PipelineInstance interpolate()
{
    ImageParam input(Float(32), 3, "input"); // RGB + alpha
    const int levels = 6;
    Var x("x"), y("y"), c("c");
    Func clamped = BoundaryConditions::repeat_edge(input);
    std::vector<Func> downsampled(levels), interpolated(levels), roots;
    downsampled[0] = Func("downsampled_0");
    downsampled[0](x, y, c) = select(c < 3, clamped(x, y, c) * clamped(x, y, 3), clamped(x, y, 3));
    for (int l = 1; l < levels; l++) {
        Func prev = downsampled[static_cast<size_t>(l - 1)];
        Func dx("downsampled_x_" + std::to_string(l));
        dx(x, y, c) = (prev(2 * x - 1, y, c) + 2.0f * prev(2 * x, y, c) + prev(2 * x + 1, y, c)) * 0.25f;
        downsampled[static_cast<size_t>(l)] = Func("downsampled_" + std::to_string(l));
        downsampled[static_cast<size_t>(l)](x, y, c) =
            (dx(x, 2 * y - 1, c) + 2.0f * dx(x, 2 * y, c) + dx(x, 2 * y + 1, c)) * 0.25f;
        roots.push_back(downsampled[static_cast<size_t>(l)]);
    }
    interpolated[levels - 1] = downsampled[levels - 1];
    for (int l = levels - 2; l >= 0; l--) {
        Func coarse = interpolated[static_cast<size_t>(l + 1)];
        Func ux("upsampled_x_" + std::to_string(l)), up("upsampled_" + std::to_string(l));
        ux(x, y, c) = (coarse(x / 2, y, c) + coarse((x + 1) / 2, y, c)) * 0.5f;
        up(x, y, c) = (ux(x, y / 2, c) + ux(x, (y + 1) / 2, c)) * 0.5f;
        Func fine = downsampled[static_cast<size_t>(l)];
        interpolated[static_cast<size_t>(l)] = Func("interpolated_" + std::to_string(l));
        interpolated[static_cast<size_t>(l)](x, y, c) = fine(x, y, c) + (1.0f - fine(x, y, 3)) * up(x, y, c);
        roots.push_back(interpolated[static_cast<size_t>(l)]);
    }
    Func output("interpolate");
    output(x, y, c) = interpolated[0](x, y, c) / max(interpolated[0](x, y, 3), 1e-6f);

    input.set_estimates({{0, 1536}, {0, 2560}, {0, 4}});
    output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    return makeInstance("interpolate", {output}, {input}, tiledGpuSchedule(output, roots));
}

} // namespace beamscope::pipelines::apps
