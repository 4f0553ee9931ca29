// The simple hand-written GPU schedule the apps share: tile the output and
// each Func computed at root in 16 x 16 GPU blocks.

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines {

namespace apps {

std::function<void(const Halide::Target &)> tiledGpuSchedule(Halide::Func output, std::vector<Halide::Func> roots)
{
    return [output, roots](const Halide::Target &) mutable {
        using namespace Halide;
        auto tile = [](Stage s, const std::vector<Var> &args) {
            Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
            if (args.size() >= 2)
                s.gpu_tile(args[0], args[1], xo, yo, xi, yi, 16, 16);
            else
                s.gpu_tile(args[0], xo, xi, 64);
        };
        tile(output, output.args());
        for (Func &f : roots) {
            f.compute_root();
            tile(f, f.args());
            for (int u = 0; u < f.num_update_definitions(); u++)
                tile(f.update(u), f.args());
        }
    };
}

} // namespace apps

} // namespace beamscope::pipelines
