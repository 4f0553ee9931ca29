#pragma once
// Halide's steps through the search (Anderson2021 SearchSpace::generate_children): two decisions
// per FunctionDAG node, in the DAG's order (consumers first, input nodes included), so a search
// of N nodes makes 2N decisions. Decision 2k places node k (phase 0: inline it, compute it at
// root untiled, or compute it inside its reader's kernel with a thread tiling there;
// halide_placements.h); decision 2k + 1 tiles a Func placed at root into GPU blocks, threads and
// serial loops (phase 1; halide_root_tilings.h). Where there is nothing to decide (both steps of
// an input node, the second step of a Func not at root or without dimensions) the child is a
// pass-through: a copy of its parent, which Halide does not cost and which keeps its parent's
// (penalised) cost in the queue.

#include "core/search/autoschedule_params.h"
#include "core/search/featurizer.h"
#include "core/search/halide_root_tilings.h"
#include "core/search/search_space.h"
#include "core/search/state.h"

#include <optional>
#include <vector>

namespace beamscope::search {

// The state a decision makes from `parent`: `decided` added to it, or, when `retiled`, put in place
// of its last Func; the parent unchanged when there is no decision (a pass-through).
State stateWithDecision(const State &parent, const std::optional<FuncSchedule> &decided, bool retiled);

// A child of one of Halide's steps, as the decision that makes it from its parent: a tiling step
// makes thousands of children of a state that may hold a hundred Funcs, and the search keeps only
// what the decision changed until it takes a child off the queue.
struct StepChild {
    // The schedule the decision gave its Func: added to the parent's state, or, when `retiled`, put
    // in place of the parent's last Func. None for a pass-through (the parent's state unchanged).
    std::optional<FuncSchedule> decided;
    bool retiled = false;
    // Its features packed as the cost model takes them (packFeatures; a large app's doubles are
    // tens of kilobytes, and a tiling step makes thousands of children); empty for a pass-through.
    std::vector<float> rows;
    Decision decision;
    bool passThrough = false;

    State stateFrom(const State &parent) const { return stateWithDecision(parent, decided, retiled); }
};

struct StepOptions {
    bool prePass = false;      // freeze_inline_compute_root's pre-pass: phase 0 offers inline and root only
    size_t maxRootTilings = 0; // phase 1 keeps an evenly spread N of Halide's tilings (0: all)
    // A decision fixed for this Func (a continued search's start state, a frozen Func): offered as
    // the only child at phase 0 while it is legal; phase 1 then has nothing left to decide.
    const FuncSchedule *fixed = nullptr;
    bool fixedIsStrict = true; // an illegal fixed decision leaves no child (else: generate normally)
    // Decision::text for each child; only a trace shows it, and it costs a string per child.
    bool describeDecisions = true;
    // Threads to judge one state's root tilings on (the search gives them when its beam is
    // narrower than its thread count, e.g. a pass's first tiling, from the one initial state).
    int threads = 1;
    // The search's memo of Halide's root tilings (null: made anew for each state).
    RootTilingCandidates *rootTilingCandidates = nullptr;
    // The depth's memo of root Funcs' stage features (stage_feature_memo.h; null: none).
    StageFeatureMemo *stageFeatureMemo = nullptr;
};

// The number of decisions Halide's search makes on this pipeline (2 per DAG node).
inline int halideDecisionCount(const SearchDag &dag) { return 2 * dag.nodeCount(); }

// The node Halide decides at decision `decisionsMade` (0-based), and which of its two steps.
inline int halideStepNode(int decisionsMade) { return decisionsMade / 2; }
inline int halideStepPhase(int decisionsMade) { return decisionsMade % 2; }

// The children of `parent`, which has made `decisionsMade` decisions, in Halide's generation
// order. Costed children come with their features; an empty list means every candidate was
// rejected before costing (the state dies, as in Halide). parentFeaturization: computeFeatures(parent),
// which the children's featurizations start from, or null.
std::vector<StepChild> halideStepChildren(const State &parent, int decisionsMade, const AutoscheduleParams &params,
                                          const StepOptions &options,
                                          const Featurization *parentFeaturization = nullptr);

} // namespace beamscope::search
