// Runs the Beamscope-scheduled blur on OpenCL and compares it with the same
// arithmetic on the host.
#include "blur_opencl.h"

#include <HalideBuffer.h>

#include <cmath>
#include <cstdio>

int main()
{
    const int width = 1024, height = 1024;
    Halide::Runtime::Buffer<float> input(width + 2, height + 2);
    for (int y = 0; y < input.height(); y++)
        for (int x = 0; x < input.width(); x++)
            input(x, y) = static_cast<float>((x * 37 + y * 101) % 255) / 255.0f;

    Halide::Runtime::Buffer<float> output(width, height);
    if (const int status = blur_opencl(input, output); status != 0) {
        std::fprintf(stderr, "blur_opencl failed with status %d\n", status);
        return 1;
    }
    output.copy_to_host();

    double worst = 0;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            float rows[3];
            for (int dy = 0; dy < 3; dy++)
                rows[dy] = (input(x, y + dy) + input(x + 1, y + dy) + input(x + 2, y + dy)) / 3.0f;
            const float expected = (rows[0] + rows[1] + rows[2]) / 3.0f;
            worst = std::fmax(worst, std::fabs(double(output(x, y)) - expected));
        }
    // The device may contract or reorder float operations (no strict_float): a few ulp.
    const bool ok = worst <= 1e-5;
    std::printf("blur on OpenCL: %dx%d, largest difference from the host %.3g: %s\n", width, height, worst,
                ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
