// The tiny generator the plugin test schedules: a 3x3 separable box blur.
// with_estimates=false leaves the estimates out, so the autoscheduler must refuse it.
#include <Halide.h>

namespace {

class TinyBlur : public Halide::Generator<TinyBlur> {
public:
    GeneratorParam<bool> with_estimates{"with_estimates", true};
    Input<Buffer<float>> input{"input", 2};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        Halide::Var x("x"), y("y");
        blur_x(x, y) = (input(x, y) + input(x + 1, y) + input(x + 2, y)) / 3.0f;
        output(x, y) = (blur_x(x, y) + blur_x(x, y + 1) + blur_x(x, y + 2)) / 3.0f;
    }

    void schedule() {
        if (with_estimates) {
            input.set_estimates({{0, 258}, {0, 258}});
            output.set_estimates({{0, 256}, {0, 256}});
        }
    }

private:
    Halide::Func blur_x{"blur_x"};
};

} // namespace

HALIDE_REGISTER_GENERATOR(TinyBlur, tiny_blur)
