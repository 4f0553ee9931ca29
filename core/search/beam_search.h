#pragma once
// Coarse-to-fine beam search over per-Func decisions (Anderson2021's
// optimal_schedule_pass / optimal_schedule): each pass runs a beam search from
// the empty schedule, scheduling one Func per step (outputs first); every
// child is featurized, children Halide rejects before costing are dropped
// (cost_pruning.h), and the rest are costed in one call to the cost model
// (statesEvaluated counts these); the beam keeps the cheapest `beamSize`. Pass 0 sees a coarse
// subset of the tilings (maxChildrenPerDecision); passes 1 and 2+ see 2x and 4x as many but
// only keeps children whose compute locations (inline / root / block / thread
// per Func so far) matched a state in an earlier pass's beam at that depth.
// Deterministic for fixed parameters and seed.

#include "core/model/cost_model.h"
#include "core/search/autoschedule_params.h"
#include "core/search/featurizer.h"
#include "core/search/search_trace.h"
#include "core/search/state.h"
#include "core/util/progress.h"

#include <optional>

namespace beamscope::search {

struct SearchResult {
    std::optional<State> best;
    double cost = 0;
    std::vector<float> stageCosts;              // cost-model order
    std::vector<ScheduleFeatures> features;     // cost-model order
    std::vector<double> passCosts;
    int64_t statesEvaluated = 0;
    double searchSeconds = 0;
    bool cancelled = false;
};

// Packs features of `count` states with `stages` stages each into the model's
// [B][stages][73] float layout.
void packFeatures(const std::vector<ScheduleFeatures> &features, std::vector<float> &out);

class BeamSearch {
public:
    BeamSearch(const SearchDag &dag, const model::CostModel &model, AutoscheduleParams params);

    // trace may be null (no recording); progress may be null.
    SearchResult run(SearchTrace *trace, Progress *progress);

    // Costs of one complete or partial state (stage costs in cost-model order).
    double evaluate(const State &state, std::vector<float> *stageCosts) const;

private:
    const model::PipelineEmbedding &embedding(int stages) const;

    const SearchDag &m_dag;
    const model::CostModel &m_model;
    AutoscheduleParams m_params;
    model::PipelineEmbedding m_full;
    mutable std::vector<std::optional<model::PipelineEmbedding>> m_prefix;
};

} // namespace beamscope::search
