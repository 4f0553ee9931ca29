#pragma once
// A Halide-free view of a registered pipeline for the explorer (whose Qt code
// cannot include Halide.h): its stages with their pipeline features and
// definitions as text, and the producer -> consumer edges between stages.
// Everything here is computed by the same core calls the CLI uses
// (findPipeline, FunctionDAG), only flattened into plain data.

#include "core/dag/pipeline_features.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace beamscope::pipelines {

// One entry of the registry, without building anything but the Funcs.
struct PipelineListing {
    std::string name;
    std::string description;
    std::string origin; // originName(): "app", "golden", ...
    int stageCount = 0; // cost-model stages (definitions of non-input Funcs)
    bool hasGpuSchedule = false;
};

// Every built-in pipeline, in registry order, then the user's (registerUserPipeline). Builds each pipeline's Funcs
// (cheap) but not its DAG.
std::vector<PipelineListing> listPipelines();

struct StageSummary {
    std::string name;     // "<func>_s<definition>", as the DAG names stages (displayName)
    std::string func;     // displayName of the Func
    int definition = 0;   // 0 = pure definition, k = update k-1
    int updateCount = 0;  // updates of the stage's Func
    bool isInput = false; // an input wrapper (no features of its own)
    bool isOutput = false;
    int costModelIndex = -1;    // position in FunctionDAG::costModelStages(); -1 for inputs
    int depth = 0;              // longest producer chain from a source stage (inputs are 0)
    std::string definitionText; // "blur_x(x, y) = ..." as Halide prints it
    dag::PipelineFeatures features;
};

struct StageEdge {
    int producer = 0; // index into PipelineSummary::stages
    int consumer = 0;
    int calls = 0; // call sites; 0 for the link from a definition to the next update of the same Func
    bool sameFunc = false;
};

struct PipelineSummary {
    std::string name;
    std::vector<StageSummary> stages; // DAG node order (outputs first), each Func's stages pure first
    std::vector<StageEdge> edges;     // one per DAG edge, then one per update after the pure definition
    int funcCount = 0;
    int depthCount = 0; // number of layers (max depth + 1)
};

class SummaryError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A Func or stage name without the "$N" Halide appends when a name is used
// again in one process ("blur_x$2_s0" -> "blur_x_s0"): every build() of a
// registry entry makes fresh Funcs with the same names, and the explorer
// builds them many times. Also applied to definition text.
std::string displayName(const std::string &text);

// Builds the pipeline named in the registry and its FunctionDAG. Throws
// SummaryError with a readable message (unknown name, missing estimates,
// a Halide error).
PipelineSummary summarizePipeline(const std::string &registryName);

} // namespace beamscope::pipelines
