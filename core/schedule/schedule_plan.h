#pragma once
// A search state turned into the Halide scheduling calls that realize it: one
// list of directives per Func stage. Applying a plan to real Funcs
// (apply_schedule.h) and printing it as C++ (emit_source.h) both read the same
// plan, so the emitted source always says exactly what apply() did.
//
// Mapping (state.h's locations):
//   Root        compute_root; every pure loop split into block x thread x serial
//               (GuardWithIf, so any extent is correct); serial loops innermost,
//               then threads, then blocks; at most 3 block and 3 thread dims
//               (extra ones fused into the outermost); thread x is the state's
//               vector loop; a stage without pure loops runs gpu_single_thread
//   BlockLevel  compute_at the consumer stage's innermost block loop,
//               store_in(GPUShared); each parallel loop split as the state
//               tiles it: the serial tile innermost (unrolled when the state
//               unrolls), then a thread loop of the state's constant count,
//               then a "serial outer" loop for whatever the realized region
//               holds beyond one tile of threads (extent 1 at the estimate)
//   ThreadLevel compute_at the consumer stage's innermost thread loop, or, for a
//               Func inside the consumer's serial loop (insideSerialLoop), its
//               innermost serial loop: once per point a thread computes (at the
//               thread loop when the consumer has no serial loop, where a thread
//               computes one point); serial loops, unrolled when the state
//               unrolls; storage left to Halide (per-thread memory;
//               store_in(Register) would need constant-size realizations, which
//               GuardWithIf tails of the consumer break). The consumer may itself
//               be a block-level Func (its fused thread loop or its innermost
//               serial tile) or a thread-level one (its innermost loop)
// compute_at always comes with the same store_at (a generator's Funcs do not
// take their storage level from the compute level).
// Where Halide 14 would compute the state wrongly, the plan departs from it and
// says so in the stage's note: a Func read by an earlier stage of a consumer with
// updates, or in shared memory with a region that differs per block, is computed
// at root (with whatever read it inside that kernel); a shared-memory Func's third
// and later dimensions stay whole, one serial loop around its threads; a kernel
// hosting shared-memory Funcs keeps to two block dimensions.
//   Inlined     Halide's default; nothing is emitted
// Reduction loops are never split or reordered: they stay where the algorithm
// put them (innermost), serial.
// Every stage of a Func that is not inlined gets at least one directive: an update
// the state leaves serial is marked Unscheduled, never left without a word.

#include "core/search/state.h"

#include <Halide.h>

#include <cstdint>
#include <string>
#include <vector>

namespace beamscope::schedule {

struct Directive {
    enum class Kind {
        ComputeRoot,
        ComputeAt,  // consumer, consumerStage, vars[0] = consumer's loop
        StoreIn,    // memory
        Split,      // vars = {old, outer, inner}, factor, GuardWithIf
        Reorder,    // vars innermost first
        Fuse,       // vars = {inner, outer, fused}
        GpuBlocks,  // vars innermost first (1..3)
        GpuThreads, // vars thread x first (1..3)
        GpuSingleThread,
        Unroll, // vars[0]
        // An update stage whose loops stay as the algorithm has them, serial inside
        // the loop its Func is computed at (a Func computed per thread): said
        // explicitly, so Halide knows it is meant (Stage::unscheduled).
        Unscheduled,
    };
    Kind kind = Kind::ComputeRoot;
    std::vector<std::string> vars;
    int64_t factor = 0;
    std::string consumer;
    int consumerStage = 0;
    Halide::MemoryType memory = Halide::MemoryType::Auto;
};

struct StagePlan {
    int node = -1;
    std::string func;
    int stage = 0; // 0 = pure definition, k = update k-1
    std::vector<Directive> directives;
    std::vector<std::string> pureVars; // the stage's own pure loop names it schedules
    std::vector<std::string> newVars;  // names the directives introduce
    std::string innermostSerialLoop;   // a root stage's innermost serial loop inside its threads, if any;
                                       // a thread-level stage's innermost loop
    std::string note;                  // why the plan departs from the state, if it does
};

struct SchedulePlan {
    // Non-inlined Funcs in scheduling order (outputs first); within a Func,
    // update stages before the pure definition, as Halide's autoschedulers print them.
    std::vector<StagePlan> stages;
    std::vector<std::string> inlined; // Funcs left inlined
};

// The plan of a complete state; throws std::invalid_argument for an incomplete
// one. Names (Funcs, loops) come from the state's own DAG, or from `namesFrom`:
// another build of the same pipeline, whose unnamed Funcs and Vars got other
// automatic names (f12, v40, ...); nodes are matched by position.
SchedulePlan planSchedule(const search::State &state, const dag::FunctionDAG *namesFrom = nullptr);

// The name of the block-level / thread-level loop of a planned stage that
// Funcs computed inside it attach to (empty when it has none).
std::string innermostLoopOfKind(const StagePlan &stage, Directive::Kind kind);

} // namespace beamscope::schedule
