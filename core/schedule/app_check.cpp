#include "core/schedule/app_check.h"

#include "core/search/device_limits.h"

#include "core/bench/float_check.h"
#include "core/bench/targets.h"
#include "core/gpu/search_parameters.h"
#include "core/schedule/apply_schedule.h"
#include "core/schedule/emit_source.h"
#include "core/search/autoschedule.h"
#include "core/util/progress.h"

#include <cstdlib>
#include <memory>

namespace beamscope::schedule {

namespace {

// What a schedule function needs after the search: the state refers to the
// DAG its outcome owns, and that DAG to the instance's Funcs.
struct Searched {
    pipelines::PipelineInstance instance;
    search::AutoscheduleOutcome outcome;
};

// PoCL 3.1 segfaulted inside its own compiled work-group function for
// nl_means's beam-32 schedule (a 1,024-work-item kernel with barriers in
// unrolled loops around a __local Func); the same library with
// POCL_WORK_GROUP_METHOD=cbs (which PoCL 3.1 does not know: it says so and
// uses its 'auto' method) ran and matched the host reference exactly. So a
// crash is retried once that way, and the row says so. Only crashes are
// retried; a wrong output never is. Not a proof that the schedule is
// innocent: local_laplacian's beam-32 schedule crashes either way (open).
std::vector<bench::Measurement> rerunWithCbs(const std::vector<bench::BenchRequest> &requests,
                                             const bench::CompileOptions &compile, const bench::RunOptions &run)
{
    const char *previous = std::getenv("POCL_WORK_GROUP_METHOD");
    const std::string saved = previous ? previous : "";
    ::setenv("POCL_WORK_GROUP_METHOD", "cbs", 1); // the worker inherits it; runs are sequential here
    std::vector<bench::Measurement> out = bench::benchmarkAll(requests, compile, run);
    if (previous)
        ::setenv("POCL_WORK_GROUP_METHOD", saved.c_str(), 1);
    else
        ::unsetenv("POCL_WORK_GROUP_METHOD");
    return out;
}

} // namespace

bool AppCheck::outputNotComparable() const
{
    return cuda.ok && opencl.failure == bench::Failure::WrongOutput && opencl.checked &&
           bench::callsApproximateReciprocal(mathCalls);
}

std::vector<AppCheck> checkApps(const std::vector<pipelines::PipelineInfo> &apps, const model::CostModel &model,
                                const AppCheckOptions &options, Progress *progress)
{
    std::vector<AppCheck> rows(apps.size());
    std::vector<std::unique_ptr<Searched>> searched(apps.size());
    std::vector<bench::Schedule> schedules(apps.size());
    const double steps = static_cast<double>(apps.size()) + 2;

    for (size_t i = 0; i < apps.size(); i++) {
        AppCheck &row = rows[i];
        row.app = apps[i].name;
        if (progress) {
            if (progress->cancelled()) {
                row.error = "cancelled";
                continue;
            }
            progress->report(static_cast<double>(i) / steps, "searching " + row.app);
        }
        try {
            auto s = std::make_unique<Searched>();
            s->instance = apps[i].build();
            row.mathCalls = bench::inexactMathCalls(s->instance.outputs);
            s->outcome = search::autoschedule(row.app, s->instance.outputs, model, options.params, nullptr, nullptr);
            const search::SearchResult &r = s->outcome.result;
            row.searchSeconds = r.searchSeconds;
            row.statesEvaluated = r.statesEvaluated;
            row.predictedCost = r.cost;
            if (!r.best) {
                row.error = "no complete schedule: " + r.failure;
                continue;
            }
            EmitOptions emit;
            emit.pipeline = row.app;
            emit.stageCosts = &r.stageCosts;
            emit.totalCost = r.cost;
            row.source = emitSource(*r.best, s->instance.outputs, emit);
            const search::State *state = &*r.best;
            schedules[i] =
                bench::Schedule::custom("beamscope", [state](pipelines::PipelineInstance &p, const Halide::Target &) {
                    applySchedule(*state, p.outputs);
                });
            searched[i] = std::move(s);
        } catch (const Halide::Error &e) {
            row.error = std::string("Halide: ") + e.what();
        } catch (const std::exception &e) {
            row.error = e.what();
        }
    }

    std::vector<size_t> ok;
    for (size_t i = 0; i < apps.size(); i++)
        if (rows[i].searched())
            ok.push_back(i);

    if (progress)
        progress->report(static_cast<double>(apps.size()) / steps, "compiling for CUDA");
    std::vector<bench::CompileRequest> cuda;
    const Halide::Target cudaTarget = bench::benchTarget(bench::TargetKind::Cuda, options.cudaCapability);
    for (size_t i : ok)
        cuda.push_back({apps[i].build, schedules[i], cudaTarget, {}, {}});
    const std::vector<bench::CompiledLibrary> cudaBuilt = bench::compileAll(cuda, options.compile);
    for (size_t k = 0; k < ok.size(); k++)
        rows[ok[k]].cuda = cudaBuilt[k];

    if (options.runOpenCL && !ok.empty()) {
        if (progress)
            progress->report((static_cast<double>(apps.size()) + 1) / steps, "compiling and running on OpenCL");
        std::vector<bench::BenchRequest> requests;
        for (size_t i : ok) {
            bench::BenchRequest r;
            r.build = apps[i].build;
            r.schedule = schedules[i];
            // CLDoubles: some apps (select_cast) compute in double; PoCL has them.
            r.target = bench::benchTarget(bench::TargetKind::OpenCL, 0).with_feature(Halide::Target::CLDoubles);
            r.strictFloat = true;
            requests.push_back(std::move(r));
        }
        const std::vector<bench::Measurement> ran = bench::benchmarkAll(requests, options.compile, options.run);
        std::vector<size_t> crashed;
        std::vector<bench::BenchRequest> retry;
        for (size_t k = 0; k < ok.size(); k++) {
            rows[ok[k]].opencl = ran[k];
            if (ran[k].failure == bench::Failure::Crash) {
                crashed.push_back(ok[k]);
                retry.push_back(requests[k]);
            }
        }
        const std::vector<bench::Measurement> again =
            retry.empty() ? std::vector<bench::Measurement>{} : rerunWithCbs(retry, options.compile, options.run);
        for (size_t k = 0; k < crashed.size(); k++) {
            AppCheck &row = rows[crashed[k]];
            row.openclNote =
                "the first run crashed in PoCL (" + row.opencl.message +
                "); rerun with POCL_WORK_GROUP_METHOD=cbs: " + (again[k].ok ? std::string("ok") : again[k].message);
            row.opencl = again[k];
        }
    }
    if (progress)
        progress->report(1.0, "checked " + std::to_string(apps.size()) + " apps");
    return rows;
}

} // namespace beamscope::schedule
