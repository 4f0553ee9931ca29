#include "core/bench/benchmark.h"

#include "core/pipelines/host_target.h"
#include "core/util/progress.h"

namespace beamscope::bench {

std::vector<Measurement> benchmarkAll(const std::vector<BenchRequest> &requests, const CompileOptions &compile,
                                      const RunOptions &run, Progress *progress)
{
    // Candidates first, then references; referenceIndex[i] points into the same list.
    std::vector<CompileRequest> jobs;
    std::vector<size_t> referenceIndex(requests.size(), SIZE_MAX);
    for (const auto &r : requests)
        jobs.push_back({r.build, r.schedule, r.target, r.extraSources, r.extraCompilerFlags});
    for (size_t i = 0; i < requests.size(); ++i) {
        const auto &r = requests[i];
        if (!r.checkOutput)
            continue;
        referenceIndex[i] = jobs.size();
        jobs.push_back({r.referenceBuild ? r.referenceBuild : r.build, Schedule::computeRoot(),
                        pipelines::hostTarget(), r.extraSources, r.extraCompilerFlags});
    }
    if (progress)
        progress->report(0, "compiling " + std::to_string(jobs.size()) + " libraries");
    const std::vector<CompiledLibrary> compiled = compileAll(jobs, compile, nullptr);

    std::vector<Measurement> results;
    for (size_t i = 0; i < requests.size(); ++i) {
        if (progress) {
            progress->report(static_cast<double>(i) / static_cast<double>(requests.size()),
                             "measuring " + compiled[i].pipeline + " (" + compiled[i].schedule + ")");
            if (progress->cancelled()) {
                Measurement m;
                m.pipeline = compiled[i].pipeline;
                m.schedule = compiled[i].schedule;
                m.target = compiled[i].target;
                m.failure = Failure::Cancelled;
                m.message = "cancelled before measuring";
                results.push_back(m);
                continue;
            }
        }
        const CompiledLibrary *reference = referenceIndex[i] == SIZE_MAX ? nullptr : &compiled[referenceIndex[i]];
        results.push_back(measure(compiled[i], reference, run, progress));
    }
    if (progress)
        progress->report(1, "measured " + std::to_string(requests.size()) + " pipelines");
    return results;
}

Measurement benchmark(const BenchRequest &request, const CompileOptions &compile, const RunOptions &run,
                      Progress *progress)
{
    return benchmarkAll({request}, compile, run, progress).front();
}

} // namespace beamscope::bench
