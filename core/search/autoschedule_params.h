#pragma once
// The search's parameters (Halide's Anderson2021Params, HALIDE-FACTS.md
// "Search parameters") plus the device limits they come from.

#include "core/search/featurizer.h"

#include <cstdint>
#include <string>

namespace beamscope::search {

struct SearchOptions {
    bool computeRoot = true;      // search_space_options "1111", in order
    bool inlineFuncs = true;
    bool computeAtBlock = true;
    bool computeAtThread = true;
    // Parses Halide's four-character flag string; returns false on a malformed one.
    bool parse(const std::string &flags);
    std::string toString() const;
};

struct AutoscheduleParams {
    int beamSize = 32;
    int numPasses = 0;            // 0: 1 pass for beam 1, 5 otherwise (Halide's default)
    int randomDropout = 100;      // percent of children kept per decision
    uint64_t randomDropoutSeed = 0;
    bool disableSubtiling = false; // serial tiles of 1 only
    bool randomizeTilings = false; // sample the tiling candidates instead of taking them in order
    bool freezeInlineComputeRoot = false; // pre-pass: decide inline / compute_root greedily, then freeze
    SearchOptions options;
    FeatureParams device;          // parallelism, shared memory and occupancy limits
    int maxChildrenPerDecision = 96; // tiling candidates kept per decision in the first pass (doubles per pass)
    size_t traceCap = 200000;      // nodes kept in the trace when recording

    int passes() const { return numPasses > 0 ? numPasses : (beamSize == 1 ? 1 : 5); }
};

} // namespace beamscope::search
