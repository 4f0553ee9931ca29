#pragma once
// The pieces of Halide's Anderson2021 Tiling.cpp that both of Beamscope's Halide-order
// generators need: the thread tilings of generate_gpu_tilings, the lowered thread
// dimensions they are judged by, and how a stage's loops map to its Func's pure
// dimensions. halide_root_tilings (phase 1, a Func computed at root) and
// halide_placements (phase 0, a Func computed at a block loop) call the one tiling
// function with the flags Halide passes there, so the two follow the same rule.

#include "core/search/state.h"

#include <cstdint>
#include <vector>

namespace beamscope::search {

// Per loop of `stage`, the pure dimension its variable is (Halide's Loop::pure_dim), -1 for
// reduction loops.
std::vector<int> pureDimsOf(const dag::Node &node, const dag::Stage &stage);

// The loop over pure dimension `dim` (Halide's vectorized_loop_index when `dim` is the vector
// dimension), -1 when no loop is (an update over reduction loops only).
int loopOverPureDim(const std::vector<int> &pureDims, int dim);

// The pure dimension Halide vectorizes a Func over (SearchSpace's vector_dims without a partial
// schedule): an output its innermost dimension (its storage is not Halide's to choose), any
// other Func its first dimension of at least 16 points in `computed`, else the innermost.
int halideRootVectorDim(const dag::Node &node, const Region &computed);

// Thread counts as the GPU lowers them (Tiling.cpp lowered_dims): the vector loop's first when
// it has more than one thread, then every other loop with more than one.
std::vector<int64_t> loweredThreadDims(const std::vector<int64_t> &threads, int vectorLoop);

// Widens `into` dimension by dimension to cover `lowered` (a union of thread counts, as
// Halide's max_s), growing it where `lowered` has more dimensions.
void widenInto(std::vector<int64_t> &into, const std::vector<int64_t> &lowered);

// Halide's kUnrollLimitGPU: a serial loop of at most this many points (more than one) is
// unrolled, and State::calculate_cost rejects a state whose pure stage runs more pure points in
// its serial loop around the innermost one (LoopNest::exceeds_serial_extents_limit).
constexpr int64_t kGpuUnrollLimit = 16;
inline bool unrollsSerialLoop(int64_t points) { return points > 1 && points <= kGpuUnrollLimit; }

// The pure points of a stage's serial loop around the innermost one: the serial extents of its
// loops that are not reduction loops.
int64_t pureSerialPoints(const dag::Stage &stage, const StageTiling &t);

// What Tiling.cpp generate_gpu_tilings is given.
struct GpuTilingQuery {
    std::vector<std::vector<int64_t>> stageSizes; // per stage, per loop; only the pure stage's are tiled
    std::vector<std::vector<int>> pureDims;       // per stage, per loop (pureDimsOf)
    std::vector<int64_t> siblingMaxThreads;       // lowered thread counts already in the block
    std::vector<int> vectorLoops;                 // per stage (loopOverPureDim of the vector dim)
    // Threads outside a serial loop (a Func computed at a block loop): a count leaving a loop
    // more than 16 serial iterations is skipped.
    bool serialInner = false;
    // A Func computed at root: a one-loop pure stage may give its vector loop fewer than 16 threads.
    bool isComputeRootStage = false;
};

// generate_gpu_tilings: per loop of the pure stage a thread count, outer loops varying slowest,
// in Halide's order. The vector loop takes 16..64 threads, the others powers of two up to 16
// while the padding wastes at most 1/7; a loop shorter than 64 may also take its whole extent.
// Once the last loop is chosen, the block's union of thread counts (the siblings' and every
// stage's of this Func) must have at most 1024 threads in at most three dimensions, else that
// loop's larger counts are not tried.
std::vector<std::vector<int64_t>> halideGpuTilings(const GpuTilingQuery &q);

} // namespace beamscope::search
