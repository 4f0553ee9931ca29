#pragma once
// One measurement of a compiled pipeline, made by beamscope-bench-worker in a
// separate process. Whatever happens to the worker (crash, hang, wrong
// output, bad exit), the caller gets a record saying so, never a crash.

#include "core/bench/compile.h"
#include "core/util/json.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace beamscope {
class Progress;
}

namespace beamscope::bench {

enum class Failure {
    None,
    Compile,       // Halide or the linker refused
    WorkerMissing, // beamscope-bench-worker could not be started
    Crash,         // the worker died from a signal
    Timeout,       // the worker ran past the limit and was killed
    WrongOutput,   // ran, but the output differs from the reference
    PipelineError, // the pipeline returned a Halide error (bad bounds, device failure, ...)
    BadExit,       // any other non-zero exit (could not load, could not set up)
    BadReport,     // exited 0 without a readable result line
    Cancelled,
};
const char *failureName(Failure failure); // "crash", "timeout", ...

struct Measurement {
    std::string pipeline, schedule, target;
    bool ok = false; // timed and (when checked) matched the reference
    Failure failure = Failure::None;
    std::string message; // for failures: what happened, in words

    double compileSeconds = 0;
    bool cacheHit = false;
    std::vector<double> timesMs;
    double minMs = 0, medianMs = 0;

    bool checked = false; // compared with a reference
    bool matches = false;
    double mismatches = 0, values = 0, maxAbsError = 0, maxRelError = 0;
    std::string firstMismatch;
    std::string referenceTarget;
    bool strictFloat = false; // both builds compiled with strict_float (float_check.h)
    // Set when the output differs but within the device math library's
    // tolerance (float_check.h): ok is then true and matches false.
    std::string tolerance;
    Json outputs; // [{name, type, extents}] as the worker saw them

    std::string workerLog; // the tail of the worker's stderr

    Json toJson() const;
};

struct RunOptions {
    int reps = 10;
    int warmup = 1;
    double scale = 1.0; // output extents are the estimates times this
    uint64_t seed = 1;
    double timeoutSeconds = 120;
    std::filesystem::path worker; // empty: defaultWorkerPath()
    // Test-only: makes the worker "crash", "hang" or give a "wrong-output"
    // (its --inject-fault), so callers' failure handling can be exercised.
    std::string injectFault;
};

// $BEAMSCOPE_BENCH_WORKER, else beamscope-bench-worker next to the running
// executable, else in ../app from it (the build tree's layout for tests), else
// in ../libexec/beamscope (an installed Beamscope).
std::filesystem::path defaultWorkerPath();

// Runs candidate in the worker, comparing with reference when given.
Measurement measure(const CompiledLibrary &candidate, const CompiledLibrary *reference, const RunOptions &options,
                    const Progress *progress = nullptr);

} // namespace beamscope::bench
