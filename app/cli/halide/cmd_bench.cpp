// beamscope-cli bench: compile one of the registry's pipelines ahead of time
// for host, OpenCL or CUDA, run it in beamscope-bench-worker, print timings
// and whether its output matched the host reference. Wiring only: the work
// lives in core/bench.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "app/cli/stderr_progress.h"
#include "core/bench/benchmark.h"
#include "core/bench/targets.h"
#include "core/gpu/device_facts.h"
#include "core/pipelines/pipeline.h"
#include "core/util/duration_text.h"
#include "core/util/progress.h"

#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>

namespace beamscope::cli {

namespace {

using namespace beamscope::bench;

std::string ms(double v) { return millisecondsText(v); }

struct BenchOptions {
    std::string app, target = "host";
    std::optional<std::string> schedule, cache;
    RunOptions run;
    bool noCache = false, compileOnly = false, json = false;
};

int runBench(const BenchOptions &o)
{
    const std::string &app = o.app;
    const std::string &targetName = o.target;
    const auto kind = parseTargetKind(targetName); // one of them: checked while parsing
    const RunOptions &run = o.run;

    const auto info = pipelines::findPipeline(app);
    if (!info) {
        std::cerr << "beamscope-cli bench: --app: no pipeline named '" << app << "' in the registry\n";
        return kFailure;
    }
    // Default: a GPU target runs the pipeline's GPU schedule (an unscheduled
    // pipeline compiled for a GPU target would just run on the CPU).
    const bool hasGpuSchedule = static_cast<bool>(info->build().applyGpuSchedule);
    const std::string scheduleName =
        o.schedule.value_or(*kind != TargetKind::Host && hasGpuSchedule ? "gpu" : "default");
    if (scheduleName == "gpu" && *kind == TargetKind::Host)
        return usageError("", "bench", "--schedule gpu needs --target cuda or opencl");

    const gpu::LocalDeviceQuery local = gpu::queryLocalDevice();
    BenchRequest request;
    request.build = info->build;
    request.schedule = scheduleName == "gpu" ? Schedule::gpu() : Schedule::unscheduled();
    request.target = benchTarget(*kind, local);
    CompileOptions compile;
    if (o.cache)
        compile.cacheDir = *o.cache;
    compile.useCache = !o.noCache;

    // PTX needs no GPU to be made, but one to run: without a CUDA device,
    // compiling is all there is to do.
    const bool noCudaDevice = *kind == TargetKind::Cuda && !local.device;
    if (o.compileOnly || noCudaDevice) {
        const CompiledLibrary lib = compilePipeline({request.build, request.schedule, request.target, {}, {}}, compile);
        const std::string why = noCudaDevice ? "not run: " + local.status : "not run: --compile-only";
        if (o.json) {
            Json j = Json::object();
            j["app"] = app;
            j["schedule"] = lib.schedule;
            j["target"] = lib.target;
            j["compiled"] = lib.ok;
            if (!lib.ok)
                j["error"] = lib.error;
            j["library"] = lib.library.string();
            j["compile_seconds"] = lib.compileSeconds;
            j["cache_hit"] = lib.cacheHit;
            j["ran"] = false;
            j["note"] = why;
            std::cout << j.dump(2) << "\n";
        } else if (lib.ok) {
            std::cout << app << "  schedule " << lib.schedule << "  target " << lib.target << "\n"
                      << "compile: " << (lib.cacheHit ? "cached" : "compiled") << " in "
                      << ms(lib.compileSeconds * 1000.0) << " -> " << lib.library.string() << "\n"
                      << why << "\n";
        } else {
            std::cout << "FAILED (compile): " << lib.error << "\n";
        }
        return lib.ok ? kSuccess : kFailure;
    }

    StderrProgress progress("bench: ", false, StderrProgress::Style::EveryMessage);
    const Measurement m = benchmark(request, compile, run, &progress);

    std::string note;
    if (*kind == TargetKind::OpenCL && !local.device)
        note = "OpenCL runs on the device the ICD offers; with no GPU here that is PoCL's CPU device, so these are CPU "
               "timings";
    else if (*kind != TargetKind::Host && request.schedule.kind == ScheduleKind::Unscheduled)
        note = "unscheduled: this pipeline runs on the CPU even for a GPU target";

    if (o.json) {
        Json j = m.toJson();
        j["app"] = app;
        j["target_kind"] = targetKindName(*kind);
        j["local_device"] = local.status;
        if (!note.empty())
            j["note"] = note;
        std::cout << j.dump(2) << "\n";
        return m.ok ? kSuccess : kFailure;
    }

    std::cout << app << "  schedule " << m.schedule << "  target " << m.target << "\n";
    if (m.failure != Failure::Compile)
        std::cout << "compile: " << (m.cacheHit ? "cached" : "compiled") << " in " << ms(m.compileSeconds * 1000.0)
                  << "\n";
    if (!m.timesMs.empty())
        std::cout << "times over " << m.timesMs.size() << " reps (after " << run.warmup << " warm-up): min "
                  << ms(m.minMs) << ", median " << ms(m.medianMs) << "\n";
    if (m.checked) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "%.0f values, %.0f differ, max abs error %.3g, max rel error %.3g", m.values,
                      m.mismatches, m.maxAbsError, m.maxRelError);
        std::cout << "correctness: " << (m.matches ? "matches" : "DIFFERS FROM") << " the host reference (" << buf
                  << ")\n";
    }
    if (!note.empty())
        std::cout << "note: " << note << "\n";
    if (!m.ok) {
        std::cout << "FAILED (" << failureName(m.failure) << "): " << m.message << "\n";
        return kFailure;
    }
    return kSuccess;
}

CommandRun defineBench(CLI::App &app)
{
    auto o = std::make_shared<BenchOptions>();
    RunOptions &run = o->run;
    addText(app, "--app", o->app, "the pipeline to time (see 'beamscope-cli apps')")->required();
    addText(app, "--target", o->target, "where it runs")->check(oneOf({"cuda", "opencl", "host"}));
    addInteger(app, "--reps", run.reps, "timed runs", 1, std::numeric_limits<int>::max());
    addInteger(app, "--warmup", run.warmup, "untimed runs before them", 0, std::numeric_limits<int>::max());
    addText(app, "--schedule", o->schedule, "default, or gpu: the app's own GPU schedule (default for GPU targets)")
        ->check(oneOf({"default", "gpu"}));
    addNumber(app, "--scale", run.scale, "output extents: the estimates times this", 0,
              std::numeric_limits<double>::infinity(), true);
    addNumber(app, "--timeout", run.timeoutSeconds, "seconds the worker may take", 0,
              std::numeric_limits<double>::infinity(), true);
    addText(app, "--cache", o->cache, "the compiled-library cache folder");
    addFlag(app, "--no-cache", o->noCache, "compile even when the cache holds the library");
    addInteger(app, "--seed", run.seed, "the seed of the input values");
    addFlag(app, "--compile-only", o->compileOnly, "compile, run nothing");
    addJsonFlag(app, o->json);
    return [o](const std::vector<std::string> &) { return runBench(*o); };
}

const CommandRegistration
    registration({"", "bench",
                  "--app NAME --target cuda|opencl|host [--reps N] [--warmup N] [--schedule default|gpu] [--scale S] "
                  "[--timeout SECONDS] [--cache DIR] [--no-cache] [--seed N] [--compile-only] [--json]",
                  "compile a pipeline ahead of time, time it in a worker process, check it against the host reference",
                  defineBench});

} // namespace

} // namespace beamscope::cli
