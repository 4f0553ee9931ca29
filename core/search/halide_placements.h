#pragma once
// Halide's phase-0 children of a state (Anderson2021 SearchSpace::generate_children, first of
// the two decisions it makes per DAG node): where the next Func is computed, in the order Halide
// generates the candidates, so that a search can follow Halide's recorded trees
// (tests/fixtures/halide/search_trees) state by state. Beamscope's own generateChildren
// (search_space.h) decides location and tiling in one step over a different space; this sits
// beside it and changes nothing there.
//
// What it reproduces (each a rule of SearchSpace::generate_children's phase 0 or of what it calls):
//   * inlining a single-stage Func that is not an output, and the shortcut that stops there for a
//     pointwise Func with a single consumer edge;
//   * LoopNest::compute_in_tiles' list: at root untiled (FuncSchedule::awaitingGpuTiling), then,
//     when one root loop nest reads the Func and has more than one block, inside it down the loops
//     that alone read the Func, wherever its region still shrinks: at the block loop with each
//     thread tiling of add_gpu_thread_tilings (Tiling.cpp generate_gpu_tilings under the block's
//     union of thread counts), at a thread loop, and inside a serial loop
//     (FuncSchedule::insideSerialLoop). Those loops are the root stage's, or, where only a Func
//     computed in the kernel reads it, that Func's (a block-level Func's thread and serial loops,
//     a thread-level Func's serial loop), and so on inwards; the vector dimension is the first of
//     at least 16 points;
//   * filter_thread_tile_options: invalid thread extents dropped, the rest sorted by
//     max_idle_lane_wastage (std::sort, so ties fall as in Halide), and the cut once a child was
//     made and the wastage exceeds 0.5;
//   * State::calculate_cost's rejections before the model: thread extents, shared memory, the
//     serial-extent limit, excess recompute and 256 inlined calls (cost_pruning.h).
// Placements Beamscope's states cannot hold (a block-level Func without a thread tiling, a Func
// read by a stage not yet tiled onto the GPU) are not generated but named in
// Phase0Children::unsupported.
// Halide's default search-space options are the tested ones; a partial schedule, frozen Funcs and
// randomized tilings are not modelled.

#include "core/search/autoschedule_params.h"
#include "core/search/state.h"

#include <optional>
#include <string>
#include <vector>

namespace beamscope::search {

struct Phase0Children {
    std::vector<State> children;         // in Halide's generation order
    std::vector<Featurization> features; // each child's, as the cost model takes them
    // Non-empty when Halide also considers a placement Beamscope's states cannot hold (a Func
    // computed at a block loop without a thread tiling, or inside a reader not yet tiled), which it
    // names: `children` then lacks those candidates, and they may also shift the cut-off after the
    // sort.
    std::string unsupported;
};

// Whether Halide's State::calculate_cost would hand `s` to the cost model (thread extents, device
// limits, serial extents, then the feature-based rejections of cost_pruning.h); its features when
// it would.
// parentFeaturization: the featurization of the state `s` was made from by deciding its last
// Func, or null; stageFeatureMemo: the search depth's, or null (computeFeatures).
std::optional<Featurization> featuresIfCosted(const State &s, const AutoscheduleParams &params,
                                              const Featurization *parentFeaturization = nullptr,
                                              StageFeatureMemo *stageFeatureMemo = nullptr);

// The states Halide's phase 0 makes from `parent` for parent.nextNode(), in generation order.
// Empty when `parent` is complete.
Phase0Children halidePlacements(const State &parent, const AutoscheduleParams &params,
                                const Featurization *parentFeaturization = nullptr,
                                StageFeatureMemo *stageFeatureMemo = nullptr);

} // namespace beamscope::search
