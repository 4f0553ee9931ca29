// The tiny generators the plugin test schedules: a 3x3 separable box blur
// (with_estimates=false leaves the estimates out, so the autoscheduler must
// refuse it), and scalar_gain, whose zero-dimensional Func is the shape that
// crashed the featurizer on Halide's camera_pipe (sharpen_strength_x32()).
#include <Halide.h>

namespace {

class TinyBlur : public Halide::Generator<TinyBlur> {
public:
    GeneratorParam<bool> with_estimates{"with_estimates", true};
    Input<Buffer<float>> input{"input", 2};
    Output<Buffer<float>> output{"output", 2};

    void generate()
    {
        Halide::Var x("x"), y("y");
        blur_x(x, y) = (input(x, y) + input(x + 1, y) + input(x + 2, y)) / 3.0f;
        output(x, y) = (blur_x(x, y) + blur_x(x, y + 1) + blur_x(x, y + 2)) / 3.0f;
    }

    void schedule()
    {
        if (with_estimates) {
            input.set_estimates({{0, 258}, {0, 258}});
            output.set_estimates({{0, 256}, {0, 256}});
        }
    }

private:
    Halide::Func blur_x{"blur_x"};
};

// output(x, y) = blur of input scaled by gain(), a Func of no dimensions that
// reads one input pixel (camera_pipe computes its sharpen strength the same way).
class ScalarGain : public Halide::Generator<ScalarGain> {
public:
    Input<Buffer<float>> input{"input", 2};
    Output<Buffer<float>> output{"output", 2};

    void generate()
    {
        Halide::Var x("x"), y("y");
        gain() = 1.0f + input(0, 0) * 0.5f;
        blur_x(x, y) = (input(x, y) + input(x + 1, y)) * 0.5f;
        output(x, y) = blur_x(x, y) * gain();
    }

    void schedule()
    {
        input.set_estimates({{0, 257}, {0, 256}});
        output.set_estimates({{0, 256}, {0, 256}});
    }

private:
    Halide::Func gain{"gain"}, blur_x{"blur_x"};
};

} // namespace

HALIDE_REGISTER_GENERATOR(TinyBlur, tiny_blur)
HALIDE_REGISTER_GENERATOR(ScalarGain, scalar_gain)
