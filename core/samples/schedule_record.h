#pragma once
// One attempted schedule of an autotune run: what was searched, what happened
// to it, and where its files are. Written as <sid>.json beside the sample
// (the last file of a schedule to be written, so its presence means the
// schedule is finished), and gathered into records.tsv after every batch.

#include "core/util/json.h"

#include <cstdint>
#include <optional>
#include <string>

namespace beamscope::samples {

enum class Status {
    Ok,             // measured; a .sample was written
    Duplicate,      // same schedule features as a schedule measured before: not compiled again
    SearchFailed,   // the search threw or found no complete schedule
    CompileFailed,  // Halide, LLVM or the C compiler refused (or crashed)
    CompileTimeout, // killed at the compile time limit
    Crash,          // the benchmark died from a signal
    Hang,           // killed at the benchmark time limit
    WrongOutput,    // ran, but the output differs from the host reference
    RunFailed,      // any other failure to run (pipeline error, bad exit, worker missing)
};
const char *statusName(Status status); // "ok", "duplicate", "search_failed", ...
std::optional<Status> parseStatus(const std::string &name);
constexpr int kStatusCount = 9;

struct ScheduleRecord {
    std::string pipeline;
    int32_t pipelineId = 0;
    int batch = 0;
    int index = 0;          // within the batch: 0 is the beam search, the rest dropout samples
    int32_t scheduleId = 0; // batch·10000 + index, Halide's "%04d%04d"
    uint64_t dropoutSeed = 0;
    int beamSize = 0;
    int randomDropout = 100;
    double predictedCost = 0;
    uint64_t scheduleHash = 0; // samples::scheduleHash of the features (hex in JSON)
    Status status = Status::Ok;
    std::string message;      // for failures: what happened, in words
    int32_t duplicateOf = -1; // Duplicate: the schedule id measured first
    bool checked = false;     // output compared with the host reference
    double runtimeMs = 0;     // the best of the timed runs (what the sample stores)
    double medianMs = 0;
    int runs = 0;
    double searchSeconds = 0, compileSeconds = 0, measureSeconds = 0;
    bool cacheHit = false;

    Json toJson() const;
    // Empty optional and error set when a field is missing or malformed.
    static std::optional<ScheduleRecord> fromJson(const Json &json, std::string *error);
};

// Halide's "%04d%04d" of batch and sample index, as a number.
int32_t scheduleIdFor(int batch, int index);

// The header line and one tab-separated line of records.tsv.
std::string recordTsvHeader();
std::string recordTsvLine(const ScheduleRecord &record);

} // namespace beamscope::samples
