#pragma once
// The device limits the featurizer and the legality checks use, from a GPU's
// facts (core/gpu's search parameters, whose shared-memory sizes are in KB).

#include "core/gpu/device_facts.h"
#include "core/search/featurizer.h"

namespace beamscope::search {

FeatureParams featureParamsFor(const gpu::DeviceFacts &device);

} // namespace beamscope::search
