#pragma once
// The pieces builtinPipelines() is assembled from (one file each), and a
// helper that turns a pipeline's ImageParams / Params into its arguments.

#include "core/pipelines/pipeline.h"

namespace beamscope::pipelines {

std::vector<PipelineInfo> goldenPipelines(); // shared/golden/pipelines/PIPELINES.md, exactly
std::vector<PipelineInfo> appPipelines();    // the 16 apps named by Halide's per-app weights

// An ImageParam or Param, seen as an Argument plus the Parameter behind it.
struct PipelineInput {
    Halide::Argument argument;
    Halide::Internal::Parameter parameter;
    PipelineInput(const Halide::ImageParam &p) : argument(p), parameter(p.parameter()) {}
    template <typename T>
    PipelineInput(const Halide::Param<T> &p) : argument(p), parameter(p.parameter())
    {}
};

inline PipelineInstance makeInstance(std::string name, std::vector<Halide::Func> outputs,
                                     std::vector<PipelineInput> inputs,
                                     std::function<void(const Halide::Target &)> gpuSchedule)
{
    PipelineInstance p;
    p.name = std::move(name);
    p.outputs = std::move(outputs);
    for (const PipelineInput &in : inputs) {
        p.arguments.push_back(in.argument);
        p.parameters.push_back(in.parameter);
    }
    p.applyGpuSchedule = std::move(gpuSchedule);
    return p;
}

} // namespace beamscope::pipelines
