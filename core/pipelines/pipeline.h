#pragma once
// A pipeline Beamscope can featurize, schedule and measure: built-in apps, the
// golden test pipelines, random pipelines and generators from a user's library.
// Each build() makes fresh Funcs, so scheduling one instance never affects another.

#include <Halide.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::pipelines {

struct PipelineInstance {
    std::string name;
    std::vector<Halide::Func> outputs;       // estimates set on every output dimension
    std::vector<Halide::Argument> arguments; // inputs in call order (ImageParams, Params), for AOT compilation
    // The pipeline's hand-written GPU schedule, when it has one (applied to the Funcs above).
    std::function<void(const Halide::Target &)> applyGpuSchedule;
    // The Parameters behind `arguments`, same order: lets JIT callers (tests,
    // reference runs) bind buffers and scalar values without the Param objects.
    std::vector<Halide::Internal::Parameter> parameters;
    // What it is made of, where its builder says (a random pipeline's stage
    // kinds, in order): the campaign tables outcomes by them.
    std::vector<std::string> stageKinds;

    Halide::Pipeline pipeline() const { return Halide::Pipeline(outputs); }
};

enum class Origin { App, Golden, Random, Generator };

struct PipelineInfo {
    std::string name;        // registry key, e.g. "bilateral_grid", "box_blur"
    std::string description; // one line
    Origin origin = Origin::App;
    std::function<PipelineInstance()> build;
};

// Every built-in pipeline: the 16 apps named by Halide's per-app weights, then
// the golden test pipelines (shared/golden/pipelines/PIPELINES.md).
const std::vector<PipelineInfo> &builtinPipelines();
std::optional<PipelineInfo> findPipeline(const std::string &name);

// Pipelines registered while the program runs (a user's generators, loaded in the
// explorer): found by findPipeline after the built-in ones, listed after them, so the
// Pipeline and Autotune views take them as they take an app. A name already
// registered is replaced. Thread-safe; userPipelines() returns a copy.
// A user's pipeline built by a generator of a library (build() uses its defaults).
struct GeneratorSource {
    std::string library, generator;
};
void registerUserPipeline(PipelineInfo info, GeneratorSource source);
std::vector<PipelineInfo> userPipelines();
// The library and generator behind a registered user pipeline; nothing for any other name.
std::optional<GeneratorSource> userGeneratorSource(const std::string &pipelineName);

const char *originName(Origin origin); // "app", "golden", "random", "generator"

} // namespace beamscope::pipelines
