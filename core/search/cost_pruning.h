#pragma once
// The two quick rejections Anderson2021's State::calculate_cost applies before
// a state reaches the cost model (the state is dropped, never costed):
//  * redundant recompute: a stage whose points_computed_total plus
//    inlined_calls exceeds 10x its points_computed_minimum, except for
//    wrappers (staging data repeatedly is fine) and Funcs Anderson2021 always
//    lets be inlined (see alwaysConsideredInline);
//  * code-size explosion: some loop nest where one inlined Func is called 256
//    or more times per point (call counts multiply along chains of inlined
//    Funcs, e.g. 25^k for a chain of k inlined 5x5 stencils).
// Besides matching Halide's search space, this keeps the model on features in
// the range it was trained on: on a 9-deep chain of inlined stencils the counts
// reach 1e17 and the network's leaky ReLU (slope 1e-10 below zero) times such
// a count gives a negative stage cost.

#include "core/search/schedule_features.h"
#include "core/search/state.h"

#include <cstdint>
#include <string>
#include <vector>

namespace beamscope::search {

constexpr double kMaxRecomputeFactor = 10; // Anderson2021 (Adams2019 uses 8)
constexpr int64_t kMaxInlinedCalls = 256;  // Halide: max_inlined_calls() >= 256 is rejected

// Anderson2021's always_consider_inline, for the recompute test: a single-stage,
// non-output Func that is trivial to inline (dag::Node::trivialToInline), or a
// pointwise one whose chain of inlined consumers ends in exactly one Func with
// its own loop nest.
bool alwaysConsideredInline(const State &state, int node);

// The largest number of calls per point that any non-inlined stage of the state
// makes to one inlined Func (saturates instead of overflowing).
int64_t maxInlinedCalls(const State &state);

// Why Halide would not cost this state (empty when it would). features: the
// state's computeFeatures() result.
std::string rejectionBeforeCosting(const State &state, const std::vector<ScheduleFeatures> &features);

} // namespace beamscope::search
