#pragma once
// What a weights file's pick is worth on this device: the search runs with
// those weights on the pipeline (beam 32 by default), and the schedule it picks
// is compiled (in a child process with a time limit) and timed by the bench
// worker, as an autotune sample would be. compare-weights --measure-picks puts
// this runtime beside the rank figures: the end-to-end question is not how
// well a model orders schedules but how fast the schedule it chooses runs.

#include "core/bench/measurement.h"
#include "core/bench/targets.h"
#include "core/gpu/device_facts.h"

#include <filesystem>
#include <string>

namespace beamscope::autotune {

struct PickOptions {
    bench::TargetKind target = bench::TargetKind::OpenCL;
    gpu::DeviceFacts device; // the search's device limits
    int cudaCapability = bench::kDefaultCudaCapability;
    int beamSize = 32;
    double compileTimeoutSeconds = 600;
    bench::RunOptions run; // reps, warmup, scale, time limit
    std::filesystem::path cacheDir;
};

struct PickMeasurement {
    bool ok = false;
    std::string error; // the pipeline is unknown, the search or the build failed, the run failed
    double predictedCost = 0;
    double runtimeMs = 0; // the best of the timed runs
    double searchSeconds = 0;
};

// A pick searched and compiled, not yet timed: the device study times two of
// them in interleaved rounds.
struct CompiledPick {
    bool ok = false;
    std::string error;
    double predictedCost = 0;
    double searchSeconds = 0;
    bench::CompiledLibrary library;
};

// `pipeline` is a registry name or random_<seed>_<stages> (what autotune
// folders name their pipelines; generators cannot be rebuilt from a name).
CompiledPick compilePick(const std::string &pipeline, const std::filesystem::path &weights, const PickOptions &options);

PickMeasurement measurePick(const std::string &pipeline, const std::filesystem::path &weights,
                            const PickOptions &options);

} // namespace beamscope::autotune
