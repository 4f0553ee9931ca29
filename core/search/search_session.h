#pragma once
// A Halide-free front door to the beam search for the explorer (ui/ must
// never see Halide.h): the same core calls as `beamscope-cli autoschedule`
// (registry pipeline, weights file, device profile -> AutoscheduleParams ->
// search::autoschedule with a trace), with the trace's nodes handed out in
// batches while the search runs, and the cost breakdown of any recorded state.
//
// Batches: the search reports progress at the start of every decision depth,
// after it finished the previous depth's beam (in_beam flags, features, loop
// nests). At that point the nodes recorded so far are final, so the report is
// where they are handed out, on the search's own thread; no node is read while
// the search may still write it.

#include "core/search/search_trace.h"
#include "core/util/progress.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::search {

struct SessionOptions {
    std::string app;          // registry name (beamscope-cli apps)
    std::string weightsPath;  // an Anderson2021 weights file
    std::string profile = "v100"; // a reference profile name, or "local"
    int beamSize = 32;
    int passes = 0;           // 0: Halide's default (1 for beam 1, else 5)
    int dropout = 100;        // percent of children kept
    uint64_t seed = 0;
    std::string searchSpaceOptions = "1111";
    bool disableSubtiling = false;
    bool randomizeTilings = false;
    bool freezeInlineComputeRoot = false;
    size_t traceCap = 200000;
    // Continue from a state: the "detail" decisions on its path in a trace
    // (root first) are fixed; empty: search from the empty schedule.
    std::vector<Json> startDecisions;
};

struct SessionOutcome {
    bool ok = false;
    std::string error;        // when !ok: what went wrong (file, field, why)
    bool cancelled = false;
    SearchTrace trace;        // the whole trace (header, nodes, summary)
    double predictedCost = 0;
    std::string bestLoopNest;
    std::vector<std::string> stageNames;
    std::vector<float> stageCosts;
};

// Receives nodes [first, first + count) of the trace as they become final.
// Runs on the search's thread; header (pipeline, stages, params) is filled.
using NodeBatchSink = std::function<void(const SearchTrace &trace, size_t first, size_t count)>;

// The whole search; progress may be null; sink may be empty.
SessionOutcome runSearchSession(const SessionOptions &options, Progress *progress, const NodeBatchSink &sink);

// Halide C++ schedule source (core/schedule's emitter) of a recorded state,
// rebuilt from the decisions on its path (each node's "detail", root first)
// on a fresh build of the pipeline. Only complete states have a schedule: for
// a partial one (or an unknown pipeline, or decisions that do not fit it)
// returns nullopt and sets error.
std::optional<std::string> emitStateSource(const std::string &pipeline, const std::vector<Json> &decisions,
                                           const std::vector<float> &stageCosts, double totalCost, std::string *error);

// Compiles a complete recorded state (rebuilt as for emitStateSource, applied
// with core/schedule) for target "host", "opencl" or "cuda" and times it in
// the bench worker process (core/bench), output checked against the
// compute_root host reference. Cancellable through progress.
struct StateMeasurement {
    bool ok = false;
    std::string error;   // why it was not measured, or what failed
    std::string target;  // Halide target string
    double medianMs = 0, minMs = 0;
    bool checked = false, matches = false;
};
StateMeasurement measureState(const std::string &pipeline, const std::vector<Json> &decisions,
                              const std::string &target, Progress *progress);

// Choices the explorer offers.
struct SessionApp {
    std::string name;
    std::string description;
    std::string origin; // "app", "golden", ...
};
std::vector<SessionApp> sessionApps();
std::vector<std::string> sessionProfiles(); // reference profiles, then "local"

// The named cost terms of one recorded state's stages. Needs the pipeline
// (rebuilt from the registry by its trace name) and the weights; built once
// per (pipeline, weights) off the GUI thread, then cheap per state.
struct StageTerms {
    std::string stage;
    float stageCost = 0;                 // sum of terms, already x 1e-9 (the model's units)
    std::vector<float> terms;            // one per term name, x 1e-9
};

class BreakdownContext {
public:
    // Returns null and sets error when the pipeline is not in the registry or
    // the weights cannot be used.
    static std::unique_ptr<BreakdownContext> create(const std::string &pipeline, const std::string &weightsPath,
                                                    std::string *error);
    ~BreakdownContext();

    static std::vector<std::string> termNames();  // costTermName order
    static std::vector<std::string> termGroups(); // the group of each term
    // features: the node's per-stage rows (a prefix of the stage axis);
    // numCores: the trace's "parallelism" parameter.
    std::vector<StageTerms> breakdown(const std::vector<std::array<float, 73>> &features, int numCores) const;
    const std::string &pipeline() const { return m_pipeline; }
    const std::string &weightsPath() const { return m_weightsPath; }

private:
    BreakdownContext() = default;
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    std::string m_pipeline, m_weightsPath;
};

} // namespace beamscope::search
