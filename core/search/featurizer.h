#pragma once
// The 73 ScheduleFeatures of every scheduled stage of a State, following the
// definitions of Anderson2021's LoopNest::compute_features (Halide v19) on
// Beamscope's three-level loop nests (root / block / thread).
//
// Exact: all 73, with Halide's definitions, for complete states. Checked on
// all 36 golden schedules (shared/golden: 12 pipeline runs + 24 retrain_set
// dumps parsed by loop_nest_parser): every feature of every stage within 1e-5
// (tests/search/test_golden_states, test_search_features golden). Halide's
// rules that look like approximations are reproduced as they are:
//   unrolled_loop_extent       the serial tile's pure extent when <= 16 and the stage has no
//                              reduction loop (Halide's unrolled_loops leaves rvar loops 0), else 1;
//                              StageTiling::unrolled is not consulted
//   inner/outer_parallelism    block- and thread-level Funcs: 1 / the kernel's block count
//   num_{global,shared}_mem_{loads,stores}_per_block, *_mem_*_efficiency (gpu_memory_features.h):
//                              the first warp's and a partly-active tail warp's sectors / bank
//                              conflicts, requests per warp from points_accessed_per_thread (region
//                              of an unrolled block vs call count x non-invariant serial extents,
//                              shared loads vectorized), stores divided by invariant loops and
//                              shared vector width, an update's stores also counted as loads,
//                              Jacobians composed through inlined Funcs with Halide's rational
//                              arithmetic, producers reached by several edges counted per edge
//   expr_branching             Halide's ExprBranching over the simplified, CSE'd pure definition
//                              (values and store args; an inlined call counts as the inlined Func's
//                              measure), reported for every stage of the Func (expr_branching.h)
//   num_scalars                GPU vector width 1: 0 with a vectorized loop, every point without
//   storedAtRoot               Funcs computed inside a kernel (block or thread level) and also realized at
//                              root, as Halide's dumps show them: global memory, per-realization reads and
//                              working sets at root
//   representative iterations  producer regions at Halide's middle block / middle thread / middle serial tile,
//                              a whole tile long (State::stageLoopsAt), which matters where a clamp or
//                              a select makes a region depend on the position (lens_blur's min(c, 3))
//   store and load Jacobians   Halide's differentiation of the simplified coordinates, with Anderson2021's
//                              bitwise test of the denominators when adding terms (x / 8 + 1 is unknown)
//   constant extents           unrolled_loop_extent of a thread-level Func needs its per-thread region reached
//                              through affine bounds of constant loops (Edge::expand_footprint)
// Still different from Halide, and why:
//   * Partial states: Halide places each unscheduled Func at the deepest valid compute location
//     under the common ancestor of its consumers' innermost loops (for a single root consumer typically
//     inside its serial loop: registers, realized once per consumer point, left out of per-task reads);
//     Beamscope treats unscheduled producers as stored at root in global memory with the best
//     storage order. Only the beam search's intermediate costs see this; complete states are exact.
//   * Constant extents elsewhere: root and block-level stages take every pure serial loop as constant
//     (Halide's splits make them so); the 'c' marks Halide prints on root loops and realize lines
//     are not reproduced (they change no feature).
//   * Nests Halide never builds, so no golden schedule checks them: block-level Funcs featurized in
//     shared memory (storedAtRoot false: only a dump or decisions can ask for one, Beamscope's search
//     sets storedAtRoot for its block-level children as Halide's does) and thread-level Funcs not
//     realized at root (registers) follow Halide's code paths for shared / register sites, as read,
//     but are unverified against it. The features' memory is FuncSchedule::featureMemory; where the
//     schedule stores the Func (what core/schedule emits, what the explorer shows) is storageMemory.

#include "core/search/schedule_features.h"
#include "core/search/state.h"

#include <vector>

namespace beamscope::search {

struct FeatureParams {
    int parallelism = 80; // SM count
    int64_t sharedMemoryLimitBytes = 48 * 1024;
    int64_t sharedMemorySmLimitBytes = 96 * 1024;
    int activeBlockLimit = 32;
    int activeWarpLimit = 64;
};

// One entry per cost-model stage slot with complete decisions
// (State::scheduledStageCount(), a prefix of SearchDag::costStages()).
std::vector<ScheduleFeatures> computeFeatures(const State &state, const FeatureParams &params);

} // namespace beamscope::search
