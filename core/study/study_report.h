#pragma once
// What a device study found (beamscope-cli device-study, core/autotune/
// device_study.h), as report.json holds it and the explorer's Device
// workspace reads it back: per app, the schedule Halide's V100 hold-one-out
// file picks against the one picked by that file fine-tuned on this device's
// samples of every other app (both measured interleaved, with intervals), the
// Halide-style loop on the app itself batch by batch, rank figures of each
// file on samples it was not trained on, and every generated schedule that
// hung, crashed or computed a wrong output. No Halide here: the GUI reads it.

#include "core/study/runtime_interval.h"
#include "core/util/json.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::study {

// How one weights file orders schedules it was not trained on.
struct RankFigures {
    size_t schedules = 0;
    double spearman = NAN, kendall = NAN;
    // 1 when the model's first (top 5) holds the fastest measured schedule, 0 when not; NaN below 2 schedules.
    double top1 = NAN, top5 = NAN;
};

// The schedule one weights file picks at beam 32, timed round after round.
struct PickResult {
    std::string weights; // the file, as the study names it
    double predictedCost = NAN;
    double searchSeconds = 0;
    std::vector<double> roundsMs; // best of each round's runs
    RuntimeEstimate runtime;
    std::string error; // the search, compile or a run failed
    bool ok() const { return error.empty() && !roundsMs.empty(); }
};

// One batch of the Halide-style loop on the app (retrained after each batch).
struct LoopBatch {
    int batch = 0;
    double pickMs = NAN;      // sample 0 of the batch: beam 32 with the batch's weights
    double bestSoFarMs = NAN; // the fastest schedule measured up to this batch
    RankFigures outOfSample;  // the batch's weights (trained on earlier batches only) on this batch's schedules
    std::vector<double> predicted, measuredMs; // this batch's measured schedules, for the scatter
};

struct AppResult {
    std::string app;
    PickResult v100, tuned;
    RatioEstimate speedup; // v100 median / tuned median: > 1 means the fine-tuned pick runs faster
    std::vector<LoopBatch> loop;
    double loopBestMs = NAN;
    RankFigures v100Ranks, tunedRanks; // on the app's own samples (neither file trained on them)
    size_t fineTuneSchedules = 0;      // schedules the fine-tune trained on (other apps and random pipelines)

    // As report.json's "apps" entries (and the study's picks/<app>.json) hold it.
    Json toJson() const;
    // Empty optional with `error` set ("field 'app': expected a string") when the app is not named.
    static std::optional<AppResult> fromJson(const Json &json, std::string &error);
};

// A generated schedule that did not run as it should.
struct FailedSchedule {
    std::string pipeline;
    int batch = 0, index = 0;
    std::string status; // "hang", "crash", "wrong_output", ...
    std::string message;
};

struct StudyReport {
    Json parameters; // study.json's
    std::string device, command;
    std::vector<AppResult> apps;
    RatioEstimate geomeanSpeedup;  // over apps with both picks measured
    RatioEstimate geomeanLoopGain; // v100 pick / the loop's best, same apps
    size_t appsMeasured = 0;
    std::vector<FailedSchedule> failures;
    std::map<std::string, int> scheduleCounts; // status -> generated schedules
    double wallSeconds = 0;

    Json toJson() const;
    static std::optional<StudyReport> fromJson(const Json &json, std::string &error);
};

// Geomean figures from the apps (fills geomeanSpeedup, geomeanLoopGain, appsMeasured).
void summarize(StudyReport &report);

// The bar: fine-tuned picks at least this much faster in geomean.
inline constexpr double kTargetSpeedup = 1.2;

// Why an app's speedup is what it is, in a phrase a reader can check against the
// tables: the pick that failed; a ratio whose interval holds 1x (the device's
// noise over the rounds cannot tell the picks apart); a fine-tune that did not
// order the app's samples better (Spearman before and after, and how many
// schedules it trained on); or a clear gain or loss.
std::string speedupReason(const AppResult &app);

// The report as Markdown: the table, the geomean with its interval, the loop,
// the rank figures, the failures, the command; plots referenced from plots/.
std::string reportMarkdown(const StudyReport &report);

// A folder a device study wrote (its study.json and report.json are there): the
// explorer opens it as a study, not as a folder of samples.
bool isStudyFolder(const std::filesystem::path &folder);

// report.json under a study folder, read back; error names the file and field.
std::optional<StudyReport> readStudyReport(const std::filesystem::path &folder, std::string &error);

} // namespace beamscope::study
