// interpolate: Halide's apps/interpolate (v14.0.0): fills in the transparent parts
// of an RGBA image by pushing premultiplied colour down a 10-level pyramid and
// pulling it back up.

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

namespace {

// One named Func per pyramid level, as the generator declares them.
std::vector<Func> levelFuncs(const std::string &name, int count)
{
    std::vector<Func> fs;
    for (int i = 0; i < count; i++)
        fs.emplace_back(name + "_" + std::to_string(i));
    return fs;
}

} // namespace

PipelineInstance interpolate()
{
    constexpr int levels = 10; // GeneratorParam levels
    ImageParam input(Float(32), 3, "input");
    Var x("x"), y("y"), c("c");

    // The image is RGBA: exactly four channels.
    input.dim(2).set_bounds(0, 4);

    std::vector<Func> downsampled = levelFuncs("downsampled", levels);
    std::vector<Func> downx = levelFuncs("downx", levels);
    std::vector<Func> interpolated = levelFuncs("interpolated", levels);
    std::vector<Func> upsampled = levelFuncs("upsampled", levels);
    std::vector<Func> upsampledx = levelFuncs("upsampledx", levels);

    Func clamped = repeatEdge(input);

    // Premultiply colour by alpha; alpha itself passes through.
    downsampled[0](x, y, c) = select(c < 3, clamped(x, y, c) * clamped(x, y, 3), clamped(x, y, 3));

    for (int l = 1; l < levels; ++l) {
        Func prev = downsampled[l - 1];
        if (l == 4) {
            // Clamp to the (scaled) image here too, so the deeper levels' footprints
            // stay near the image instead of reaching hundreds of pixels past it.
            Expr w = input.width() / (1 << (l - 1));
            Expr h = input.height() / (1 << (l - 1));
            Func bounded("lambda_1");
            bounded(x, y, c) = prev(clamp(x, 0, w), clamp(y, 0, h), c);
            prev = bounded;
        }
        // [1 2 1] / 4 in x, then in y, keeping every other sample.
        downx[l](x, y, c) = (prev(x * 2 - 1, y, c) + 2.0f * prev(x * 2, y, c) + prev(x * 2 + 1, y, c)) * 0.25f;
        downsampled[l](x, y, c) =
            (downx[l](x, y * 2 - 1, c) + 2.0f * downx[l](x, y * 2, c) + downx[l](x, y * 2 + 1, c)) * 0.25f;
    }

    interpolated[levels - 1](x, y, c) = downsampled[levels - 1](x, y, c);
    for (int l = levels - 2; l >= 0; --l) {
        // Box upsampling of the coarser result, composited under this level.
        upsampledx[l](x, y, c) = (interpolated[l + 1](x / 2, y, c) + interpolated[l + 1]((x + 1) / 2, y, c)) / 2.0f;
        upsampled[l](x, y, c) = (upsampledx[l](x, y / 2, c) + upsampledx[l](x, (y + 1) / 2, c)) / 2.0f;
        Expr alpha = 1.0f - downsampled[l](x, y, 3);
        interpolated[l](x, y, c) = downsampled[l](x, y, c) + alpha * upsampled[l](x, y, c);
    }

    // Un-premultiply.
    Func normalize("normalize");
    normalize(x, y, c) = interpolated[0](x, y, c) / interpolated[0](x, y, 3);

    input.set_estimates({{0, 1536}, {0, 2560}, {0, 4}});
    normalize.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});

    // Roots as in Halide's GPU schedule: every downsampled level, and the
    // interpolated levels it does not fuse into the output's tiles.
    std::vector<Func> roots;
    for (int l = 1; l < levels; l++)
        roots.push_back(downsampled[l]);
    for (int l = 1; l < levels - 1; l++)
        roots.push_back(interpolated[l]);
    return makeInstance("interpolate", {normalize}, {input}, tiledGpuSchedule(normalize, roots));
}

} // namespace beamscope::pipelines::apps
