#pragma once
// One `.sample` file: Halide's featurization (S stage records of 360 float32)
// followed by runtime (ms, float32), pipeline id and schedule id (int32).
// There is no header: the stage count comes from the file size, which must be
// 1440·S + 12 bytes (HALIDE-FACTS.md "Samples"; golden/samples/README.md).

#include "core/util/atomic_file.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace beamscope::samples {

constexpr int kScheduleFeatureCount = 73; // ScheduleFeatures v3 (head2_w)
constexpr int kTypesInUseCount = 7;       // int types_in_use[7], skipped by the model
constexpr int kPipelineFeatureRows = 40;  // head1_w
constexpr int kPipelineFeatureTypes = 7;  // head1_h
constexpr int kPipelineFeatureCount = kPipelineFeatureRows * kPipelineFeatureTypes;
constexpr int kStageFloats = kScheduleFeatureCount + kTypesInUseCount + kPipelineFeatureCount; // 360
constexpr int kStageBytes = kStageFloats * 4;                                                  // 1440
constexpr int kTrailerBytes = 12; // runtime, pipeline id, schedule id

struct Sample {
    // S stage records, each kStageFloats floats: 73 schedule features, 7
    // types_in_use, then the 40×7 pipeline-feature matrix ([row][type]).
    std::vector<float> stages;
    float runtimeMs = 0;
    int32_t pipelineId = 0;
    int32_t scheduleId = 0;

    int stageCount() const { return static_cast<int>(stages.size() / kStageFloats); }
    std::span<const float> stageRecord(int stage) const;
    std::span<const float> scheduleFeatures(int stage) const; // 73 values
    std::span<const float> typesInUse(int stage) const;       // 7 values
    // The network's pipeline-feature input p(row, type), row < 40, type < 7.
    float pipelineFeature(int stage, int row, int type) const;
};

struct SampleReadResult {
    std::optional<Sample> sample;
    std::string error; // "<file>: size N bytes: expected 1440·S + 12 ..." when !sample
    bool ok() const { return sample.has_value(); }
};

// The cost model's layouts of a sample's features: [S][40][7] pipeline
// features and [S][73] schedule features, stage after stage.
std::vector<float> pipelineFeaturesOf(const Sample &sample);
std::vector<float> scheduleFeaturesOf(const Sample &sample);

// Parses a sample image; sourceName names the file in errors.
SampleReadResult parseSample(std::span<const char> bytes, const std::string &sourceName);
SampleReadResult readSample(const std::filesystem::path &path);

// A generator's `.featurization` (what `-e featurization` writes: the S stage
// records alone, 1440·S bytes, no trailer) or a `.sample`, told apart by size
// (1440·S + 12 is never a multiple of 1440). A featurization reads as a sample
// with a zero trailer.
SampleReadResult parseFeatures(std::span<const char> bytes, const std::string &sourceName);
SampleReadResult readFeatures(const std::filesystem::path &path);

// The exact bytes of a sample (bit-for-bit what Halide's featurization_to_sample writes).
std::vector<char> serializeSample(const Sample &sample);
WriteResult writeSample(const Sample &sample, const std::filesystem::path &path, Overwrite overwrite);

// The runtime Halide's featurization_to_sample stores for a runtime given in
// seconds: the double product seconds·1000 rounded to float.
float runtimeMsFromSeconds(double seconds);

// Halide's hash of float bit patterns (boost hash_combine), continuing from h.
uint64_t hashFloats(uint64_t h, std::span<const float> values);
// Hash of every stage's 73 schedule features, stage after stage (the key that
// dedupes schedules and orders them within a pipeline).
uint64_t scheduleHash(const Sample &sample);
// The 40×7×S pipeline features in the order Halide's trainer holds them in
// memory: row fastest, then type, then stage.
std::vector<float> pipelineFeaturesInTrainerOrder(const Sample &sample);
// Hash of that buffer (decides the validation split).
uint64_t pipelineHash(const Sample &sample);

} // namespace beamscope::samples
