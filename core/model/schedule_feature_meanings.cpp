#include "core/model/schedule_feature_names.h"

#include "core/model/cost_model.h"

namespace beamscope::model {

namespace {

// In the order of scheduleFeatureName. "A stage" is the one the row describes; a realization is
// one allocation of its Func's buffer, a production one run of the stage's loops, a task one GPU
// block (its outermost parallel loop).
constexpr const char *kMeanings[] = {
    "allocations of the Func's buffer over the whole pipeline",
    "runs of the stage's loop nest over the whole pipeline",
    "points the stage computes per allocation of its buffer",
    "points the stage computes per run of its loop nest",
    "points one GPU thread computes",
    "points computed over the whole pipeline, recomputation included",
    "points the consumers need at least (no recomputation)",
    "extent of the stage's innermost loop",
    "extent of its innermost loop over a pure variable",
    "points unrolled in its innermost loops (1: nothing unrolled)",
    "parallelism inside the site where it is computed (threads)",
    "parallelism outside that site (blocks)",
    "bytes of one allocation of the Func",
    "bytes the stage writes per run",
    "bytes of its whole region, as if computed at root",
    "bytes of one allocation along its innermost storage dimension",
    "bytes written per run along the innermost storage dimension",
    "bytes of the whole region along the innermost storage dimension",
    "calls of this Func inlined into its consumers (0 unless inlined)",
    "distinct bytes read from global memory per allocation",
    "distinct bytes read from shared memory per allocation",
    "distinct bytes read from registers per allocation",
    "distinct cache lines read from global memory per allocation",
    "distinct lines read from shared memory per allocation",
    "distinct lines read from registers per allocation",
    "distinct bytes read from global memory per thread",
    "distinct bytes read from shared memory per thread",
    "distinct bytes read from registers per thread",
    "distinct cache lines read from global memory per thread",
    "distinct lines read from shared memory per thread",
    "distinct lines read from registers per thread",
    "bytes of the global allocations it reads from, per allocation",
    "bytes of the shared allocations it reads from, per allocation",
    "bytes of the register allocations it reads from, per allocation",
    "bytes allocated inside the loop where the stage is computed",
    "scalar values computed (on the GPU every point is one)",
    "bytes of this Func in global memory per block",
    "bytes of this Func in shared memory per block",
    "bytes of this Func in registers per block",
    "global bytes per block along the innermost storage dimension",
    "shared bytes per block along the innermost storage dimension",
    "register bytes per block along the innermost storage dimension",
    "distinct bytes read per point computed",
    "distinct cache lines read per point computed",
    "distinct bytes read per block",
    "distinct cache lines read per block",
    "bytes allocated within one block",
    "bytes allocated within one run of the stage",
    "bytes allocated within one allocation of the Func",
    "bytes allocated within the whole pipeline",
    "GPU blocks the stage's kernel launches",
    "warps per block",
    "share of the SM's block slots the kernel's blocks fill",
    "fraction of a warp's 32 lanes that do work",
    "warps per block that do work",
    "fraction of lanes that work along the block's y threads",
    "fraction of lanes that work along the block's z threads",
    "idle lanes of partly filled warps, weighted by the work",
    "shared-memory loads per block",
    "global-memory loads per block",
    "shared-memory stores per block",
    "global-memory stores per block",
    "useful over moved bytes of shared stores (1: no bank conflicts)",
    "useful over moved bytes of shared loads (1: no bank conflicts)",
    "useful over moved bytes of global stores (1: fully coalesced)",
    "useful over moved bytes of global loads (1: fully coalesced)",
    "bytes allocated per thread",
    "fraction of the SM's shared memory its blocks use",
    "how much shared memory limits the resident blocks (1: not at all)",
    "resident warps over the SM's warp limit",
    "the most blocks that fit on an SM at once, over its block limit",
    "threads per block",
    "branching of the stage's expression (registers its evaluation needs)",
};
static_assert(sizeof(kMeanings) / sizeof(kMeanings[0]) == kScheduleFeatureCount);

} // namespace

const char *scheduleFeatureMeaning(int index)
{
    return index >= 0 && index < kScheduleFeatureCount ? kMeanings[index] : "";
}

} // namespace beamscope::model
