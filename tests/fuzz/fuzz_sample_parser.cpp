// libFuzzer target for .sample files (core/samples/sample.cpp): bytes of size
// 1440·S + 12 (S >= 1) give a sample that serializes back to exactly them,
// anything else an error naming the file; the hashes and the plausibility
// check read any sample without trouble.

#include "core/samples/dataset.h"
#include "core/samples/sample.h"
#include "tests/fuzz/fuzz_support.h"

#include <cstring>

using namespace beamscope::samples;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    constexpr const char *target = "fuzz_sample_parser";
    const std::span<const char> bytes(reinterpret_cast<const char *>(data), size);
    const SampleReadResult r = parseSample(bytes, "fuzz.sample");
    const bool wellSized =
        size >= static_cast<size_t>(kStageBytes + kTrailerBytes) && (size - kTrailerBytes) % kStageBytes == 0;
    if (r.ok() != wellSized)
        beamscope::fuzz::fail(target, "accepted or refused against the size rule");
    if (!r.ok()) {
        if (r.error.rfind("fuzz.sample: ", 0) != 0)
            beamscope::fuzz::fail(target, "an error that does not name the file");
        return 0;
    }
    const Sample &s = *r.sample;
    const auto again = serializeSample(s);
    if (again.size() != size || std::memcmp(again.data(), data, size) != 0)
        beamscope::fuzz::fail(target, "a sample that does not serialize back to its bytes");
    if (static_cast<size_t>(s.stageCount()) * kStageBytes + kTrailerBytes != size)
        beamscope::fuzz::fail(target, "stage count disagrees with the size");
    (void)scheduleHash(s);
    (void)pipelineHash(s);
    if (pipelineFeaturesInTrainerOrder(s).size() != static_cast<size_t>(s.stageCount()) * kPipelineFeatureCount)
        beamscope::fuzz::fail(target, "pipeline features of the wrong count");
    (void)implausibility(s);
    return 0;
}
