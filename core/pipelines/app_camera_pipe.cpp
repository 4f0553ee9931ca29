// camera_pipe: the simplified stand-in, to be replaced by Halide's own app (apps/camera_pipe at v14.0.0).

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

PipelineInstance cameraPipe()
{
    ImageParam input(UInt(16), 2, "input");
    ImageParam matrix(Float(32), 2, "matrix"); // matrix(column, row): 3 gains + offset per output channel
    Param<float> gamma("gamma"), contrast("contrast"), sharpen_strength("sharpen_strength");
    Param<int> black_level("black_level"), white_level("white_level");
    Var x("x"), y("y"), c("c"), i("i");

    Func shifted("shifted");
    shifted(x, y) = input(x + 16, y + 12);
    Func denoised("denoised"); // hot pixel suppression
    denoised(x, y) = clamp(shifted(x, y), cast<uint16_t>(0),
                           max(max(shifted(x - 2, y), shifted(x + 2, y)), max(shifted(x, y - 2), shifted(x, y + 2))));
    Func deinterleaved("deinterleaved"); // g_gr, r_r, b_b, g_gb planes at half resolution
    deinterleaved(x, y, c) = select(c == 0, denoised(2 * x, 2 * y), c == 1, denoised(2 * x + 1, 2 * y), c == 2,
                                    denoised(2 * x, 2 * y + 1), denoised(2 * x + 1, 2 * y + 1));
    Func linear("linear");
    linear(x, y, c) =
        cast<float>(cast<int>(deinterleaved(x, y, c)) - black_level) / cast<float>(white_level - black_level);

    // Bilinear demosaic: each plane upsampled to full resolution.
    auto plane = [&](Expr p) {
        Expr hx = x / 2, hy = y / 2, ox = x % 2, oy = y % 2;
        return 0.25f *
               (linear(hx, hy, p) + linear(hx + ox, hy, p) + linear(hx, hy + oy, p) + linear(hx + ox, hy + oy, p));
    };
    Func demosaiced("demosaiced");
    demosaiced(x, y, c) = select(c == 0, plane(1), c == 1, 0.5f * (plane(0) + plane(3)), plane(2));
    Func corrected("corrected");
    corrected(x, y, c) = matrix(3, c) + matrix(0, c) * demosaiced(x, y, 0) + matrix(1, c) * demosaiced(x, y, 1) +
                         matrix(2, c) * demosaiced(x, y, 2);

    Func curve("curve"); // gamma and an S-shaped contrast curve, as a 1024-entry table
    {
        Expr xf = clamp(cast<float>(i) / 1023.0f, 0.0f, 1.0f);
        Expr g = pow(xf, 1.0f / gamma);
        Expr b = 2.0f - pow(2.0f, contrast / 100.0f);
        Expr a = 2.0f - 2.0f * b;
        Expr zc = select(g > 0.5f, 1.0f - (a * (1.0f - g) * (1.0f - g) + b * (1.0f - g)), a * g * g + b * g);
        curve(i) = cast<uint8_t>(clamp(zc * 255.0f + 0.5f, 0.0f, 255.0f));
    }
    Func processed("processed");
    processed(x, y, c) = curve(clamp(cast<int>(corrected(x, y, c) * 1023.0f), 0, 1023));
    Func blurred("sharpen_blur");
    blurred(x, y, c) = (cast<int16_t>(processed(x - 1, y, c)) + 2 * cast<int16_t>(processed(x, y, c)) +
                        cast<int16_t>(processed(x + 1, y, c)) + cast<int16_t>(processed(x, y - 1, c)) +
                        cast<int16_t>(processed(x, y + 1, c))) /
                       6;
    Func output("camera_pipe");
    Expr p = cast<float>(processed(x, y, c));
    output(x, y, c) = cast<uint8_t>(clamp(p + sharpen_strength * (p - cast<float>(blurred(x, y, c))), 0.0f, 255.0f));

    gamma.set_estimate(2.0f);
    contrast.set_estimate(50.0f);
    sharpen_strength.set_estimate(1.0f);
    black_level.set_estimate(25);
    white_level.set_estimate(1023);
    input.set_estimates({{0, 2592}, {0, 1968}});
    matrix.set_estimates({{0, 4}, {0, 3}});
    output.set_estimates({{0, 2560}, {0, 1920}, {0, 3}});
    return makeInstance("camera_pipe", {output},
                        {input, matrix, gamma, contrast, sharpen_strength, black_level, white_level},
                        tiledGpuSchedule(output, {denoised, demosaiced, curve, processed}));
}

} // namespace beamscope::pipelines::apps
