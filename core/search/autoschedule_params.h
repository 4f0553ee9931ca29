#pragma once
// The search's parameters (Halide's Anderson2021Params, HALIDE-FACTS.md
// "Search parameters") plus the device limits they come from.

#include "core/search/featurizer.h"
#include "core/util/json.h"

#include <cstdint>
#include <string>
#include <vector>

namespace beamscope::search {

struct SearchOptions {
    bool computeRoot = true; // search_space_options "1111", in order
    bool inlineFuncs = true;
    bool computeAtBlock = true;
    bool computeAtThread = true;
    // Parses Halide's four-character flag string; returns false on a malformed one.
    bool parse(const std::string &flags);
    std::string toString() const;
};

struct AutoscheduleParams {
    int beamSize = 32;
    int numPasses = 0;       // 0: 1 pass for beam 1, 5 otherwise (Halide's default)
    int randomDropout = 100; // percent of children kept per decision
    uint64_t randomDropoutSeed = 0;
    bool disableSubtiling = false; // serial tiles of 1 only
    bool randomizeTilings = false; // sample the tiling candidates instead of taking them in order
    // HL_FREEZE_INLINE_COMPUTE_ROOT: with more than one pass, the first pass is a
    // pre-pass over inline / compute_root only; its cheapest Funcs (all but
    // log2 of them, by summed stage cost) keep their choice (inline, or
    // compute_root with its tiling) in every state of the remaining passes.
    bool freezeInlineComputeRoot = false;
    SearchOptions options;
    // Halide's steps (halide_steps.h): two decisions per DAG node, Halide's children in Halide's
    // order, so the search walks Halide's tree. False, or with randomizeTilings or
    // disableSubtiling (which only it models): Beamscope's search with one decision per Func.
    bool halideSteps = true;
    // Threads that featurize and cost a depth's children (0: one per core). The search's result,
    // trace and state count are the same for any number.
    int threads = 0;
    FeatureParams device;            // parallelism, shared memory and occupancy limits
    int maxChildrenPerDecision = 96; // Beamscope's own tiling candidates kept per location and decision
    // Halide's tilings of a compute_root Func (halide_root_tilings.h): 0 keeps all of them, as
    // Halide's search does; N keeps an evenly spread N (tests, to keep large pipelines quick).
    int maxRootTilings = 0;
    // Continue from a state: its decisions (a trace node's "detail" objects,
    // root first, a prefix of the schedule order) are fixed and the search
    // schedules only the rest. Empty: start from the empty schedule.
    std::vector<Json> startDecisions;
    size_t traceCap = 200000; // nodes kept in the trace when recording

    int passes() const { return numPasses > 0 ? numPasses : (beamSize == 1 ? 1 : 5); }
};

} // namespace beamscope::search
