// Runs the Beamscope-scheduled edge detector on OpenCL and compares it with the
// same arithmetic on the host.
#include "edges_opencl.h"

#include <HalideBuffer.h>

#include <cmath>
#include <cstdio>

namespace {

float reference(const Halide::Runtime::Buffer<float> &in, int x, int y, float threshold)
{
    const auto smooth = [&](int sx, int sy) {
        float sum = 0;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                sum += in(sx + dx + 2, sy + dy + 2);
        return sum / 9.0f;
    };
    const float gx = (smooth(x + 1, y - 1) + 2.0f * smooth(x + 1, y) + smooth(x + 1, y + 1)) -
                     (smooth(x - 1, y - 1) + 2.0f * smooth(x - 1, y) + smooth(x - 1, y + 1));
    const float gy = (smooth(x - 1, y + 1) + 2.0f * smooth(x, y + 1) + smooth(x + 1, y + 1)) -
                     (smooth(x - 1, y - 1) + 2.0f * smooth(x, y - 1) + smooth(x + 1, y - 1));
    const float magnitude = std::sqrt(gx * gx + gy * gy);
    return magnitude > threshold ? magnitude : 0.0f;
}

} // namespace

int main()
{
    const int width = 512, height = 512;
    // The output at x reads the input from x - 2 + 2 = x up to x + 4: four pixels of margin in all.
    Halide::Runtime::Buffer<float> input(width + 4, height + 4);
    for (int y = 0; y < input.height(); y++)
        for (int x = 0; x < input.width(); x++)
            input(x, y) = static_cast<float>((x * 37 + y * 101) % 255) / 255.0f;
    Halide::Runtime::Buffer<float> output(width, height);
    if (const int status = edges_opencl(input, output); status != 0) {
        std::fprintf(stderr, "edges_opencl failed with status %d\n", status);
        return 1;
    }
    output.copy_to_host();
    double worst = 0;
    int shown = 0;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            const float expected = reference(input, x, y, 0.2f); // the threshold CMakeLists.txt sets
            const double error = std::fabs(double(output(x, y)) - expected);
            // A value at the threshold may land on either side after float reordering: not an error.
            if (error > 1e-4 && std::fabs(expected - 0.2f) > 1e-3 && shown++ < 5)
                std::fprintf(stderr, "(%d, %d): %g, expected %g\n", x, y, double(output(x, y)), double(expected));
            if (std::fabs(expected - 0.2f) > 1e-3)
                worst = std::fmax(worst, error);
        }
    const bool ok = worst <= 1e-4;
    std::printf("edges on OpenCL: %dx%d, largest difference from the host %.3g: %s\n", width, height, worst,
                ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
