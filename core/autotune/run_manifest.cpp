// What a run folder's manifest says of a run: its target and device, the
// parameters a resumed run must share, each batch's summary, pipeline ids.

#include "core/autotune/autotune.h"

#include "core/util/child_process.h"
#include "core/util/sha256.h"

#include <cmath>

namespace beamscope::autotune {

Halide::Target compileTarget(const AutotuneOptions &o)
{
    Halide::Target t = bench::benchTarget(o.target, o.cudaCapability);
    // Some pipelines compute in double (select_cast); PoCL has doubles.
    return o.target == bench::TargetKind::OpenCL ? t.with_feature(Halide::Target::CLDoubles) : t;
}

Json BatchSummary::toJson() const
{
    Json j = Json::object();
    j["batch"] = batch;
    Json c = Json::object();
    for (const auto &[k, v] : counts)
        c[k] = v;
    j["counts"] = c;
    Json b = Json::object();
    for (const auto &[k, v] : bestMs)
        b[k] = v;
    j["best_ms"] = b;
    j["search_seconds"] = searchSeconds;
    j["compile_seconds"] = compileSeconds;
    j["measure_seconds"] = measureSeconds;
    Json t = Json::object();
    t["retrained"] = retrained;
    t["seconds"] = trainSeconds;
    if (!trainingNote.empty())
        t["note"] = trainingNote;
    if (retrained) {
        t["training_loss_before"] = before.trainingLoss;
        t["training_loss_after"] = after.trainingLoss;
        if (std::isfinite(before.validationLoss))
            t["validation_loss_before"] = before.validationLoss;
        if (std::isfinite(after.validationLoss))
            t["validation_loss_after"] = after.validationLoss;
        t["epochs"] = after.epoch;
    }
    j["training"] = t;
    return j;
}

Json describeTarget(const AutotuneOptions &o)
{
    Json d = Json::object();
    d["target"] = compileTarget(o).to_string();
    d["kind"] = bench::targetKindName(o.target);
    d["search_profile"] = o.deviceSource;
    d["search_device"] = o.device.name;
    d["search_sm_count"] = o.device.smCount;
    if (o.target == bench::TargetKind::Cuda) {
        const gpu::LocalDeviceQuery q = gpu::queryLocalDevice();
        d["status"] = q.status;
        if (q.device) {
            d["name"] = q.device->name;
            d["compute_capability"] =
                std::to_string(q.device->computeMajor) + "." + std::to_string(q.device->computeMinor);
            d["sm_count"] = q.device->smCount;
        }
        d["driver_version"] = q.driverVersion;
        d["runtime_version"] = q.runtimeVersion;
        d["times"] = "GPU kernel times on the local NVIDIA device";
    } else {
        const std::filesystem::path worker = o.run.worker.empty() ? bench::defaultWorkerPath() : o.run.worker;
        const ChildResult r = runChild({worker.string(), "--describe-opencl"}, 30);
        const JsonParseResult parsed = parseJson(r.out);
        if (parsed.value)
            d["opencl"] = *parsed.value;
        else
            d["opencl_error"] = "the bench worker did not describe the OpenCL device: " + r.startError + r.err;
        d["times"] = o.target == bench::TargetKind::OpenCL
                         ? "OpenCL device times (PoCL's CPU device where there is no GPU)"
                         : "host CPU times";
    }
    return d;
}

Json runParameters(const AutotuneOptions &o)
{
    Json p = Json::object();
    Json names = Json::array();
    for (const PipelineSpec &s : o.pipelines)
        names.push(s.name + " = " + s.source);
    p["pipelines"] = names;
    p["target"] = compileTarget(o).to_string();
    p["search_device"] = o.device.name + " (" + std::to_string(o.device.smCount) + " SMs)";
    p["batch_size"] = o.batchSize;
    p["seed"] = std::to_string(o.seed);
    p["first_beam_size"] = o.firstBeamSize;
    p["other_beam_size"] = o.otherBeamSize;
    p["other_random_dropout"] = o.otherDropout;
    p["randomize_tilings"] = o.randomizeTilings;
    p["freeze_inline_compute_root"] = o.freezeInlineComputeRoot;
    p["search_space_options"] = o.searchSpaceOptions;
    p["retrain"] = o.retrain;
    p["epochs"] = o.epochs;
    p["learning_rate"] = static_cast<double>(o.learningRate);
    p["min_batch"] = static_cast<int64_t>(o.minBatch);
    p["benchmark_reps"] = o.run.reps;
    p["benchmark_warmup"] = o.run.warmup;
    p["benchmark_scale"] = o.run.scale;
    p["starting_weights_sha256"] = sha256FileHex(o.weightsPath).value_or("unreadable");
    return p;
}

int32_t pipelineIdFor(const std::string &name)
{
    uint32_t h = 2166136261u;
    for (unsigned char c : name) {
        h ^= c;
        h *= 16777619u;
    }
    const int32_t id = static_cast<int32_t>(h & 0x7fffffffu);
    return id == 0 ? 1 : id;
}

} // namespace beamscope::autotune
