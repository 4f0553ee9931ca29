#pragma once
// One search as `beamscope-cli autoschedule` and the explorer's Search
// workspace run it. A SearchSession checks the request in one place, then
// builds the pipeline, its FunctionDAG and SearchDag, the cost model and the
// device limits once, and serves everything asked of that search from them:
// the run (progress, cancel, trace nodes in batches), the cost terms of any
// recorded state (from the model the search used, so the breakdown and the
// search can never disagree on weights), a state's schedule source and its
// measurement on a device.
//
// A Halide-free header: ui/ includes it (ui/ must never see Halide.h).
//
// Batches: the search reports progress at the start of every decision depth,
// after it finished the previous depth's beam (in_beam flags, features, loop
// nests). At that point the nodes recorded so far are final, so the report is
// where they are handed out, on the search's own thread; no node is read while
// the search may still write it.
//
// Threads: run() is not reentrant, but breakdown(), emit() and measure() may be
// called from other threads while it runs (the model is immutable and the
// DAG's one memo is locked; search_dag.h).

#include "core/search/search_trace.h"
#include "core/util/json.h"
#include "core/util/progress.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::session {

// The pipeline a session searches: a built-in one (the registry's name), or a
// generator from a shared library with its generator parameters.
struct PipelineChoice {
    std::string app;
    std::string generatorLibrary;
    std::string generatorName;
    std::vector<std::pair<std::string, std::string>> generatorParams;
};

// The pipeline a trace was searched on: the generator it names (library, name,
// the parameters it was built with), else the app of its "pipeline" field.
PipelineChoice pipelineChoiceOf(const search::SearchTrace &trace);

struct SearchRequest {
    PipelineChoice pipeline;
    std::string weightsPath;      // an Anderson2021 weights file (never replaced by random weights)
    std::string profile = "v100"; // a reference profile's name, or "local"
    int beamSize = 32;
    int passes = 0;    // 0: Halide's default (1 for beam 1, else 5)
    int dropout = 100; // percent of children kept
    uint64_t seed = 0;
    std::string searchSpaceOptions = "1111";
    bool disableSubtiling = false;
    bool randomizeTilings = false;
    bool freezeInlineComputeRoot = false;
    bool perFuncSteps = false; // Beamscope's one decision per Func instead of Halide's two steps
    int threads = 0;           // 0: one per core (the result does not depend on it)
    bool recordTrace = true;
    size_t traceCap = 200000;
    // Continue from a state: the "detail" decisions on its path in a trace
    // (root first) are fixed. Or start from a loop-nest dump (Halide's
    // HL_PARTIAL_SCHEDULE), whose Funcs keep the dump's decisions. Not both.
    std::vector<Json> startDecisions;
    std::string partialSchedule;
};

// What is wrong with a request before anything is built: the option (as the
// CLI spells it, without dashes: "beam", "dropout", ...) and why.
struct RequestProblem {
    std::string option;
    std::string message; // "expected 1..100000, found 0"
};
std::optional<RequestProblem> checkRequest(const SearchRequest &request);

struct SearchOutcome {
    bool ok = false;
    std::string error; // when !ok: what went wrong (file, field, why)
    bool cancelled = false;
    search::SearchTrace trace; // the whole trace (header, nodes, summary) when recorded
    double predictedCost = 0;
    std::vector<float> stageCosts; // of the winner, cost-model order (stageNames())
    std::vector<double> passCosts;
    int64_t statesEvaluated = 0;
    int64_t statesAdded = 0; // children enqueued, Halide's num_states_added
    double searchSeconds = 0;
    int startDepth = 0;
    std::vector<std::string> frozen; // freeze_inline_compute_root: the Funcs the pre-pass froze
    double prePassCost = 0;
    std::string bestLoopNest; // Halide's dump form
    std::string bestSource;   // the winner's Halide schedule source (core/schedule)
};

// Receives nodes [first, first + count) of the trace as they become final.
// Runs on the search's thread; header (pipeline, stages, params) is filled.
using NodeBatchSink = std::function<void(const search::SearchTrace &trace, size_t first, size_t count)>;

struct StateMeasurement {
    bool ok = false;
    std::string error;  // why it was not measured, or what failed
    std::string target; // Halide target string
    double medianMs = 0, minMs = 0;
    bool checked = false, matches = false;
};

// A state rebuilt from its decisions: what the trace keeps only for states
// that stayed in the beam, recomputed for any state (a pruned one included).
struct ReplayedState {
    std::string loopNest;                        // as trace nodes keep it (State::dump)
    std::vector<std::array<float, 73>> features; // per scheduled stage, cost-model order
    std::vector<float> stageCosts;               // the model's cost of each of those stages
};

// The named cost terms of one recorded state's stages.
struct StageTerms {
    std::string stage;
    float stageCost = 0;      // sum of terms, already x 1e-9 (the model's units)
    std::vector<float> terms; // one per term name, x 1e-9
};

class SearchSession {
public:
    // Checks the request (checkRequest), resolves the profile, loads the
    // weights and builds the pipeline and its DAGs. Null with `error` set
    // ("beam: expected ...", "<weights file>: ...", "app: unknown pipeline ...").
    static std::unique_ptr<SearchSession> open(const SearchRequest &request, std::string *error);
    ~SearchSession();
    SearchSession(const SearchSession &) = delete;
    SearchSession &operator=(const SearchSession &) = delete;

    const SearchRequest &request() const;
    const std::string &pipelineName() const;
    // Cost-model order, each Func named as everywhere else (halide_names.h FuncNames).
    const std::vector<std::string> &stageNames() const;
    const std::string &profileName() const; // the profile's own name ("V100-SXM2-16GB", ...)
    int passes() const;                     // the number of passes a run makes

    // The search. progress may be null; sink may be empty.
    SearchOutcome run(Progress *progress, const NodeBatchSink &sink);

    // Schedule source of a state given by the decisions on its path (each
    // trace node's "detail", root first), replayed on this session's DAG.
    // Only complete states have a schedule: for a partial one (or decisions
    // that do not fit the pipeline) returns nullopt and sets error.
    std::optional<std::string> emit(const std::vector<Json> &decisions, const std::vector<float> &stageCosts,
                                    double totalCost, std::string *error) const;

    // The loop nest of a complete or partial state (decisions as for emit) in the
    // form of Halide's LoopNest::dump, byte for byte what Halide prints for the
    // same state (so its FNV-1a is comparable with Halide's recorded trees).
    std::optional<std::string> halideLoopNest(const std::vector<Json> &decisions, std::string *error) const;
    // Loop nest, per-stage features and stage costs of a state given by its
    // decisions (as for emit; partial states too), from this session's DAG,
    // device limits and model: what the search itself computed when it
    // costed the state. nullopt with error when the decisions do not fit.
    std::optional<ReplayedState> replay(const std::vector<Json> &decisions, std::string *error) const;
    // Compiles a complete state for target "opencl" or "cuda" and times it in
    // the bench worker process (core/bench), its output checked against the
    // compute_root host reference. Cancellable through progress. Compiling
    // schedules Funcs, and a Func keeps its schedule, so each measurement
    // builds the pipeline afresh (the bench's build step) and takes the
    // state's Func names from that build's DAG.
    StateMeasurement measure(const std::vector<Json> &decisions, const std::string &target, Progress *progress) const;

    // The cost terms of a recorded state's stages. features: the node's
    // per-stage rows (a prefix of the stage axis); numCores: the trace's
    // "parallelism" parameter.
    std::vector<StageTerms> breakdown(const std::vector<std::array<float, 73>> &features, int numCores) const;
    static std::vector<std::string> termNames();  // costTermName order
    static std::vector<std::string> termGroups(); // the group of each term

private:
    SearchSession();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// Choices the explorer offers.
struct AppChoice {
    std::string name;
    std::string description;
    std::string origin; // "app", "golden", ...
};
std::vector<AppChoice> builtinApps();
std::vector<std::string> profileChoices(); // reference profiles, then "local"

} // namespace beamscope::session
