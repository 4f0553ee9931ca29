// unsharp: the simplified stand-in, to be replaced by Halide's own app (apps/unsharp at v14.0.0).

#include "core/pipelines/apps_common.h"

#include <cmath>

namespace beamscope::pipelines::apps {

using namespace Halide;

PipelineInstance unsharp()
{
    ImageParam input(Float(32), 3, "input");
    const float sigma = 1.5f;
    const int radius = 3;
    Var x("x"), y("y"), c("c");
    Func clamped = BoundaryConditions::repeat_edge(input);
    std::vector<float> kernel;
    float total = 0;
    for (int i = -radius; i <= radius; i++) {
        kernel.push_back(std::exp(-float(i * i) / (2 * sigma * sigma)));
        total += kernel.back();
    }
    Func gray("gray");
    gray(x, y) = 0.299f * clamped(x, y, 0) + 0.587f * clamped(x, y, 1) + 0.114f * clamped(x, y, 2);
    Func blurY("blur_y"), blurX("blur_x");
    Expr sy = 0.0f, sx = 0.0f;
    for (int i = -radius; i <= radius; i++) {
        sy = sy + (kernel[static_cast<size_t>(i + radius)] / total) * gray(x, y + i);
    }
    blurY(x, y) = sy;
    for (int i = -radius; i <= radius; i++)
        sx = sx + (kernel[static_cast<size_t>(i + radius)] / total) * blurY(x + i, y);
    blurX(x, y) = sx;
    Func sharpen("sharpen"), ratio("ratio");
    sharpen(x, y) = 2.0f * gray(x, y) - blurX(x, y);
    ratio(x, y) = sharpen(x, y) / max(gray(x, y), 1e-3f);
    Func output("unsharp");
    output(x, y, c) = ratio(x, y) * clamped(x, y, c);

    input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    return makeInstance("unsharp", {output}, {input}, tiledGpuSchedule(output, {gray, blurY}));
}

} // namespace beamscope::pipelines::apps
