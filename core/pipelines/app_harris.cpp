// harris: the simplified stand-in, to be replaced by Halide's own app (apps/harris at v14.0.0).

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

PipelineInstance harris()
{
    ImageParam input(Float(32), 3, "input");
    Var x("x"), y("y");
    Func in = BoundaryConditions::repeat_edge(input);
    Func gray("gray");
    gray(x, y) = 0.299f * in(x, y, 0) + 0.587f * in(x, y, 1) + 0.114f * in(x, y, 2);
    Func Iy("Iy"), Ix("Ix");
    Iy(x, y) = gray(x - 1, y - 1) * (-1.0f / 12) + gray(x - 1, y + 1) * (1.0f / 12) + gray(x, y - 1) * (-2.0f / 12) +
               gray(x, y + 1) * (2.0f / 12) + gray(x + 1, y - 1) * (-1.0f / 12) + gray(x + 1, y + 1) * (1.0f / 12);
    Ix(x, y) = gray(x - 1, y - 1) * (-1.0f / 12) + gray(x + 1, y - 1) * (1.0f / 12) + gray(x - 1, y) * (-2.0f / 12) +
               gray(x + 1, y) * (2.0f / 12) + gray(x - 1, y + 1) * (-1.0f / 12) + gray(x + 1, y + 1) * (1.0f / 12);
    Func Ixx("Ixx"), Iyy("Iyy"), Ixy("Ixy");
    Ixx(x, y) = Ix(x, y) * Ix(x, y);
    Iyy(x, y) = Iy(x, y) * Iy(x, y);
    Ixy(x, y) = Ix(x, y) * Iy(x, y);
    auto box = [&](const std::string &name, Func f) {
        Func b(name);
        Expr s = 0.0f;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                s = s + f(x + dx, y + dy);
        b(x, y) = s;
        return b;
    };
    Func Sxx = box("Sxx", Ixx), Syy = box("Syy", Iyy), Sxy = box("Sxy", Ixy);
    Func det("det"), trace("trace"), response("harris_response");
    det(x, y) = Sxx(x, y) * Syy(x, y) - Sxy(x, y) * Sxy(x, y);
    trace(x, y) = Sxx(x, y) + Syy(x, y);
    response(x, y) = det(x, y) - 0.04f * trace(x, y) * trace(x, y);
    Func output("harris");
    output(x, y) = response(x + 2, y + 2);

    input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    output.set_estimates({{0, 1532}, {0, 2556}});
    return makeInstance("harris", {output}, {input}, tiledGpuSchedule(output, {gray, Ix, Iy}));
}

} // namespace beamscope::pipelines::apps
