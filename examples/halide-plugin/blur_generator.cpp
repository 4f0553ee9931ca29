// A 3x3 separable box blur with the estimates an autoscheduler needs.
#include <Halide.h>

namespace {

class Blur : public Halide::Generator<Blur> {
public:
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
        // No schedule: the autoscheduler (here Beamscope) writes it.
        input.set_estimates({{0, 1026}, {0, 1026}});
        output.set_estimates({{0, 1024}, {0, 1024}});
    }

private:
    Halide::Func blur_x{"blur_x"};
};

} // namespace

HALIDE_REGISTER_GENERATOR(Blur, blur)
