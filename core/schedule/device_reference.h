#pragma once
// A reference schedule that runs on the device being checked: every Func
// computed at root, each pure definition's innermost pure loop split into GPU
// blocks and threads, each update run by a single GPU thread (always legal,
// whatever the update writes). It computes what the algorithm says with the
// device's own math library, so a searched schedule that calls exp, pow, ...
// can be held to it exactly where the host's library rounds otherwise
// (core/bench/float_check.h).

#include <Halide.h>

#include <vector>

namespace beamscope::schedule {

void applyDeviceReferenceSchedule(const std::vector<Halide::Func> &outputs);

} // namespace beamscope::schedule
