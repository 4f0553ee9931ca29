#pragma once
// Ahead-of-time compilation of a scheduled pipeline into a shared object that
// exposes Halide's generic entry points <function>_argv and
// <function>_metadata, so the bench worker can run any pipeline without
// knowing its signature. Results are cached by a hash of what was compiled.

#include "core/pipelines/pipeline.h"
#include "core/util/json.h"

#include <Halide.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace beamscope {
class Progress;
}

namespace beamscope::bench {

enum class ScheduleKind {
    Unscheduled, // Halide's default: everything inlined into the outputs, on the CPU
    ComputeRoot, // every stage computed in full before its consumers: the correctness reference
    Gpu,         // the pipeline's own applyGpuSchedule
    Custom,      // a caller's function (e.g. a schedule chosen by the search)
};

struct Schedule {
    ScheduleKind kind = ScheduleKind::Unscheduled;
    std::string label = "default";
    std::function<void(pipelines::PipelineInstance &, const Halide::Target &)> apply; // Custom only

    static Schedule unscheduled() { return {}; }
    static Schedule computeRoot() { return {ScheduleKind::ComputeRoot, "compute_root", {}}; }
    static Schedule gpu() { return {ScheduleKind::Gpu, "gpu", {}}; }
    static Schedule custom(std::string label,
                           std::function<void(pipelines::PipelineInstance &, const Halide::Target &)> fn)
    {
        return {ScheduleKind::Custom, std::move(label), std::move(fn)};
    }
};

struct CompileRequest {
    std::function<pipelines::PipelineInstance()> build; // fresh Funcs each call
    Schedule schedule;
    Halide::Target target;
    // C or C++ files compiled into the shared object: implementations of the
    // pipeline's extern stages (define_extern), if it has any.
    std::vector<std::filesystem::path> extraSources;
    std::vector<std::string> extraCompilerFlags; // e.g. -I for the extra sources' headers
};

struct CompileOptions {
    std::filesystem::path cacheDir; // empty: defaultCacheDir()
    bool useCache = true;
    std::string compiler; // empty: $CC, else "cc"
    int jobs = 0;         // parallel compilations; 0: one per hardware thread
};

struct CompiledLibrary {
    bool ok = false;
    std::string error;                 // what failed (Halide's message, the linker's output)
    std::filesystem::path library;     // the .so
    std::filesystem::path loweredStmt; // Halide's lowered statement of it, beside it (KEY.stmt)
    std::string function;              // <function>_argv / _metadata
    std::string pipeline;              // the instance's name
    std::string schedule;              // the schedule's label
    std::string target;                // Halide target string
    double compileSeconds = 0;         // this call's time (near zero on a cache hit)
    bool cacheHit = false;
    bool timedOut = false; // compileIsolated killed it at its time limit
    std::string key;       // cache key (hex)
    // Barriers taken out of block-uniform ifs for PoCL (uniform_barriers.h).
    int barriersLifted = 0;

    Json toJson() const;
    static CompiledLibrary fromJson(const Json &json);
};

// $XDG_CACHE_HOME/beamscope/bench, else ~/.cache/beamscope/bench, else a temp folder.
std::filesystem::path defaultCacheDir();

// Never throws: Halide errors, exceptions from build() and link failures come back in error.
CompiledLibrary compilePipeline(const CompileRequest &request, const CompileOptions &options);

// Compiles independent requests in parallel (options.jobs threads), results in request order.
std::vector<CompiledLibrary> compileAll(const std::vector<CompileRequest> &requests, const CompileOptions &options,
                                        Progress *progress = nullptr);

// A C identifier made from a pipeline name ("box-blur 3" -> "box_blur_3").
std::string functionNameFor(const std::string &pipelineName);

} // namespace beamscope::bench
