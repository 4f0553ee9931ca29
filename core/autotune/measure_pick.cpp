#include "core/autotune/measure_pick.h"

#include "core/model/cost_model_file.h"
#include "core/bench/isolated_compile.h"
#include "core/pipelines/random_pipeline.h"
#include "core/schedule/apply_schedule.h"
#include "core/search/autoschedule.h"
#include "core/search/device_limits.h"
#include "core/weights/weights.h"

namespace beamscope::autotune {

CompiledPick compilePick(const std::string &pipeline, const std::filesystem::path &weightsPath,
                         const PickOptions &options)
{
    CompiledPick out;
    std::function<pipelines::PipelineInstance()> build;
    if (auto info = pipelines::findPipeline(pipeline)) {
        build = info->build;
    } else if (auto random = pipelines::parseRandomPipelineName(pipeline)) {
        build = [random] { return pipelines::randomPipeline(random->first, random->second); };
    } else {
        out.error = "'" + pipeline + "' is neither a built-in pipeline nor random_<seed>_<stages>";
        return out;
    }
    const std::unique_ptr<model::CostModel> loaded = model::loadCostModel(weightsPath, out.error);
    if (!loaded)
        return out;
    try {
        const model::CostModel &model = *loaded;
        pipelines::PipelineInstance instance = build();
        search::AutoscheduleParams params;
        params.beamSize = options.beamSize;
        params.device = search::featureParamsFor(options.device);
        const search::AutoscheduleOutcome outcome =
            search::autoschedule(pipeline, instance.outputs, model, params, nullptr, nullptr);
        out.searchSeconds = outcome.result.searchSeconds;
        if (!outcome.result.best) {
            out.error = "no complete schedule: " + outcome.result.failure;
            return out;
        }
        out.predictedCost = outcome.result.cost;
        const search::State *state = &*outcome.result.best;
        Halide::Target target = bench::benchTarget(options.target, options.cudaCapability);
        if (options.target == bench::TargetKind::OpenCL)
            target = target.with_feature(Halide::Target::CLDoubles);
        bench::IsolatedCompileOptions compile;
        compile.compile.cacheDir = options.cacheDir;
        compile.timeoutSeconds = options.compileTimeoutSeconds;
        const bench::Schedule schedule =
            bench::Schedule::custom("pick", [state](pipelines::PipelineInstance &p, const Halide::Target &) {
                schedule::applySchedule(*state, p.outputs);
            });
        const std::vector<bench::CompiledLibrary> built =
            bench::compileIsolated({{build, schedule, target, {}, {}}}, compile);
        if (!built.front().ok) {
            out.error = built.front().error;
            return out;
        }
        out.library = built.front();
        out.ok = true;
    } catch (const std::exception &e) {
        out.error = e.what();
    }
    return out;
}

PickMeasurement measurePick(const std::string &pipeline, const std::filesystem::path &weightsPath,
                            const PickOptions &options)
{
    PickMeasurement out;
    const CompiledPick pick = compilePick(pipeline, weightsPath, options);
    out.predictedCost = pick.predictedCost;
    out.searchSeconds = pick.searchSeconds;
    if (!pick.ok) {
        out.error = pick.error;
        return out;
    }
    const bench::Measurement m = bench::measure(pick.library, nullptr, options.run);
    if (!m.ok) {
        out.error = m.message;
        return out;
    }
    out.ok = true;
    out.runtimeMs = m.minMs;
    return out;
}

} // namespace beamscope::autotune
