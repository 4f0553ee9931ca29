#pragma once
// The autotune loop of Halide's anderson2021_autotune_loop.sh, in process and
// resumable: per batch and pipeline, sample 0 is a beam search (beam 32, no
// dropout) and the others beam-1 searches with 1% random dropout, randomized
// tilings and the frozen inline/compute_root pre-pass, each with its own
// dropout seed (batch and index, Halide's "%04d%04d"). A schedule whose
// schedule features were measured before is recorded as a duplicate and not
// compiled. The rest are compiled in parallel in child processes with a time
// limit (core/bench/isolated_compile.h), then measured one at a time on the
// device by the bench worker with its own time limit; each pipeline's first
// schedule of a batch is also checked against the host reference. Measured
// schedules become Halide `.sample` files; after each batch the model is
// retrained on every sample so far (optional) and the working weights are
// replaced atomically.
//
// Resume: a rerun on the same folder with the same parameters skips finished
// batches and, within a batch, schedules whose record exists; searches are
// deterministic for their seed, so the result equals an uninterrupted run.
// The folder's layout is run_folder.h's.

#include "core/autotune/autotune_request.h"
#include "core/samples/run_folder.h"
#include "core/samples/schedule_record.h"
#include "core/bench/measurement.h"
#include "core/bench/targets.h"
#include "core/gpu/device_facts.h"
#include "core/pipelines/pipeline.h"
#include "core/samples/epoch_record.h"
#include "core/util/json.h"

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace beamscope {
class Progress;
}

namespace beamscope::autotune {

using samples::batchName;
using samples::RunFolder;
using samples::scheduleIdFor;
using samples::ScheduleRecord;
using samples::Status;
using samples::statusName;

struct PipelineSpec {
    std::string name;   // folder and apps.tsv name: a registry name, random_<seed>_<stages>, or the generator's
    std::string source; // how it was made, for the manifest ("app bilateral_grid", "generator lib.so blur k=v")
    std::function<pipelines::PipelineInstance()> build;
};

struct AutotuneOptions {
    std::filesystem::path outDir;
    std::vector<PipelineSpec> pipelines;
    std::filesystem::path weightsPath; // starting weights (Anderson2021 network)
    bench::TargetKind target = bench::TargetKind::OpenCL;
    gpu::DeviceFacts device;  // the search's device limits (local device or a profile)
    std::string deviceSource; // "local" or the profile's name, for the manifest
    int cudaCapability = bench::kDefaultCudaCapability;

    int batches = 1;
    int batchSize = 80;
    uint64_t seed = 0;      // mixed into every dropout seed
    int firstBeamSize = 32; // sample 0
    int otherBeamSize = 1;  // the others
    int otherDropout = 1;   // percent of children kept, the others
    bool randomizeTilings = true;
    bool freezeInlineComputeRoot = true;
    std::string searchSpaceOptions = "1111";

    int jobs = 0; // compile processes at once; 0: one per hardware thread
    double compileTimeoutSeconds = 600;
    std::filesystem::path cacheDir; // empty: core/bench's default
    bench::RunOptions run;          // reps, warmup, scale, benchmark time limit (10 s), worker

    bool retrain = true;
    int epochs = 200; // Halide's loop: 200 epochs at 0.001 after each batch
    float learningRate = 0.001f;
    size_t minBatch = 9; // Halide trains only on pipelines' batches of more than 8 schedules

    // Test-only: "pipeline:batch:index" -> "crash", "hang" or "wrong-output".
    std::map<std::string, std::string> injectFaults;

    // Slurm (docs/slurm.md). An array task runs one batch (onlyBatch) and, of
    // it, the schedules of its shard: schedule i of pipeline p (in pipelines
    // order) belongs to shard (p * batchSize + i) % shardCount. The records of
    // priorFolder (the main run folder) count as measured before.
    int onlyBatch = -1;
    int shardIndex = 0, shardCount = 1;
    std::filesystem::path priorFolder;
    // The merge job: batch onlyBatch is not searched but gathered from these
    // shard folders and deduplicated as a local run would have (the first
    // schedule in pipeline and index order keeps a feature hash).
    std::vector<std::filesystem::path> mergeFrom;
    // Write the folder's manifest, apps.tsv and starting weights; run nothing.
    bool prepareOnly = false;
};

// The Halide target the run compiles its schedules for.
Halide::Target compileTarget(const AutotuneOptions &options);

// What the manifest says of the device and target (also its "device" field).
Json describeTarget(const AutotuneOptions &options);

// The parameters a resumed run must share with the folder's manifest.
Json runParameters(const AutotuneOptions &options);

AutotuneResult runAutotune(const AutotuneOptions &options, Progress *progress = nullptr,
                           const AutotuneEvents &events = {});

// The options a request asks for: its pipelines built from the registry,
// random seeds or the generator library, the weights and device resolved.
// Empty with `error` set (naming the option) when the request cannot be met.
std::optional<AutotuneOptions> optionsFor(const AutotuneRequest &request, std::string &error);

// A stable pipeline id from the name (FNV-1a, 31 bits; not 0).
int32_t pipelineIdFor(const std::string &name);

} // namespace beamscope::autotune
