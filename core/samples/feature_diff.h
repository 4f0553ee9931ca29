#pragma once
// Where two featurizations of one pipeline differ, stage by stage: the
// schedule features, types_in_use flags and pipeline features of each stage
// record, held against each other's (e.g. Beamscope's `.featurization` of a
// loop nest beside Halide's own of the same loop nest).

#include "core/samples/sample.h"

#include <string>
#include <vector>

namespace beamscope::samples {

enum class RecordPart { Schedule, TypesInUse, Pipeline };

struct FeatureDifference {
    int stage = 0;
    RecordPart part = RecordPart::Schedule;
    int index = 0; // Schedule 0..72, TypesInUse 0..6, Pipeline row * 7 + type
    float a = 0, b = 0;
};

struct FeatureDiff {
    std::string error;                          // the stage counts differ: nothing else is compared
    std::vector<FeatureDifference> differences; // stage by stage, in record order
    bool ok() const { return error.empty(); }
};

// Values differ when |a - b| > relativeTolerance * max(|a|, |b|) (0: exactly;
// two NaNs are equal, as a featurization holds no NaN by meaning).
FeatureDiff diffFeatures(const Sample &a, const Sample &b, double relativeTolerance);

} // namespace beamscope::samples
