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
#include "core/util/progress.h"

#include <cstdio>
#include <iostream>

namespace beamscope::cli {

namespace {

using namespace beamscope::bench;

std::string ms(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g ms", v);
    return buf;
}

int runBench(const std::vector<std::string> &rawArgs)
{
    Arguments args(rawArgs, {"json", "no-cache", "compile-only"},
                   {"app", "target", "reps", "warmup", "schedule", "scale", "timeout", "cache", "seed"});
    if (!args.ok())
        return usageError("", "bench", args.error());
    if (!args.positional().empty())
        return usageError("", "bench", "unexpected argument '" + args.positional().front() + "'");
    const auto app = args.value("app");
    if (!app)
        return usageError("", "bench", "--app NAME is required");
    const std::string targetName = args.value("target").value_or("host");
    const auto kind = parseTargetKind(targetName);
    if (!kind)
        return usageError("", "bench", "--target must be cuda, opencl or host, not '" + targetName + "'");
    RunOptions run;
    run.reps = static_cast<int>(args.integer("reps", 10));
    run.warmup = static_cast<int>(args.integer("warmup", 1));
    run.scale = args.number("scale", 1.0);
    run.timeoutSeconds = args.number("timeout", 120);
    run.seed = static_cast<uint64_t>(args.integer("seed", 1));
    if (!args.ok())
        return usageError("", "bench", args.error());
    if (run.reps < 1 || run.warmup < 0 || !(run.scale > 0) || !(run.timeoutSeconds > 0))
        return usageError("", "bench", "--reps must be >= 1, --warmup >= 0, --scale and --timeout > 0");

    const auto info = pipelines::findPipeline(*app);
    if (!info) {
        std::cerr << "beamscope-cli bench: --app: no pipeline named '" << *app << "' in the registry\n";
        return kFailure;
    }
    // Default: a GPU target runs the pipeline's GPU schedule (an unscheduled
    // pipeline compiled for a GPU target would just run on the CPU).
    const bool hasGpuSchedule = static_cast<bool>(info->build().applyGpuSchedule);
    std::string scheduleName = args.value("schedule").value_or(*kind != TargetKind::Host && hasGpuSchedule ? "gpu" : "default");
    if (scheduleName != "default" && scheduleName != "gpu")
        return usageError("", "bench", "--schedule must be default or gpu, not '" + scheduleName + "'");
    if (scheduleName == "gpu" && *kind == TargetKind::Host)
        return usageError("", "bench", "--schedule gpu needs --target cuda or opencl");

    const gpu::LocalDeviceQuery local = gpu::queryLocalDevice();
    BenchRequest request;
    request.build = info->build;
    request.schedule = scheduleName == "gpu" ? Schedule::gpu() : Schedule::unscheduled();
    request.target = benchTarget(*kind, local);
    CompileOptions compile;
    if (auto dir = args.value("cache"))
        compile.cacheDir = *dir;
    compile.useCache = !args.flag("no-cache");

    // PTX needs no GPU to be made, but one to run: without a CUDA device,
    // compiling is all there is to do.
    const bool noCudaDevice = *kind == TargetKind::Cuda && !local.device;
    if (args.flag("compile-only") || noCudaDevice) {
        const CompiledLibrary lib = compilePipeline({request.build, request.schedule, request.target, {}, {}}, compile);
        const std::string why = noCudaDevice ? "not run: " + local.status : "not run: --compile-only";
        if (args.flag("json")) {
            Json j = Json::object();
            j["app"] = *app;
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
            std::cout << *app << "  schedule " << lib.schedule << "  target " << lib.target << "\n"
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
        note = "OpenCL runs on the device the ICD offers; with no GPU here that is PoCL's CPU device, so these are CPU timings";
    else if (*kind != TargetKind::Host && request.schedule.kind == ScheduleKind::Unscheduled)
        note = "unscheduled: this pipeline runs on the CPU even for a GPU target";

    if (args.flag("json")) {
        Json j = m.toJson();
        j["app"] = *app;
        j["target_kind"] = targetKindName(*kind);
        j["local_device"] = local.status;
        if (!note.empty())
            j["note"] = note;
        std::cout << j.dump(2) << "\n";
        return m.ok ? kSuccess : kFailure;
    }

    std::cout << *app << "  schedule " << m.schedule << "  target " << m.target << "\n";
    if (m.failure != Failure::Compile)
        std::cout << "compile: " << (m.cacheHit ? "cached" : "compiled") << " in "
                  << ms(m.compileSeconds * 1000.0) << "\n";
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

const CommandRegistration registration(
    {"", "bench",
     "--app NAME --target cuda|opencl|host [--reps N] [--warmup N] [--schedule default|gpu] [--scale S] "
     "[--timeout SECONDS] [--cache DIR] [--no-cache] [--seed N] [--compile-only] [--json]",
     "compile a pipeline ahead of time, time it in a worker process, check it against the host reference",
     runBench});

} // namespace

} // namespace beamscope::cli
