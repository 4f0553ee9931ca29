// cuda_mat_mul: the simplified stand-in, to be replaced by Halide's own app (apps/cuda_mat_mul at v14.0.0).

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

PipelineInstance cudaMatMul()
{
    const int size = 2048;
    ImageParam A(Float(32), 2, "A"), B(Float(32), 2, "B");
    Var x("x"), y("y");
    RDom k(0, A.dim(0).extent(), "k");
    Func prod("prod");
    prod(x, y) = 0.0f;
    prod(x, y) += A(k, y) * B(x, k);
    Func output("cuda_mat_mul");
    output(x, y) = prod(x, y);

    A.set_estimates({{0, size}, {0, size}});
    B.set_estimates({{0, size}, {0, size}});
    output.set_estimates({{0, size}, {0, size}});
    return makeInstance("cuda_mat_mul", {output}, {A, B}, tiledGpuSchedule(output, {prod}));
}

} // namespace beamscope::pipelines::apps
