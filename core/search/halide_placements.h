#pragma once
// Halide's phase-0 children of a state (Anderson2021 SearchSpace::generate_children, first of
// the two decisions it makes per DAG node): where the next Func is computed, in the order Halide
// generates the candidates, so that a search can follow Halide's recorded trees
// (tests/fixtures/halide/search_trees) state by state. Beamscope's own generateChildren
// (search_space.h) decides location and tiling in one step over a different space; this sits
// beside it and changes nothing there.
//
// Covered so far (tests/search/test_phase0_children):
//   * inlining (a single-stage Func that is not an output), and Halide's shortcut that stops
//     after it for a pointwise Func with a single consumer edge;
//   * computing at root, untiled (FuncSchedule::awaitingGpuTiling), over the vector dimension
//     Halide picks (the first dimension of at least 16 points, else the innermost);
// Not yet: the placements inside a consumer's kernel (compute_in_tiles below the root: the
// block loop with add_gpu_thread_tilings, the thread loop, and further in), whose thread
// tilings, idle-lane ordering and cost-step rejections are still to be reproduced. With
// `withInnerPlacements` false they are left out, and the result is then Halide's list only
// where Halide made none of them.

#include "core/search/autoschedule_params.h"
#include "core/search/state.h"

#include <string>
#include <vector>

namespace beamscope::search {

struct Phase0Children {
    std::vector<State> children; // in Halide's generation order
    // Non-empty when Halide also considers a placement Beamscope's states cannot hold (a Func
    // computed inside a serial loop, or inside another Func's loops), which it names: `children`
    // then lacks those candidates, and they may also shift the cut-off after the sort.
    std::string unsupported;
};

// The states Halide's phase 0 makes from `parent` for parent.nextNode(), in generation order.
// Empty when `parent` is complete.
Phase0Children halidePlacements(const State &parent, const AutoscheduleParams &params);

} // namespace beamscope::search
