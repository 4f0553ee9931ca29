// An edge detector: a 3x3 box blur (optional), Sobel gradients, their
// magnitude, and a threshold. Two GeneratorParams the explorer lists and sets.
#include <Halide.h>

namespace {

class Edges : public Halide::Generator<Edges> {
public:
    GeneratorParam<float> threshold{"threshold", 0.25f};
    GeneratorParam<bool> presmooth{"presmooth", true};
    Input<Buffer<float>> input{"input", 2};
    Output<Buffer<float>> output{"output", 2};

    void generate()
    {
        Var x("x"), y("y");
        // Reads one pixel beyond each side of the output (two with the blur).
        Func source("source");
        source(x, y) = input(x + 2, y + 2);
        Func smooth("smooth");
        if (presmooth)
            smooth(x, y) =
                (source(x - 1, y - 1) + source(x, y - 1) + source(x + 1, y - 1) + source(x - 1, y) + source(x, y) +
                 source(x + 1, y) + source(x - 1, y + 1) + source(x, y + 1) + source(x + 1, y + 1)) /
                9.0f;
        else
            smooth(x, y) = source(x, y);
        Func gx("gx"), gy("gy"), magnitude("magnitude");
        gx(x, y) = (smooth(x + 1, y - 1) + 2.0f * smooth(x + 1, y) + smooth(x + 1, y + 1)) -
                   (smooth(x - 1, y - 1) + 2.0f * smooth(x - 1, y) + smooth(x - 1, y + 1));
        gy(x, y) = (smooth(x - 1, y + 1) + 2.0f * smooth(x, y + 1) + smooth(x + 1, y + 1)) -
                   (smooth(x - 1, y - 1) + 2.0f * smooth(x, y - 1) + smooth(x + 1, y - 1));
        magnitude(x, y) = sqrt(gx(x, y) * gx(x, y) + gy(x, y) * gy(x, y));
        output(x, y) = select(magnitude(x, y) > threshold, magnitude(x, y), 0.0f);
    }

    void schedule()
    {
        // What the autoscheduler needs: the sizes it plans for.
        input.set_estimates({{0, 2052}, {0, 2052}});
        output.set_estimates({{0, 2048}, {0, 2048}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(Edges, edges)
