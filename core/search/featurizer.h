#pragma once
// The 73 ScheduleFeatures of every scheduled stage of a State, following the
// definitions of Anderson2021's LoopNest::compute_features on Beamscope's
// three-level loop nests (root / block / thread).
//
// Exact (same definition as Halide for the nests Beamscope builds):
//   num_realizations, num_productions, points_computed_* , innermost_loop_extent,
//   innermost_pure_loop_extent, bytes_at_*, innermost_bytes_at_*, inlined_calls,
//   num_scalars, *_bytes_at_task, unique_*_read_per_realization / per_thread /
//   per_point / per_task, *_allocation_bytes_read_per_realization, working_set_*,
//   num_blocks, num_warps_per_block, block_occupancy, warp_lane_utilization,
//   num_active_warps_per_block, idle_lane_wastage, num_threads_per_block,
//   shared_mem_occupancy, shared_mem_block_limit_factor, max_warp_occupancy,
//   max_block_occupancy.
// Approximated (see the report in the issue note):
//   unrolled_loop_extent      unrolled when the product of the serial tile is <= 16 (Halide also
//                             requires each unrolled loop's extent to be constant)
//   inner/outer_parallelism   for Funcs computed at block / thread level: threads of the Func and
//                             blocks (x threads) of the consumer
//   num_{global,shared}_mem_{loads,stores}_per_block and the four efficiencies: transactions of
//                             the first warp only, points accessed per thread by the loop-extent
//                             rule with loop-invariant hoisting (Halide also takes the
//                             region-required rule and vectorized shared loads into account)
//   warp_lane_utilization_at_block_y/z: left at their defaults (1), as v19's featurizer does
//   expr_branching            Sethi-Ullman register count over the stage's values, inlined Funcs expanded
//   inlined Funcs' outer_parallelism / num_blocks: the consumer's block count

#include "core/search/schedule_features.h"
#include "core/search/state.h"

#include <vector>

namespace beamscope::search {

struct FeatureParams {
    int parallelism = 80;              // SM count
    int64_t sharedMemoryLimitBytes = 48 * 1024;
    int64_t sharedMemorySmLimitBytes = 96 * 1024;
    int activeBlockLimit = 32;
    int activeWarpLimit = 64;
};

// One entry per cost-model stage slot with complete decisions
// (State::scheduledStageCount(), a prefix of SearchDag::costStages()).
std::vector<ScheduleFeatures> computeFeatures(const State &state, const FeatureParams &params);

} // namespace beamscope::search
