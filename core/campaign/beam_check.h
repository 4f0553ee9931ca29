#pragma once
// Whether a pipeline's searched schedules are correct: the pipeline is
// searched, the winner and other complete states of the final beam are turned
// into Halide schedules, each is compiled for OpenCL (and, when asked, CUDA
// PTX: compiling needs no GPU) and run on the local OpenCL device against a
// host reference with strict_float (exact but for the device's math library,
// core/bench/float_check.h). Every schedule gets one outcome class.
//
// The one check behind `beamscope-cli campaign` and the corpus test.

#include "core/bench/measurement.h"
#include "core/model/cost_model.h"
#include "core/pipelines/pipeline.h"
#include "core/search/autoschedule_params.h"
#include "core/util/json.h"

#include <functional>
#include <string>
#include <vector>

namespace beamscope {
class Progress;
}

namespace beamscope::campaign {

// What became of a pipeline or of one of its schedules, worst last.
enum class Outcome {
    Correct,       // ran on the device and matched the host reference
    NoSchedule,    // the search found no complete schedule (its cause named)
    Refused,       // Halide 14 refused the pipeline or the schedule (its message named)
    BeyondBound,   // past a time or memory bound (compile or run), not a hang of ours
    Crash,         // a compiler or the run died from a signal
    Hang,          // the run never finished within its limit
    WrongOutput,   // ran, and differs from the host reference
    InternalError, // Beamscope itself failed (an exception where none belongs)
};
const char *outcomeName(Outcome outcome); // "correct", "no-schedule", ...
std::optional<Outcome> outcomeFromName(const std::string &name);
// A failure is anything but Correct, NoSchedule and Refused (which are honest answers).
bool isDefect(Outcome outcome);

struct ScheduleCheck {
    int rank = 0; // in the final beam, by predicted cost (0: the winner)
    double predictedCost = 0;
    Outcome outcome = Outcome::Correct;
    std::string message;
    bool cudaCompiled = false; // also compiled for CUDA (PTX)
    std::string cudaError;     // the CUDA compile's failure, if any (counted as Refused or Crash)
    double compileSeconds = 0, runSeconds = 0;
    double mismatches = 0, values = 0;
    std::string loopNest; // the state's loop nest as Halide dumps it (campaign --loop-nest replays it)
    Json toJson() const;
};

struct PipelineCheck {
    std::string pipeline;
    std::string source; // how to rebuild it: "random seed 7", "generator LIB NAME"
    std::vector<std::string> stageKinds;
    int stages = 0;
    Outcome outcome = Outcome::Correct; // the worst of its schedules (or of the search)
    std::string message;                // the search's or the build's failure
    double searchSeconds = 0, checkSeconds = 0;
    double peakSearchMiB = 0; // the resident peak while searching (this process)
    std::vector<ScheduleCheck> schedules;
    Json toJson() const;
    static std::optional<PipelineCheck> fromJson(const Json &json, std::string *error);
};

struct BeamCheckOptions {
    search::AutoscheduleParams search; // beam size, passes, device limits
    int schedules = 4;                 // the winner and up to this many - 1 more of the final beam
    int cudaSchedules = -1;            // the first this many are also compiled for CUDA (PTX), not run; -1: all
    double compileTimeoutSeconds = 120;
    bench::RunOptions run; // reps, warm-up, time limit, scale
    std::filesystem::path cacheDir;
    int jobs = 0;
    // Replay: search on from this loop-nest dump (a record's "loop_nest", or Halide's
    // own; Funcs a prefix of the scheduling order), so a complete one checks exactly it.
    std::string startLoopNest;
};

// The autotune loop's exploring search (autotune.h): beam 1, a few percent of
// the children kept at random, tilings sampled rather than taken in order. Its
// schedules are ones the plain beam search never reaches, so a campaign checks
// them too.
struct ExploringSearch {
    uint64_t seed = 0;      // the dropout seed; 0: the campaign's own beam search
    int dropoutPercent = 1; // children kept per decision
};

struct PipelineToCheck {
    std::string name, source;
    std::vector<std::string> stageKinds;
    std::function<pipelines::PipelineInstance()> build;
    ExploringSearch exploring = {};
};

// The campaign's entries for `base` searched by the autotune loop's exploring
// search with seeds first..first+count-1, each named "<name>@dropout<seed>". An
// autotune record's schedule_id (under autotune's --seed 0) replays that
// record's search, given the weights it was searched with.
std::vector<PipelineToCheck> exploringChecksOf(const PipelineToCheck &base, int count, int dropoutPercent,
                                               uint64_t firstSeed = 1);

PipelineCheck checkPipeline(const PipelineToCheck &pipeline, const model::CostModel &model,
                            const BeamCheckOptions &options, Progress *progress = nullptr);

} // namespace beamscope::campaign
