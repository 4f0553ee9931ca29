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
//                              (values and store args; a call of a Func inlined into the stage counts
//                              as the inlined Func's measure, other calls as calls), for every stage
//   num_scalars                GPU vector width 1: 0 with a vectorized loop, every point without
//   storedAtRoot               Funcs computed inside a kernel (block or thread level) and also realized at
//                              root, as Halide's dumps show them: global memory, per-realization reads and
//                              working sets at root
//   representative iterations  producer regions at Halide's middle block / middle thread, a whole tile long,
//                              and per point at the middle point of the loops the Func computes where it is
//                              placed (State::stageLoopsAt), which matters where a clamp or a select makes a
//                              region depend on the position (lens_blur's min(c, 3), interpolate's channel)
//   store and load Jacobians   Halide's differentiation of the simplified coordinates, with Anderson2021's
//                              bitwise test of the denominators when adding terms (x / 8 + 1 is unknown)
//   constant extents           unrolled_loop_extent of a thread-level Func needs its per-thread region reached
//                              through affine bounds of constant loops (Edge::expand_footprint)
// Partial states (the beam search's intermediate costs), exact too: all 762 tiled partial states
// of Halide's recorded searches (tests/search/test_partial_states). As Halide's
// State::compute_featurization does, every Func not scheduled yet is placed at the innermost loop of
// its consumers (the deepest common ancestor of several; an inlined consumer counts with every loop it
// is inlined into, an unscheduled one with its own placement), moved out to the deepest loop where its
// region still shrinks and fits (48 KB of shared memory at a block loop, 128 bytes of registers at a
// thread or serial loop). Its consumers then see it in that loop's memory (registers in a thread's
// loops, shared at a block loop, global at root), realized once per iteration of that loop: register
// reads, per-realization reads of the region one iteration needs, no loads counted per block and
// nothing streamed in per task; one placed at a block loop adds to the kernel's shared_mem_occupancy.
// Placements in shared memory of a Func a scheduled stage reads directly follow Halide's code as read
// but no recorded state has one (the recorded ones are registers or root).
// Still different from Halide, and why:
//   * Untiled roots (phase 0: a Func computed at root, not yet split onto the GPU; Halide featurizes
//     them through its FeatureLoopNestMutator split): the loop-nest parser does not read their dumps
//     yet, so none of the 188 recorded ones is checked.
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

#include <memory>
#include <vector>

namespace beamscope::search {

// Featurizations so far in this process, and their seconds summed over threads:
// a search takes the difference across its run (SearchPhases), exact while it
// is the only search running.
struct FeaturizationTotals {
    int64_t calls = 0;
    double threadSeconds = 0;
};
FeaturizationTotals featurizationTotals();

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

// What a featurization saw of where each Func lives (featurizer.cpp): the placements it gave the
// Funcs not scheduled yet, and the sites of the scheduled ones as their readers see them. Kept
// beside its features so that the featurizations of the state's children can tell what moved.
struct FuncSites;
class StageFeatureMemo;

struct Featurization {
    std::vector<ScheduleFeatures> features;
    std::shared_ptr<const FuncSites> sites;
};

// The same for a state made from a parent by one decision on its last scheduled Func (adding it,
// or replacing its tiling), given the parent's featurization (null: featurize it whole). The
// search featurizes thousands of such children of each beam state, and most of their stages are
// the parent's: a kernel keeps its parent's features unless the decided Func runs in it, or one of
// its stages reads (directly, through inlined Funcs, or through Funcs computed inside a kernel) the
// decided Func, a Func not scheduled yet whose placement the decision moved or that the decided
// Func also reads, or an input the decided Func also reads (the region needed of a Func follows
// each of its scheduled readers, State::requiredAt). Every other pass (placements, inlined Funcs,
// working sets) runs whole. With the environment variable BEAMSCOPE_CHECK_FEATURE_REUSE set, every
// call also featurizes the state whole and throws std::logic_error, naming the stage and the
// feature, where the two differ (tests/search/feature_reuse runs searches so).
// keepSites: keep the FuncSites too, for a state whose own children will start from it.
// memo: the search depth's StageFeatureMemo (stage_feature_memo.h), or null; the reuse check above
// covers what it gives too.
Featurization computeFeatures(const State &state, const FeatureParams &params, const Featurization *parent,
                              bool keepSites = false, StageFeatureMemo *memo = nullptr);

// Where a featurization (made with keepSites) placed a Func not scheduled yet (Halide's
// State::compute_featurization): the loop, none for the root, and how often it is realized there.
struct UnscheduledSite {
    int node = 0;
    LoopPath loop; // empty: at root
    int64_t realizations = 1;
};
std::vector<UnscheduledSite> unscheduledSites(const Featurization &featurization);

} // namespace beamscope::search
