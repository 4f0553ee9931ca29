#pragma once
// A (partial) GPU schedule in the Anderson2021 style: for every Func scheduled
// so far, where it is computed and stored, and how each of its stages is
// tiled into GPU blocks, GPU threads and serial (possibly unrolled) loops.
// Funcs are scheduled outputs first, so a state's scheduled Funcs are a prefix
// of SearchDag::scheduleOrder().
//
// Locations:
//   Root        compute_root, stored in global memory; loops = blocks x threads x serial
//   Inlined     inlined into every consumer
//   BlockLevel  computed per GPU block of its (single) consumer, stored in shared memory;
//               loops = threads x serial, the block's threads cooperate. With storedAtRoot
//               its features see it in global memory instead (Halide v19's Anderson2021
//               also realizes every Func computed at a block loop at root, and featurizes
//               that outermost site), while the schedule still stores it in shared memory
//               (FuncSchedule::storageMemory and featureMemory)
//   ThreadLevel computed per GPU thread of its consumer, stored in registers; loops = serial

#include "core/search/loop_nest_text.h"
#include "core/search/search_dag.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace beamscope::search {

enum class ComputeLocation { Inlined, Root, BlockLevel, ThreadLevel };
enum class MemoryType { Global, Shared, Register };

const char *locationName(ComputeLocation l); // "inline", "root", "block", "thread"
const char *memoryTypeName(MemoryType m);    // "global", "shared", "register"

// How one stage's loops are split. Per loop (innermost first, as the DAG lists
// them): threads (GPU threads over that loop within one block, 1 when not
// parallel) and serial (points each thread computes along that loop). The
// loop's block count is ceil(extent / (threads * serial)) for Root stages and 1
// otherwise. Reduction loops are never parallel: threads 1, serial = extent.
struct StageTiling {
    std::vector<int64_t> threads;
    std::vector<int64_t> serial;
    int vectorLoop = 0;    // loop mapped to thread x (and the storage's innermost dim)
    bool unrolled = false; // serial loops unrolled
    // False where Halide's stage has no vectorized loop (its vectorized_loop_index is -1, e.g. a
    // stage whose loops are all reductions); vectorLoop is then 0 for code that needs a loop.
    bool hasVectorLoop = true;
};

struct FuncSchedule {
    int node = -1;
    ComputeLocation location = ComputeLocation::Root;
    int consumer = -1;               // BlockLevel / ThreadLevel: the node whose loop it sits in: a
                                     // Root Func, or for ThreadLevel also a BlockLevel one (its
                                     // thread loop; State::kernelOf finds the kernel)
    int consumerStage = 0;           // and which stage of that node
    std::vector<StageTiling> stages; // one per stage (empty when inlined)
    // BlockLevel and ThreadLevel: also realized at root (global memory) while computed per block
    // or per thread of its consumer. Halide v19's Anderson2021 inserts a Func computed inside a
    // kernel into the store_at set of every enclosing level (root, block, thread); its feature
    // sites take the outermost, the root, so such Funcs are featurized in global memory (every
    // golden loop-nest dump with a block-level Func lists it as "realize:" at root too, and its
    // features show *_bytes_at_task in global memory; lens_blur's thread-level f54 is realized at
    // root, block and thread). Halide still counts a block-level Func's per-block tile in the
    // block's shared-memory total (its shared_mem_occupancy and shared-memory limit), so
    // sharedBytesPerBlock() does too. The loop-nest parser sets it from the dump's root realize
    // lines; Beamscope's search sets it for its block-level and thread-level children, as Halide's
    // does (halide_placements.h).
    //
    // So a Func has two memories, and they differ exactly when storedAtRoot is set:
    bool storedAtRoot = false;

    // ThreadLevel only: computed inside its consumer's serial loop (once per point a thread of the
    // consumer computes, Halide's compute_in_tiles placing it below the gpu_thread loop) rather than
    // once per thread. Its region is what one point needs; Halide stores it at root, at the block,
    // at the thread and at that serial loop. Set by halidePlacements (halide_placements.h) only.
    bool insideSerialLoop = false;

    // Root only: Halide's phase-0 state of a Func computed at root whose loops are not yet split
    // into GPU blocks, threads and serial loops (its phase 1 is still to come; Halide's dump labels
    // the stage's loop gpu_none). Each stage is then one loop over its whole extent around the
    // innermost point: threads and serial all 1 (so the block counts are the loop extents), with
    // the dump's vectorized loop. The featurizer costs it as Halide does, on the blocks x threads
    // split of untiledRootFeatureTiling (tiling.h).
    bool awaitingGpuTiling = false;

    // Where the schedule stores it, as core/schedule emits it (and the explorer
    // labels it): a block-level Func in GPU shared memory (store_in(GPUShared)),
    // a thread-level one in registers (the per-thread stack the GPU compiler
    // promotes), anything else in global memory.
    MemoryType storageMemory() const
    {
        return location == ComputeLocation::BlockLevel    ? MemoryType::Shared
               : location == ComputeLocation::ThreadLevel ? MemoryType::Register
                                                          : MemoryType::Global;
    }
    // Where the features place it, as Halide's featurizer does: the outermost
    // store site, so global memory for a Func also realized at root.
    MemoryType featureMemory() const { return storedAtRoot ? MemoryType::Global : storageMemory(); }
};

// The loop nest as a plain tree, for the schedule emitter, the GUI and dumps.
struct PlainLoop {
    std::string var; // loop variable (Halide name of the stage's dimension)
    int64_t extent = 1;
    int64_t factor = 1; // split factor that produced it (inner extent of the split), 1 if none
    enum class Kind { GpuBlock, GpuThread, Serial, Unrolled, Vectorized } kind = Kind::Serial;
};
const char *plainLoopKindName(PlainLoop::Kind k); // "gpu_block", "gpu_thread", "serial", "unrolled", "vectorized"

struct PlainStageNest {
    std::string func;
    int stage = 0;
    std::string computeAt; // "root", "inline", or "<consumer>.<level>" (block / thread / serial)
    MemoryType memory = MemoryType::Global;
    std::vector<PlainLoop> loops;      // outermost first
    std::vector<PlainStageNest> inner; // Funcs computed inside this stage's loops
};

// A node of Halide's loop nest for a scheduled stage: its block loop (1; root Funcs only), thread
// loop (2; root and block-level Funcs), serial loop (3) and innermost loop (4). A path of them from
// the root inwards names a loop; the empty path is the root. A block-level Func's loops start at 2
// and a thread-level Func's at 3, so that a level means the same thing in every Func.
struct LoopLevel {
    int node = 0, stage = 0, level = 0;
    bool operator==(const LoopLevel &o) const { return node == o.node && stage == o.stage && level == o.level; }
};
using LoopPath = std::vector<LoopLevel>;

class State {
public:
    explicit State(const SearchDag &dag);

    const SearchDag &dag() const { return *m_dag; }
    int numScheduled() const { return static_cast<int>(m_funcs.size()); }
    bool complete() const { return numScheduled() == static_cast<int>(m_dag->scheduleOrder().size()); }
    // Next node to schedule, -1 when complete.
    int nextNode() const;
    const std::vector<FuncSchedule> &funcs() const { return m_funcs; }
    const FuncSchedule *scheduleOf(int node) const;

    void add(FuncSchedule f);
    // Replaces the schedule of the last Func added (Halide's second step for a Func computed at
    // root: its tiling, after phase 0 placed it untiled); f.node must be that Func.
    void replaceLast(FuncSchedule f);

    // The number of cost-model stages with complete decisions (a prefix of the stage axis).
    int scheduledStageCount() const;

    // Regions: where the Func of `node` is realized, the region computed per
    // realization and its stage loops per realization.
    Region computedRegion(int node) const;
    Region stageLoops(int node, int stage) const;
    // Blocks and threads of a Root stage (per loop, then totals).
    int64_t numBlocks(int node, int stage) const;
    int64_t numThreads(int node, int stage) const;
    // Region of `producer` needed by one iteration of a loop level of the consumer
    // stage (level: 0 = whole realization, 1 = one block, 2 = one thread, 3 = one point),
    // looking through inlined Funcs. `memo`, when given, keeps the regions asked of this state (and
    // the ones met on the way, through chains of inlined Funcs) for the next call with it; it
    // belongs to one unchanged state, as a featurization holds it.
    using RequiredMemo = std::unordered_map<uint64_t, Region>;
    Region requiredAt(int producer, int consumerNode, int consumerStage, int level, RequiredMemo *memo = nullptr) const;
    // Loop bounds of a stage restricted to one iteration at `level` (as above).
    Region stageLoopsAt(int node, int stage, int level) const;

    // Legality against device limits; empty when legal, else the first violation.
    std::string legalityProblem(int maxThreadsPerBlock, int64_t sharedMemoryLimitBytes, int activeWarpLimit) const;
    // Shared memory allocated per block of a Root stage's kernel, and its threads
    // per block (the largest thread count among the Funcs inside the block).
    // rootStage >= 0: only the Funcs inside that stage's kernel (Halide keeps the total per stage).
    int64_t sharedBytesPerBlock(int rootNode, int rootStage = -1) const;
    // The region a Func computed inside a kernel is stored with at its kernel's block level: a
    // block-level Func's computed region; for a thread-level Func what one block of its kernel
    // needs (Halide's block store_at entry of a thread-level Func it also realizes at root).
    Region regionPerBlock(int node) const;
    // The same at its consumer's thread loop: what one thread needs of a Func computed inside the
    // thread's serial loop (FuncSchedule::insideSerialLoop); any other Func's computed region.
    Region regionPerThread(int node) const;
    // rootStage >= 0: only that stage's kernel (each stage of a root Func launches its own).
    int64_t threadsPerBlockOfKernel(int rootNode, int rootStage = -1) const;
    // The compute_root stage whose kernel computes a Func placed inside one (block- or
    // thread-level): its consumer, or its consumer's kernel for a thread-level Func in a
    // block-level Func's thread loop. {-1, 0} for a Func at root, inlined or not scheduled.
    std::pair<int, int> kernelOf(int node) const;
    // The root or block-level stage whose gpu_thread loop a thread-level Func runs in: its consumer,
    // or its consumer's for one inside a thread-level Func's serial loop. {-1, 0} for any other Func.
    std::pair<int, int> threadLoopOf(int node) const;

    // The loops around a scheduled Func's realization, outermost first (Halide's path from the root
    // to the loop it is computed in): none for a root Func; its kernel's block loop for a block-level
    // Func; for a thread-level Func the path to its consumer's thread loop (a root or block-level
    // consumer), and on to that consumer's serial loop when computed inside it (a thread-level
    // consumer has only that).
    LoopPath realizationPath(int node) const;
    // The path from the root to a scheduled stage's innermost loop: the loops around its
    // realization, then its own (a root Func's block, thread and serial loops, a block-level Func's
    // thread and serial loops, a thread-level Func's serial loop), then the innermost loop.
    LoopPath innermostPath(int node, int stage) const;
    // Whether a Func computed inside a kernel is realized within one iteration of `level` of the
    // stage (consumerNode, consumerStage), directly at one of its loops or inside a Func that is.
    bool realizedWithin(int node, int consumerNode, int consumerStage, int level) const;

    std::vector<PlainStageNest> plainTree() const;
    std::string dump() const; // readable loop nest in the spirit of Halide's LoopNest::dump
    // The loop nest in the form of Halide's Anderson2021 LoopNest::dump (see loop_nest_parser.h),
    // which parseLoopNest reads back into this state; for Halide's own schedules it is Halide's
    // dump line for line (tests/search/test_golden_states).
    std::string halideLoopNest() const;
    // The same dump as parseLoopNestText would read it, built without the text (the search's
    // structural hashes read it for every state they rank).
    LoopNestText halideLoopNestTree() const;

private:
    const SearchDag *m_dag;
    std::vector<FuncSchedule> m_funcs;
    std::vector<int> m_index;                    // node -> index into m_funcs, -1
    mutable std::vector<Region> m_computedCache; // nested Funcs' computed regions
};

} // namespace beamscope::search
