#pragma once
// The autotune loop as the CLI and the explorer ask for it, without Halide in
// sight (ui/ must never include Halide.h): what to tune, where, with what, and
// what a run reports back. runAutotune(request) resolves it into
// AutotuneOptions (autotune.h) and runs the loop, so `beamscope-cli autotune`
// and the Autotune workspace are two thin callers of one piece of code.

#include "core/samples/epoch_record.h"
#include "core/samples/schedule_record.h"
#include "core/util/json.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace beamscope {
class Progress;
}

namespace beamscope::autotune {

struct AutotuneRequest {
    std::string outDir;
    std::vector<std::string> apps; // registry names (beamscope-cli apps)
    int randomPipelines = 0;       // seeded random pipelines, random_<seed>_<stages>
    int randomStages = 4;
    std::string generatorLibrary; // with generatorName: one generator of a library
    std::string generatorName;
    std::map<std::string, std::string> generatorParams;
    std::string weights;           // a path or a shipped name; empty: weights::defaultWeightsFor the pipelines
    std::string target = "opencl"; // "cuda" or "opencl"
    std::string profile;           // "local" or a reference profile; empty: local for cuda, else v100

    int batches = 1;
    int batchSize = 80;
    uint64_t seed = 0;
    int firstBeamSize = 32;
    int otherDropout = 1;
    bool randomizeTilings = true;
    bool freezeInlineComputeRoot = true;
    int jobs = 0;
    double compileTimeoutSeconds = 600;
    double benchTimeoutSeconds = 10;
    int reps = 10, warmup = 1;
    double scale = 1.0;
    std::string cacheDir;
    bool retrain = true;
    int epochs = 200;
    float learningRate = 0.001f;
    int minBatch = 9;
    std::map<std::string, std::string> injectFaults; // test-only, see AutotuneOptions

    // Slurm array tasks and their merge job (AutotuneOptions, docs/slurm.md).
    int onlyBatch = -1;
    int shardIndex = 0, shardCount = 1;
    std::string priorFolder;
    std::vector<std::string> mergeFrom;
    bool prepareOnly = false;
};

struct BatchSummary {
    int batch = 0;
    std::map<std::string, int> counts;    // status name -> schedules
    std::map<std::string, double> bestMs; // pipeline -> best runtime so far (all batches)
    double searchSeconds = 0, compileSeconds = 0, measureSeconds = 0, trainSeconds = 0;
    bool retrained = false;
    std::string trainingNote;           // why nothing was trained, when it was not
    samples::EpochRecord before, after; // the loss before and after the retrain
    Json toJson() const;
};

// Called on the run's thread.
struct AutotuneEvents {
    std::function<void(const std::string &)> onStart;              // the run's one-line description
    std::function<void(const samples::ScheduleRecord &)> onRecord; // each schedule as it is finished
    std::function<void(const BatchSummary &)> onBatch;             // each batch once it is complete
};

struct AutotuneResult {
    bool ok = false;
    std::string error; // nothing could be run (options, folder, weights, parameters unlike the manifest's)
    bool cancelled = false;
    int batchesSkipped = 0;   // finished by an earlier run
    int schedulesResumed = 0; // records found from an earlier run in unfinished batches
    size_t staleTempFilesRemoved = 0;
    std::vector<samples::ScheduleRecord> records; // made by this run
    std::vector<BatchSummary> batches;            // completed by this run
    std::string note;                             // e.g. which weights were used when none was named
};

AutotuneResult runAutotune(const AutotuneRequest &request, Progress *progress = nullptr,
                           const AutotuneEvents &events = {});

// The beamscope-cli autotune options that ask for `request`, --out and the
// Slurm layer's own left out: what a Slurm task runs (slurm.h), whoever made
// the request (the CLI or the explorer).
std::vector<std::string> requestArguments(const AutotuneRequest &request);

// The pipelines a request may name: the user's generators registered in this process
// (pipelines::registerUserPipeline), then the built-in ones in registry order.
std::vector<std::string> autotunePipelineNames();

} // namespace beamscope::autotune
