#include "core/gpu/opencl_query.h"

#include "core/util/bench_worker_path.h"
#include "core/util/child_process.h"
#include "core/util/json.h"

namespace beamscope::gpu {

OpenClQuery queryOpenClDevice()
{
    OpenClQuery q;
    const std::string worker = benchWorkerPath().string();
    const ChildResult r = runChild({worker, "--describe-opencl"}, 30);
    if (!r.started) {
        q.error = worker + ": " + r.startError;
        return q;
    }
    const JsonParseResult parsed = parseJson(r.out);
    if (!parsed.value || !parsed.value->isObject()) {
        q.error = worker + " --describe-opencl gave no description" + (r.err.empty() ? "" : ": " + r.err);
        return q;
    }
    const Json &j = *parsed.value;
    const auto text = [&](const char *key) { return j.find(key) ? j.find(key)->toString() : std::string(); };
    q.ok = j.find("ok") && j.find("ok")->toBool(false);
    if (!q.ok) {
        q.error = text("error");
        return q;
    }
    q.platform = text("platform");
    q.platformVersion = text("platform_version");
    q.device = text("device");
    q.deviceVersion = text("device_version");
    q.computeUnits = j.find("compute_units") ? static_cast<int>(j.find("compute_units")->toNumber(0)) : 0;
    return q;
}

} // namespace beamscope::gpu
