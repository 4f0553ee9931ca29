#pragma once
// Coarse-to-fine beam search with Anderson2021's rule (AutoSchedule.cpp optimal_schedule /
// optimal_schedule_pass).
//
// Steps. By default the search takes Halide's steps (halide_steps.h): two decisions per DAG node,
// where each Func is computed and then, for a Func at root, its GPU tiling, with Halide's children
// in Halide's order; steps with nothing to decide are pass-through copies, never costed. So it walks
// the tree Halide's own search walks (tests/fixtures/halide/search_trees; compare-search shows
// where two trees part). With randomizeTilings or disableSubtiling, or halideSteps off, it takes
// Beamscope's own steps instead: one decision per Func (search_space.h), children Halide would
// reject before costing dropped unless nothing else is left, exact duplicates skipped.
//
// Each depth's children are costed in one call to the cost model (statesEvaluated counts them)
// and put in a queue built as Halide's is (ties fall as in Halide's heap). The beam is then popped
// cheapest first: with beam > 1 and more than one pass, pass p multiplies a state's cost by n when
// it is the n-th popped with its structural hash at granularity p + 1 (Halide's
// State::structural_hash on Halide's steps, halide_structural_hash.h; coarseToFineHash on
// Beamscope's), and by 10 more when its hash at granularity p - 1 is not among the ancestors of
// the previous passes' good states (within 20% of a pass's best, up to the beam size); a
// penalized state that is no longer the cheapest is deferred. Nothing is filtered out, so later
// passes always complete. The result is the cheapest of the passes' winners (pass 0's at worst):
// Halide does not promise that a later pass beats an earlier one.
//
// freezeInlineComputeRoot adds Halide's pre-pass (inline / compute_root
// only, counted in the passes); startDecisions fixes a prefix of decisions
// (continue from a state). Deterministic for fixed parameters and seed.
#include "core/model/cost_model.h"
#include "core/search/autoschedule_params.h"
#include "core/search/featurizer.h"
#include "core/search/search_trace.h"
#include "core/search/state.h"
#include "core/util/progress.h"

#include <optional>

namespace beamscope::search {

// Where a search's time went (bench_search prints it). Wall seconds of its
// phases on the thread that runs the search, and the featurizations' own
// seconds summed over every thread that ran one (children are featurized in
// parallel, so that sum can exceed the wall time).
struct SearchPhases {
    double expand = 0; // generating and featurizing each depth's children, the model's calls excluded
    double model = 0;  // the cost model on the children's feature rows
    double record = 0; // the children's costs into their candidates, and the trace
    double select = 0; // structural hashes, the queue and taking the next beam
    double featurizeThreadSeconds = 0;
    int64_t featurizations = 0;
};

struct SearchResult {
    std::optional<State> best;
    double cost = 0;
    std::vector<float> stageCosts;          // cost-model order
    std::vector<ScheduleFeatures> features; // cost-model order
    std::vector<double> passCosts;
    int64_t statesEvaluated = 0;
    // Children enqueued, costed or passed through uncosted: Halide's
    // Statistics::num_states_added, which beam1.tsv of the real apps records.
    int64_t statesAdded = 0;
    double searchSeconds = 0;
    bool cancelled = false;
    // Without a best state (and not cancelled): where the search stopped and why,
    // "the search stopped at depth 6 of 20, tiling blur_y: ...".
    std::string failure;
    int startDepth = 0;              // Funcs the start state decides (the trace's startDepth counts its steps)
    double prePassCost = 0;          // freezeInlineComputeRoot: the pre-pass winner's cost
    std::vector<std::string> frozen; // and the Funcs it froze
    SearchPhases phases;
};

class BeamSearch {
public:
    BeamSearch(const SearchDag &dag, const model::CostModel &model, AutoscheduleParams params);

    // trace may be null (no recording); progress may be null. Throws
    // std::invalid_argument when params.startDecisions do not fit the pipeline
    // (field and decision named) or make an illegal state.
    SearchResult run(SearchTrace *trace, Progress *progress);

    // Costs of one complete or partial state (stage costs in cost-model order).
    double evaluate(const State &state, std::vector<float> *stageCosts) const;
    // The same on features already computed (a state's rows, stage after stage).
    double evaluatePacked(std::span<const float> packed, int stages, std::vector<float> *stageCosts) const;

private:
    const model::PipelineEmbedding &embedding(int stages) const;
    // Marks a trace node as kept in the beam and gives it its rows, stage costs and loop nest.
    void recordExpanded(SearchTrace &trace, int64_t traceId, bool passThrough, const State &state) const;
    // Halide's freeze_lowest_cost_stages: fixes the cheapest Funcs' choices; returns their names.
    std::vector<std::string> freezeLowestCostStages(const State &best,
                                                    std::vector<std::optional<FuncSchedule>> &fixed) const;

    const SearchDag &m_dag;
    const model::CostModel &m_model;
    AutoscheduleParams m_params;
    model::PipelineEmbedding m_full;
    mutable std::vector<std::optional<model::PipelineEmbedding>> m_prefix;
};

} // namespace beamscope::search
