#pragma once
// The device study (beamscope-cli device-study): does fine-tuning Halide's
// V100 weights on this device's own measurements pick faster schedules here?
// For every app A, as Halide trained its per-app files (hold-one-out):
//
//   1. the loop: Halide's autotune loop on A from Halide's A.weights, K
//      batches, retrained on A's samples after each (loop/A, an autotune run
//      folder); its samples are also the study's samples of A;
//   2. random pipelines measured the same way with gpu.weights (random/);
//   3. the fine-tune: A.weights trained on the samples of every other app and
//      the random pipelines, never A's (tuned/A.weights);
//   4. the picks: A searched at beam 32 with A.weights and with tuned/A.weights,
//      both compiled, then timed in interleaved rounds (picks/A.json);
//   5. the report: report.json, report.md and plots/ (core/study).
//
// Every stage writes its output atomically and is skipped when a rerun finds
// it, so a killed study resumes where it stopped; the parameters are kept in
// study.json and a rerun with other ones is refused (naming the parameter).
// With --shard K/T only the loops and the random samples of task K are run
// (apps and random pipelines dealt round-robin), for Slurm arrays; a final
// unsharded run on the same folder does the rest.

#include "core/study/study_report.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace beamscope {
class Progress;
}

namespace beamscope::autotune {

struct DeviceStudyOptions {
    std::filesystem::path outDir;
    std::vector<std::string> apps; // empty: Halide's sixteen apps (each has its hold-one-out file)
    int randomPipelines = 8;
    int randomStages = 6;
    int batches = 2;    // the loop's batches per app
    int batchSize = 12; // schedules per batch (sample 0 at beam 32, the rest beam 1 with dropout)
    int loopEpochs = 50;
    int fineTuneEpochs = 50;
    float learningRate = 0.001f;
    int minBatch = 9; // Halide trains on runs of more than 8 schedules of a pipeline
    int pickRounds = 10;
    int pickReps = 3; // timed runs per round; a round's figure is their best
    int sampleReps = 3;
    double scale = 0.25;
    std::string target = "opencl";
    std::string profile; // empty: the autotune default (local for cuda, else v100)
    int jobs = 0;
    // Some beam-1 schedules with dropout take Halide many minutes to compile (bgu's do); on a
    // 2-core machine two minutes each is what a two-hour study can give them. They are recorded
    // as compile timeouts and counted in the report.
    double compileTimeoutSeconds = 120;
    double benchTimeoutSeconds = 10;
    uint64_t seed = 0;
    std::string cacheDir;
    int shardIndex = 0, shardCount = 1;
    std::string command; // as typed, for the report
    // Where Qt is at hand, the caller turns each plot's SVG into a PNG beside it.
    std::function<bool(const std::string &svg, const std::filesystem::path &png)> renderPng;
};

// Halide's sixteen apps in the registry's order.
std::vector<std::string> studyAppsDefault();

// The parameters a resumed study must share with study.json.
Json studyParameters(const DeviceStudyOptions &options);

struct DeviceStudyResult {
    bool ok = false;
    bool cancelled = false;
    std::string error;
    bool shardOnly = false; // --shard: the report is for the final run
    study::StudyReport report;
};

DeviceStudyResult runDeviceStudy(const DeviceStudyOptions &options, Progress *progress,
                                 const std::function<void(const std::string &)> &log = {});

} // namespace beamscope::autotune
