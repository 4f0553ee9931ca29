#pragma once
// Compile-and-measure in one call: candidates and their host references are
// compiled in parallel, then measured one at a time (runs on one device never
// overlap, so they don't disturb each other's timings).

#include "core/bench/compile.h"
#include "core/bench/measurement.h"

#include <functional>
#include <vector>

namespace beamscope {
class Progress;
}

namespace beamscope::bench {

struct BenchRequest {
    std::function<pipelines::PipelineInstance()> build;
    Schedule schedule;
    Halide::Target target;
    // The correctness reference: by default the same pipeline, every stage
    // compute_root, on the host. `referenceBuild` swaps in another algorithm.
    bool checkOutput = true;
    std::function<pipelines::PipelineInstance()> referenceBuild;
    std::vector<std::filesystem::path> extraSources;
    std::vector<std::string> extraCompilerFlags;
    // Compile the candidate and the reference with strict_float, so that the
    // comparison is exact but for the device's math library (float_check.h);
    // the timings are then those of the strict build.
    bool strictFloat = false;
};

std::vector<Measurement> benchmarkAll(const std::vector<BenchRequest> &requests, const CompileOptions &compile,
                                      const RunOptions &run, Progress *progress = nullptr);

Measurement benchmark(const BenchRequest &request, const CompileOptions &compile, const RunOptions &run,
                      Progress *progress = nullptr);

} // namespace beamscope::bench
