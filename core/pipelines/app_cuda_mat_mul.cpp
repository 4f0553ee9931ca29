// cuda_mat_mul: Halide's apps/cuda_mat_mul, as v19.0.0 writes it with its
// autoscheduler estimates: a dense single-precision matrix product.

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

PipelineInstance cudaMatMul()
{
    const int size = 1024; // GeneratorParam "size"
    ImageParam A(Float(32), 2, "A"), B(Float(32), 2, "B");

    Var x("x"), y("y");
    RDom r(0, size, "r");
    // No pure definition: the update starts from the implicit zero.
    Func prod("prod");
    prod(x, y) += A(x, r) * B(r, y);
    Func out("out");
    out(x, y) = prod(x, y);

    A.set_estimates({{0, size}, {0, size}});
    B.set_estimates({{0, size}, {0, size}});
    // Halide bounds out to [0, size)^2 and those constant bounds become its
    // estimates; the bound itself is left out so small test runs stay possible.
    out.set_estimates({{0, size}, {0, size}});
    return makeInstance("cuda_mat_mul", {out}, {A, B}, tiledGpuSchedule(out, {prod}));
}

} // namespace beamscope::pipelines::apps
