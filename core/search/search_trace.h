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
//   [,"fixed"][,"pass_through"][,"stage_costs","features","loop_nest"]}
// and a last line {"summary":{"best_id","best_cost","nodes_recorded","nodes_dropped","states_evaluated","search_seconds"}}.
//
// Version 2 added "fixed": true on the nodes a continued search took from its
// start state (params "start_depth" counts them) and params "pre_pass" (pass 0
// is freeze_inline_compute_root's pre-pass); version 1 traces still parse.
// Version 3 added params "halide_steps": the search took Halide's two decisions per DAG node
// (beam_search.h), so "depth" counts Halide's decisions (two per node, input nodes included) and
// a Func computed at root has two nodes on its path, where it is placed and then how it is
// tiled; nodes with "pass_through": true are Halide's copies of a state where there was nothing
// to decide (an input node, or the second step of a Func not computed at root), with their
// parent's cost and loop nest, never costed.
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
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::search {

constexpr int kTraceVersion = 3;

struct TraceNode {
    int64_t id = 0;
    int64_t parent = -1; // -1: the empty root state
    int pass = 0;
    int depth = 0; // Funcs scheduled; with TraceParams::halideSteps, Halide's decisions made
    std::string decision;
    Json detail;
    double cost = 0;
    bool inBeam = false;
    bool fixed = false;       // decided by the start state of a continued search (version 2)
    bool passThrough = false; // a copy of its parent with nothing decided, not costed (version 3)
    // Expanded nodes only:
    std::vector<float> stageCosts;               // scheduled stages, cost-model order
    std::vector<std::array<float, 73>> features; // same order
    std::string loopNest;
};

// The parameters of the search a trace records, typed: the search writes
// them, the explorer shows them in its controls and reopens a session with
// them. In the file they are the header's "params" object; a key a trace
// lacks (an older version) keeps the default below, and a value of the wrong
// type is a parse error naming the key.
struct TraceParams {
    int beamSize = 0;
    int numPasses = 0; // passes asked for (with freeze_inline_compute_root, the pre-pass is one)
    int randomDropout = 100;
    uint64_t randomDropoutSeed = 0;
    std::string searchSpaceOptions = "1111";
    bool disableSubtiling = false;
    bool randomizeTilings = false;
    bool freezeInlineComputeRoot = false;
    bool prePass = false;     // pass 0 is freeze_inline_compute_root's pre-pass
    bool halideSteps = false; // Halide's two decisions per DAG node (depths count them; version 3)
    int startDepth = 0;       // decisions taken from the start state of a continued search
    int parallelism = 80;     // the cost model's num_cores
    int64_t sharedMemoryLimitKb = 0;
    int64_t sharedMemorySmLimitKb = 0;
    int activeBlockLimit = 0;
    int activeWarpLimit = 0;
    std::vector<std::string> frozen; // Funcs the pre-pass froze
    std::string profile;             // the device profile's name
    std::string weights;             // the weights file (absolute when the CLI wrote it)
    std::string weightsSha256;       // its content, so a copy or an installed file is recognised
    // Where a pipeline that is not a built-in one came from: a generator of a library (the CLI's
    // --generator) or of the generator program Halide's plugin interface ran the search in.
    std::string generator;                              // the generator's registered name
    std::string generatorLibrary;                       // a .so that registers it
    std::string generatorExecutable;                    // the generator program (the plugin's process)
    std::map<std::string, std::string> generatorParams; // the GeneratorParams it was built with
    std::string target;                                 // the Halide target scheduled for (the plugin)
    std::string machineParams;                          // Halide's MachineParams (the plugin)

    Json toJson() const;
    // nullopt with `error` set ("field \"beam_size\": expected an integer, found \"x\"").
    static std::optional<TraceParams> fromJson(const Json &params, std::string *error);
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
    TraceParams params;
    TraceSummary summary;

    size_t cap() const { return m_cap; }
    const std::vector<TraceNode> &nodes() const { return m_nodes; }
    // Returns the new node's id, or -1 when the cap was reached (counted as dropped).
    int64_t add(TraceNode node);
    TraceNode *find(int64_t id);
    // The decisions on the path to a node, root first; empty for an unknown id.
    std::vector<Json> decisionsTo(int64_t id) const;
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

// The "detail" decisions on the path from the root to `node`, root first:
// what a continued search fixes and what a search session replays to emit or
// measure a state. `find` looks a parent up by id (a trace, or the explorer's
// copy of its nodes).
std::vector<Json> decisionPath(const TraceNode *node, const std::function<const TraceNode *(int64_t)> &find);

} // namespace beamscope::search
