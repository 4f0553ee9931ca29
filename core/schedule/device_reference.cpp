#include "core/schedule/device_reference.h"

#include "core/schedule/apply_schedule.h"

namespace beamscope::schedule {

namespace {

void scheduleStage(Halide::Stage stage, const std::vector<Halide::Internal::Dim> &dims, bool update)
{
    if (!update)
        for (const Halide::Internal::Dim &d : dims)
            if (!d.is_rvar() && d.var != Halide::Var::outermost().name()) {
                const Halide::Var v(d.var), block(d.var + "_ref_block"), thread(d.var + "_ref_thread");
                stage.split(v, block, thread, 64, Halide::TailStrategy::GuardWithIf)
                    .gpu_blocks(block)
                    .gpu_threads(thread);
                return;
            }
    stage.gpu_single_thread();
}

} // namespace

void applyDeviceReferenceSchedule(const std::vector<Halide::Func> &outputs)
{
    for (auto &[name, func] : funcsByName(outputs)) {
        Halide::Func f = func;
        f.compute_root();
        scheduleStage(Halide::Stage(f), f.function().definition().schedule().dims(), false);
        for (int u = 0; u < f.num_update_definitions(); u++)
            scheduleStage(f.update(u), f.function().update(u).schedule().dims(), true);
    }
}

} // namespace beamscope::schedule
