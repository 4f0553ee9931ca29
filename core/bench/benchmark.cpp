#include "core/bench/benchmark.h"

#include "core/bench/float_check.h"
#include "core/pipelines/host_target.h"
#include "core/util/progress.h"

#include <cstdio>

namespace beamscope::bench {

namespace {

// A strict_float comparison that differs only as the device's math library
// may (float_check.h) is accepted, saying so.
void acceptWithinMathTolerance(Measurement &m, const BenchRequest &request)
{
    std::vector<std::string> calls;
    try {
        calls = inexactMathCalls(request.build().outputs);
    } catch (const std::exception &) {
        return; // the build already succeeded once; leave the failure as it is
    }
    if (!withinMathLibraryTolerance(m, calls))
        return;
    std::string names;
    for (const std::string &c : calls)
        names += (names.empty() ? "" : ", ") + c;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%.0f of %.0f values differ by at most %.0f unit", m.mismatches, m.values,
                  m.maxAbsError);
    m.tolerance = std::string(buf) + ", within the device math library's precision (the pipeline calls " + names +
                  ", which OpenCL does not require to be correctly rounded)";
    m.ok = true;
    m.failure = Failure::None;
    m.message.clear();
}

} // namespace

std::vector<Measurement> benchmarkAll(const std::vector<BenchRequest> &requests, const CompileOptions &compile,
                                      const RunOptions &run, Progress *progress)
{
    // Candidates first, then references; referenceIndex[i] points into the same list.
    std::vector<CompileRequest> jobs;
    std::vector<size_t> referenceIndex(requests.size(), SIZE_MAX);
    auto targetOf = [](const BenchRequest &r, Halide::Target t) {
        return r.strictFloat ? t.with_feature(Halide::Target::StrictFloat) : t;
    };
    for (const auto &r : requests)
        jobs.push_back({r.build, r.schedule, targetOf(r, r.target), r.extraSources, r.extraCompilerFlags});
    for (size_t i = 0; i < requests.size(); ++i) {
        const auto &r = requests[i];
        if (!r.checkOutput)
            continue;
        referenceIndex[i] = jobs.size();
        jobs.push_back({r.referenceBuild ? r.referenceBuild : r.build, Schedule::computeRoot(),
                        targetOf(r, pipelines::hostTarget()), r.extraSources, r.extraCompilerFlags});
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
        Measurement m = measure(compiled[i], reference, run, progress);
        m.strictFloat = m.checked && requests[i].strictFloat;
        if (m.strictFloat && m.failure == Failure::WrongOutput)
            acceptWithinMathTolerance(m, requests[i]);
        results.push_back(std::move(m));
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
