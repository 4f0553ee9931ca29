#pragma once
// The tilings Halide's Anderson2021 gives a Func it has just computed at root
// (its "phase 1", SearchSpace::generate_children): serial tiles first, then
// GPU thread counts over what the serial tiles leave, filtered and ordered by
// how well the resulting blocks fill the GPU's cores. Beamscope's own
// rootTilings (tiling.h) enumerates a different, larger space; this one
// reproduces Halide's set and order so that a search can follow Halide's
// recorded trees (tests/fixtures/halide/search_trees) state by state.

#include "core/search/halide_gpu_tilings.h" // halideRootVectorDim, which callers pass in
#include "core/search/state.h"

#include <functional>
#include <map>
#include <mutex>
#include <vector>

namespace beamscope::search {

// One candidate for a root Func: a tiling per stage, pure stage first.
using FuncTiling = std::vector<StageTiling>;

// Whether a candidate survives the child-state checks Halide runs before the
// cost model (State::calculate_cost); Halide's generation stops early once one
// candidate was accepted, so the answer shapes the list, not only filters it.
using AcceptTiling = std::function<bool(const FuncTiling &)>;

// Halide's phase-1 tilings of `node` computed at root, in Halide's generation
// order, keeping those `accept` takes. `stageLoops` holds each stage's root loop
// extents; `parallelism` is the GPU's core count (Anderson2021Params::parallelism).
// Halide's serial-extent rejection (a pure stage's serial tile over 16 points) is applied
// here, since it depends on the tiling alone; `accept` adds the checks of the whole state.
// Empty for a Func without dimensions, which Halide leaves untiled.
std::vector<FuncTiling> halideRootTilings(const dag::Node &node, const std::vector<Region> &stageLoops, int vectorDim,
                                          int64_t parallelism, const AcceptTiling &accept);

// The same list before Halide's stopping rule: every option of every serial split, in order,
// with what the rule reads.
struct RootTilingCandidate {
    FuncTiling tiling;
    double idleCoreWastage = 1;      // whole waves of blocks over the waves needed, worst stage
    bool startsSplit = false;        // the first option of a serial split: the rule starts over
    bool exceedsSerialLimit = false; // a pure stage's serial tile over kGpuUnrollLimit points: never offered
};
std::vector<RootTilingCandidate> halideRootTilingCandidates(const dag::Node &node,
                                                            const std::vector<Region> &stageLoops, int vectorDim,
                                                            int64_t parallelism);

// halideRootTilingCandidates of a Func at root over its root loops, made once per Func: they depend
// on the Func and the GPU alone, and a search asks for them once per beam state at every tiling
// step. Safe to use from several threads at once.
class RootTilingCandidates {
public:
    explicit RootTilingCandidates(int64_t parallelism) : m_parallelism(parallelism) {}
    const std::vector<RootTilingCandidate> &of(const SearchDag &dag, int node);

private:
    int64_t m_parallelism;
    std::mutex m_mutex;
    std::map<int, std::vector<RootTilingCandidate>> m_byNode; // entries never move once made
};

// Halide's stopping rule (SearchSpace::generate_children) over `candidates`: which are judged,
// and which of those `accept(i)` takes; true at the accepted indices. The rule reads only whether
// anything was accepted yet, so once one is, the candidates it tries are known and are judged
// on up to `threads` threads: accept(i) must then touch nothing shared but what belongs to i.
std::vector<bool> acceptRootTilings(const std::vector<RootTilingCandidate> &candidates, int threads,
                                    const std::function<bool(size_t)> &accept);

} // namespace beamscope::search
