#include "core/pipelines/builtin_lists.h"

namespace beamscope::pipelines {
std::vector<PipelineInfo> appPipelines() { return {}; }
} // namespace beamscope::pipelines
