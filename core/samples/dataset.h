#pragma once
// Folders of `.sample` files grouped the way Halide's retrain tool groups them
// (anderson2021 retrain_cost_model.cpp, load_samples): by pipeline id, one entry
// per distinct schedule (keyed by the hash of its schedule features, fastest
// runtime first), schedules of a pipeline ordered by that hash. Implausible
// samples are skipped with a reason instead of silently.
//
// Where a sample's app comes from (for hold-one-out) is described in
// docs/samples.md: `<root>/<app>/**/*.sample`, overridden per pipeline id by
// `<root>/apps.tsv`.

#include "core/samples/sample.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace beamscope {
class Progress;
}

namespace beamscope::samples {

// Halide's plausibility limits (load_samples).
constexpr float kMaxRuntimeMs = 100000.0f;   // runtimes over 100 s are not predicted
constexpr float kMaxScheduleFeature = 1e14f; // larger means something overflowed

struct SampleSource {
    std::filesystem::path file;
    std::string app; // from the folder layout; "" when the layout names none
    // The root's apps.tsv (pipeline id -> app), which wins over `app` for the
    // ids it names; null when the root has none.
    std::shared_ptr<const std::map<int32_t, std::string>> appsById;
};

struct SampleListing {
    std::vector<SampleSource> files; // sorted by path within each root, roots in the given order
    std::vector<std::string> errors; // missing roots, malformed apps.tsv (file:line: ...)
    bool ok() const { return errors.empty(); }
};

// A folder holding a file of this name is not searched for samples (a Slurm
// autotune run's shards, which the merge copies into the run folder).
inline constexpr const char *kNotSamplesMarker = ".beamscope-not-samples";

// Finds the .sample files under each root (recursively; a root that is itself a
// file is taken as it is) and the app of each per docs/samples.md.
SampleListing listSamples(const std::vector<std::filesystem::path> &roots);

struct SkippedSample {
    std::filesystem::path file;
    std::string reason;
};

struct DatasetWarning {
    std::filesystem::path file;
    std::string message;
};

struct ScheduleEntry {
    std::filesystem::path file;                    // the file with the fastest runtime of this schedule
    int32_t scheduleId = 0;                        // that file's schedule id
    uint64_t hash = 0;                             // scheduleHash()
    std::vector<float> runtimesMs;                 // every run of this schedule; [0] is the fastest
    std::vector<float> features;                   // S × 73 schedule features, stage after stage
    std::vector<std::filesystem::path> duplicates; // other files with the same features

    float bestRuntimeMs() const { return runtimesMs.front(); }
};

struct PipelineSet {
    int32_t pipelineId = 0;
    std::string app;
    // The name the pipeline's file names share, when every file read for it
    // gives the same one ("box_blur" from box_blur_seed001.sample and
    // box_blur_seed002.sample; Halide's own flat folders name pipelines so).
    // For display where no app is known; never used to split or hold out.
    std::string fileName;
    // app, else fileName, else "" (what a view shows beside the pipeline id).
    std::string displayName() const { return !app.empty() ? app : fileName; }
    int stageCount = 0;
    // S × 40 × 7 pipeline features as the sample stores them ([stage][row][type],
    // types_in_use left out), taken from the first file read for this pipeline.
    std::vector<float> pipelineFeatures;
    uint64_t pipelineHash = 0;            // pipelineHash() of that first file
    std::vector<ScheduleEntry> schedules; // ascending hash: Halide's std::map order

    size_t fastestIndex() const; // schedule with the smallest best runtime (first on ties)
    size_t runCount() const;     // files merged into this pipeline's schedules
};

struct Dataset {
    std::vector<PipelineSet> pipelines; // ascending pipeline id
    std::vector<SkippedSample> skipped;
    std::vector<DatasetWarning> warnings;
    size_t filesRead = 0;   // sample files looked at
    size_t samplesUsed = 0; // files merged into the pipelines (duplicates included)
    bool cancelled = false; // the Progress asked to stop; the dataset is partial

    const PipelineSet *find(int32_t pipelineId) const;
    size_t scheduleCount() const;
    std::vector<std::string> apps() const; // distinct non-empty app names, sorted
};

// Reads and groups the given files in order (the first file of a pipeline
// supplies its pipeline features, as in Halide).
Dataset buildDataset(const std::vector<SampleSource> &files, Progress *progress = nullptr);

// The pipeline name a sample file's name gives: its stem without a trailing
// counter ("_seed001", "_beam32", "_0042", "-7"); "" when nothing is left.
std::string pipelineNameFromFile(const std::filesystem::path &file);

// What buildDataset decides about one parsed sample before grouping: empty when
// plausible, else the skip reason (runtime over 100 s or not positive, schedule
// features negative, NaN or above 1e14).
std::string implausibility(const Sample &sample);

// The validation split of Halide's trainer: a pipeline (or, by schedule, a
// schedule) goes to validation when its hash & 7 == 0; when training ends up
// empty the two sets are swapped.
enum class SplitMode { ByPipeline, BySchedule };

struct Split {
    std::vector<PipelineSet> training;
    std::vector<PipelineSet> validation;
    bool swapped = false; // training was empty, so the sets were exchanged
};

Split splitLikeHalide(const Dataset &dataset, SplitMode mode = SplitMode::ByPipeline);

// Hold-one-out: the pipelines of `app` are validation, everything else training
// (pipelines with no app included).
Split holdOutApp(const Dataset &dataset, const std::string &app);

// Halide's batching: consecutive runs of up to maxSize schedules of one
// pipeline (in hash order); Halide keeps only batches of more than 8, i.e.
// minSize 9. Schedules outside any batch are never trained on.
struct BatchOptions {
    size_t maxSize = 64;
    size_t minSize = 9;
};

struct Batch {
    size_t pipeline = 0; // index into the set the batches were made from
    size_t first = 0;    // index of the first schedule
    size_t size = 0;
};

std::vector<Batch> makeBatches(const std::vector<PipelineSet> &set, const BatchOptions &options = {});

} // namespace beamscope::samples

namespace beamscope::samples {

struct LoadedSamples {
    Dataset dataset;
    std::vector<std::string> errors; // listing errors (missing roots, bad apps.tsv): nothing was read
    bool ok() const { return errors.empty(); }
};

// listSamples + buildDataset.
LoadedSamples loadSamples(const std::vector<std::filesystem::path> &roots, Progress *progress = nullptr);

} // namespace beamscope::samples
