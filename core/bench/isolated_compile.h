#pragma once
// Compilations that cannot take the caller down or hold it up: each request is
// compiled in a forked child process with a time limit, as Halide's autotune
// scripts run every compilation under `timeout`. A schedule that makes Halide
// or LLVM crash, loop or exhaust memory costs that one library, not the run.
//
// fork() without exec: the child only builds the pipeline, runs Halide's
// compiler and the C compiler (core/bench/compile.h), and writes its result to
// a pipe. Call it from a thread that owns the Halide objects the requests use
// while no other thread is inside Halide (the autotune loop does: its search
// has finished before it compiles).

#include "core/bench/compile.h"

#include <vector>

namespace beamscope {
class Progress;
}

namespace beamscope::bench {

struct IsolatedCompileOptions {
    CompileOptions compile;      // cache, compiler; jobs = children at once (0: one per hardware thread)
    double timeoutSeconds = 600; // per library; <= 0: none
};

// Results in request order. A child killed for its time limit comes back with
// timedOut set; one that crashed names its signal in error.
std::vector<CompiledLibrary> compileIsolated(const std::vector<CompileRequest> &requests,
                                             const IsolatedCompileOptions &options, Progress *progress = nullptr);

} // namespace beamscope::bench
