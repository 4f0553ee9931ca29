#pragma once
// A search tree Halide's own Anderson2021 recorded: one run folder of
// shared/golden/search_trees (tests/fixtures/halide/search_trees), i.e.
// states.tsv (every state Halide queued: parent, decision, cost, dump hash,
// beam rank, penalty), beam.tsv (the beam kept at each depth) and
// beam_dumps.txt (the loop-nest dump of every beam member). The folder's
// README defines the columns; this reader keeps the ones a comparison needs.
//
// Either file may be stored gzipped (`states.tsv.gz`), as the recorded trees
// of Halide's apps are.
//
// Halide decides each DAG node in two steps (depth 2j+1: where node j is
// computed; depth 2j+2: how a root Func is tiled onto the GPU), Beamscope in
// one (depth j+1), so Beamscope's depth k corresponds to Halide's depth 2k.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::search {

struct GoldenState {
    int pass = 1; // 1-based, as Halide's log counts them
    int depth = 0;
    int64_t id = 0;
    int64_t parent = -1;
    std::string func; // the node whose decision made it ("" at depth 0)
    int phase = -1;   // 0 or 1, -1 at depth 0
    bool costed = false;
    double cost = 0; // the model's cost (costed), else the parent's penalised cost
    uint64_t hash = 0;
    int rank = -1; // position in the beam of its depth, -1 when never expanded
    std::vector<double> stageCosts;
};

// One stage row of features.tsv (the recorded trees of Halide's apps): the 73
// schedule features Halide's cost model was given for one stage of a state.
struct GoldenStageFeatures {
    int stageIndex = 0; // position on the cost model's stage axis
    std::string func;
    std::string stage; // "<func>_s<k>", k = Halide's stage index of the Func
    std::array<float, 73> values{};
};

class GoldenTree {
public:
    // Reads `folder` (states.tsv, beam_dumps.txt; features.tsv and unscheduled.tsv when there). Null with `error` set to
    // "<file>: line N: column <name>: expected ..., found ..." on bad input.
    static std::optional<GoldenTree> read(const std::string &folder, std::string *error);

    int passes() const { return m_passes; }
    int finalDepth() const { return m_finalDepth; }
    const std::vector<GoldenState> &states() const { return m_states; }
    // States of one pass and depth, in id order (Halide's generation order).
    std::vector<const GoldenState *> at(int pass, int depth) const;
    const GoldenState *find(int pass, int64_t id) const;
    // The dump of a beam member, nullopt for states that never were one.
    std::optional<std::string> dump(int pass, int64_t id) const;
    // Halide's schedule features of a state (features.tsv, when the folder has one: every beam
    // state and the children of one chosen Func), in stage order; null when none were recorded.
    const std::vector<GoldenStageFeatures> *features(int pass, int64_t id) const;
    // States with recorded features, in file order.
    const std::vector<std::pair<int, int64_t>> &featuredStates() const { return m_featured; }
    // Where Halide's featurizer placed the Funcs not yet scheduled in that state (unscheduled.tsv):
    // ";"-separated "<func>@<site>:realizations=<n>" entries, "-" when none; null when not recorded.
    const std::string *unscheduled(int pass, int64_t id) const;
    // The model's cost of a state: its own when costed, else (a pass-through
    // copy) its nearest costed ancestor's, without any penalty.
    double modelCost(const GoldenState &s) const;

private:
    int m_passes = 0;
    int m_finalDepth = 0;
    std::vector<GoldenState> m_states;                            // file order: pass, then id
    std::map<std::pair<int, int64_t>, size_t> m_index;            // (pass, id) -> m_states
    std::map<std::pair<int, int>, std::vector<size_t>> m_byDepth; // (pass, depth) -> m_states, id order
    std::map<std::pair<int, int64_t>, std::string> m_dumps;       // (pass, id) -> dump text
    std::map<std::pair<int, int64_t>, std::vector<GoldenStageFeatures>> m_features;
    std::vector<std::pair<int, int64_t>> m_featured;
    std::map<std::pair<int, int64_t>, std::string> m_unscheduled;

    bool readFeatures(const std::string &folder, std::string *error);
};

} // namespace beamscope::search
