#pragma once
// Beamscope's search against a search tree Halide recorded (golden_tree.h):
// per pass and per decided Func, the states each side costed, the beam each
// kept and the best cost, and the first place where the two searches part.
// States are matched by the FNV-1a of their loop nest in Halide's dump form
// (State::halideLoopNest is Halide's dump byte for byte), so "the same state"
// means the same loop nest, whatever order or decision text produced it.
//
// A search on Halide's steps (beam_search.h) is compared depth for depth, pass-through states
// included. A search on Beamscope's per-Func steps takes one step per Func where Halide takes two,
// so only the depths after both of Halide's steps (2k, Beamscope's k) are compared; at those
// depths Halide's states are its tiled children (costed) and the pass-through copies of Funcs
// placed inside a kernel or inlined (costed one depth earlier), and Halide's intermediate phase-0
// states have no Beamscope counterpart.

#include "core/search/golden_tree.h"
#include "core/search/schedule_features.h"
#include "core/search/search_dag.h"
#include "core/search/search_trace.h"
#include "core/util/json.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::search {

// One state of Beamscope's search as the comparison needs it.
struct ComparedState {
    int pass = 1;  // 1-based, as Halide counts passes
    int depth = 0; // Funcs decided, or on Halide's steps Halide's decisions made
    int64_t id = 0;
    double cost = 0; // the model's cost
    bool inBeam = false;
    bool passThrough = false; // a copy of its parent, not costed (Halide's steps)
    uint64_t hash = 0;        // FNV-1a of `dump`
    std::string dump;         // Halide's LoopNest::dump form
    std::string decision;
};

struct DepthComparison {
    int depth = 0;       // Beamscope's
    int goldenDepth = 0; // Halide's (2 x depth)
    std::string func;    // the Func decided at this depth
    size_t ours = 0, halide = 0, common = 0;
    double maxCostDifference = 0; // relative, over the common states
    size_t oursBeam = 0, halideBeam = 0, commonBeam = 0;
    // Halide's phase-0 states of this Func (depth 2k - 1) and how many of Beamscope's states have
    // one's loop nest: a Func inlined or computed inside a kernel is complete after phase 0, so
    // Beamscope's same choice matches it there even when Halide's beam did not keep it.
    size_t halidePhase0 = 0, commonPhase0 = 0;
};

struct PassComparison {
    int pass = 1;
    size_t oursStates = 0, halideCosted = 0; // states the cost model evaluated (pass-throughs aside)
    double oursBest = 0, halideBest = 0;     // cheapest complete state of the pass
    std::vector<DepthComparison> depths;
};

struct Divergence {
    bool found = false;
    int pass = 0, depth = 0, goldenDepth = 0;
    std::string func;
    std::string what;                        // "children", "costs" or "beam", then a sentence
    std::optional<ComparedState> ours;       // a state only Beamscope has (or the one costed differently)
    std::optional<GoldenState> halide;       // a state only Halide has (or the same state, Halide's side)
    std::string halideDump;                  // its dump when Halide kept it in a beam
    std::optional<GoldenState> halideParent; // else its parent, always a beam member, with its dump
    std::string halideParentDump;
};

struct SearchComparison {
    std::vector<PassComparison> passes;
    Divergence first;
};

// costTolerance: relative difference under which two costs of one state are
// the same (1e-5: the model reproduces Halide's predictions within 7.3e-6 on
// identical features).
// halideSteps: `ours` took Halide's steps (TraceParams::halideSteps), so every depth is compared,
// pass-through states included; else Beamscope's per-Func depth d is compared with Halide's 2d.
SearchComparison compareSearch(const std::vector<ComparedState> &ours, const GoldenTree &golden,
                               double costTolerance = 1e-5, bool halideSteps = false);

std::string formatComparison(const SearchComparison &c);

// Beamscope's side of a comparison: every node of `trace` (a search of `dag`'s pipeline), its
// state rebuilt from its decisions and printed in Halide's dump form. Passes are numbered from 1,
// as Halide numbers them; a freeze_inline_compute_root pre-pass (pass 0) is left out.
std::vector<ComparedState> comparedStates(const SearchTrace &trace, const SearchDag &dag);
// The same with another way of printing a node's loop nest from its decisions (root first), e.g. a
// search session's; nullopt from it stops the walk and returns nullopt.
std::optional<std::vector<ComparedState>>
comparedStates(const SearchTrace &trace,
               const std::function<std::optional<std::string>(const std::vector<Json> &decisions)> &dumpOf);

// One schedule feature of one stage where Beamscope's featurization of a state differs from the
// one Halide recorded for the same loop nest (features.tsv).
struct FeatureDifference {
    int stageIndex = 0;
    std::string stage; // Halide's "<func>_s<k>"
    int feature = 0;   // index into ScheduleFeatures (featureName)
    double halide = 0, ours = 0;
};

struct FeatureComparison {
    size_t stages = 0, differingStages = 0;
    std::string error; // the stage counts differ
    std::vector<FeatureDifference> differences;
};

// Halide's recorded features of a state against Beamscope's of the same loop nest, stage for
// stage. Tolerance: relative 1e-5, or 1e-6 absolute near zero. Halide records each feature as the
// float32 of the same double arithmetic, so an equal computation differs by float32 rounding
// (6e-8) at most; 1e-5 leaves room for nothing but summation order.
FeatureComparison compareFeatures(const std::vector<GoldenStageFeatures> &halide,
                                  const std::vector<ScheduleFeatures> &ours);

// The differences as a table: one line per differing stage, feature by feature with both values.
std::string formatFeatureComparison(const FeatureComparison &c, size_t maxStages = 8);
Json comparisonJson(const SearchComparison &c);

} // namespace beamscope::search
