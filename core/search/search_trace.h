#pragma once
// The record of one search (ARCHITECTURE.md, "Search trace"): every state the
// search evaluated, with its parent, pass, depth (Funcs scheduled), the
// decision that made it (readable text and structured), its predicted cost and
// whether it stayed in the beam; states that were expanded (kept in the beam)
// also carry their per-stage costs, their 73 features per stage and their loop nest.
//
// File format: JSON lines. Line 1 is the header object
//   {"format":"beamscope-search-trace","version":2,"pipeline":..,"stages":[..],
//    "feature_names":[..73..],"params":{..},"cap":N}
// then one object per node {"id","parent","pass","depth","decision","detail","cost","in_beam"
//   [,"fixed"][,"stage_costs","features","loop_nest"]}
// and a last line {"summary":{"best_id","best_cost","nodes_recorded","nodes_dropped","states_evaluated","search_seconds"}}.
//
// Version 2 added "fixed": true on the nodes a continued search took from its
// start state (params "start_depth" counts them) and params "pre_pass" (pass 0
// is freeze_inline_compute_root's pre-pass); version 1 traces still parse.
// A state is reconstructible from the "detail" objects on its path (root
// first): state_from_decisions.h.
//
// Bounded: at most `cap` nodes are kept (default 200,000); later nodes are
// counted in nodes_dropped but not stored. Features are stored only for
// expanded nodes, so a full trace stays in the tens of megabytes.

#include "core/util/json.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::search {

constexpr int kTraceVersion = 2;

struct TraceNode {
    int64_t id = 0;
    int64_t parent = -1; // -1: the empty root state
    int pass = 0;
    int depth = 0;       // Funcs scheduled
    std::string decision;
    Json detail;
    double cost = 0;
    bool inBeam = false;
    bool fixed = false;  // decided by the start state of a continued search (version 2)
    // Expanded nodes only:
    std::vector<float> stageCosts;                 // scheduled stages, cost-model order
    std::vector<std::array<float, 73>> features;   // same order
    std::string loopNest;
};

struct TraceSummary {
    int64_t bestId = -1;
    double bestCost = 0;
    int64_t nodesDropped = 0;
    int64_t statesEvaluated = 0;
    double searchSeconds = 0;
};

class SearchTrace {
public:
    explicit SearchTrace(size_t cap = 200000) : m_cap(cap) {}

    std::string pipeline;
    std::vector<std::string> stageNames; // cost-model order
    Json params = Json::object();
    TraceSummary summary;

    size_t cap() const { return m_cap; }
    const std::vector<TraceNode> &nodes() const { return m_nodes; }
    // Returns the new node's id, or -1 when the cap was reached (counted as dropped).
    int64_t add(TraceNode node);
    TraceNode *find(int64_t id);
    const TraceNode *find(int64_t id) const;

    std::string serialize() const;
    // Writes atomically; refuses to replace an existing file unless overwrite.
    bool write(const std::filesystem::path &path, bool overwrite, std::string *error) const;

    // Parses a trace; on failure returns nullopt and sets error to "line N: what".
    static std::optional<SearchTrace> parse(const std::string &text, std::string *error);
    static std::optional<SearchTrace> read(const std::filesystem::path &path, std::string *error);

private:
    size_t m_cap;
    std::vector<TraceNode> m_nodes;
};

} // namespace beamscope::search
