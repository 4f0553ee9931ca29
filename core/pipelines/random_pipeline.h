#pragma once
// Seeded random pipelines for training data and tests: a chain/DAG of stencils,
// pointwise ops, casts, reductions, down/upsampling and lookups, with estimates
// on the input and output. The same (seed, stages) always gives the same pipeline.

#include "core/pipelines/pipeline.h"

#include <cstdint>

namespace beamscope::pipelines {

PipelineInstance randomPipeline(uint64_t seed, int stages);

// "random_<seed>_<stages>"
std::string randomPipelineName(uint64_t seed, int stages);
// Parses "random_<seed>_<stages>"; nothing when the name has another form.
std::optional<std::pair<uint64_t, int>> parseRandomPipelineName(const std::string &name);

} // namespace beamscope::pipelines
