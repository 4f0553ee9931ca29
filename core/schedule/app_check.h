#pragma once
// The end-to-end check of built-in apps: each is autoscheduled, its schedule
// emitted as source, compiled for CUDA (PTX; no GPU needed) and run on OpenCL
// through the bench worker against the host reference. Used by
// `beamscope-cli check-apps` and tests/schedule.
//
// The OpenCL run is a strict_float comparison (core/bench/float_check.h):
// exact, but for pipelines calling the device's math library, where one unit
// in under 1% of the values is accepted and reported as such.

#include "core/bench/benchmark.h"
#include "core/gpu/device_facts.h"
#include "core/model/cost_model.h"
#include "core/pipelines/pipeline.h"
#include "core/search/autoschedule_params.h"
#include "core/search/featurizer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace beamscope {
class Progress;
}

namespace beamscope::schedule {

struct AppCheckOptions {
    search::AutoscheduleParams params; // beam, passes, seed and the device limits (search::featureParamsFor)
    int cudaCapability = 70;           // the PTX the CUDA compilation generates
    bool runOpenCL = true;
    bench::CompileOptions compile;
    bench::RunOptions run;
};

struct AppCheck {
    std::string app;
    std::string error; // the search failed or threw (nothing after it ran)
    double searchSeconds = 0;
    int64_t statesEvaluated = 0;
    double predictedCost = 0;
    std::string source;                 // emitted schedule
    std::vector<std::string> mathCalls; // float_check.h's inexactMathCalls
    bench::CompiledLibrary cuda;
    bench::Measurement opencl; // untouched when runOpenCL is false
    // Set when the first OpenCL run crashed inside PoCL's kernel and the
    // measurement is a rerun with POCL_WORK_GROUP_METHOD=cbs (app_check.cpp).
    std::string openclNote;

    bool searched() const { return error.empty(); }
    // The OpenCL run went to its end but its output differs from the host reference where the
    // pipeline calls an approximate reciprocal (bench::callsApproximateReciprocal): not compared.
    bool outputNotComparable() const;
    bool passed(bool runOpenCL) const
    {
        return searched() && cuda.ok && (!runOpenCL || opencl.ok || outputNotComparable());
    }
};

// Searches the apps one after another, then compiles all CUDA builds in
// parallel (options.compile.jobs), then compiles and runs the OpenCL builds.
// Never throws for a pipeline's failure: each row says what failed.
std::vector<AppCheck> checkApps(const std::vector<pipelines::PipelineInfo> &apps, const model::CostModel &model,
                                const AppCheckOptions &options, Progress *progress = nullptr);

} // namespace beamscope::schedule
