#include "core/samples/sample.h"

#include <bit>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

namespace beamscope::samples {

static_assert(std::endian::native == std::endian::little, "sample files are little-endian float32/int32");
static_assert(kStageFloats == 360 && kStageBytes == 1440);

std::span<const float> Sample::stageRecord(int stage) const
{
    return std::span<const float>(stages).subspan(static_cast<size_t>(stage) * kStageFloats, kStageFloats);
}

std::span<const float> Sample::scheduleFeatures(int stage) const
{
    return stageRecord(stage).first(kScheduleFeatureCount);
}

std::span<const float> Sample::typesInUse(int stage) const
{
    return stageRecord(stage).subspan(kScheduleFeatureCount, kTypesInUseCount);
}

float Sample::pipelineFeature(int stage, int row, int type) const
{
    return stageRecord(stage)[kScheduleFeatureCount + kTypesInUseCount + row * kPipelineFeatureTypes + type];
}

std::vector<float> pipelineFeaturesOf(const Sample &sample)
{
    std::vector<float> out;
    out.reserve(static_cast<size_t>(sample.stageCount()) * kPipelineFeatureCount);
    for (int stage = 0; stage < sample.stageCount(); ++stage) {
        const auto record = sample.stageRecord(stage);
        out.insert(out.end(), record.begin() + kScheduleFeatureCount + kTypesInUseCount, record.end());
    }
    return out;
}

std::vector<float> scheduleFeaturesOf(const Sample &sample)
{
    std::vector<float> out;
    out.reserve(static_cast<size_t>(sample.stageCount()) * kScheduleFeatureCount);
    for (int stage = 0; stage < sample.stageCount(); ++stage) {
        const auto features = sample.scheduleFeatures(stage);
        out.insert(out.end(), features.begin(), features.end());
    }
    return out;
}

SampleReadResult parseSample(std::span<const char> bytes, const std::string &sourceName)
{
    SampleReadResult result;
    const size_t size = bytes.size();
    // Halide's trainer silently drops a trailing partial float and accepts a
    // zero-stage file; both mean a damaged sample, so they are errors here.
    if (size < static_cast<size_t>(kStageBytes + kTrailerBytes) || (size - kTrailerBytes) % kStageBytes != 0) {
        std::ostringstream message;
        message << sourceName << ": size " << size << " bytes: expected a multiple of " << kStageBytes << " plus "
                << kTrailerBytes << " (1440·S + 12, S >= 1 stage records)";
        if (size >= static_cast<size_t>(kTrailerBytes)) {
            const size_t whole = (size - kTrailerBytes) / kStageBytes;
            message << "; found " << whole << " whole stage record" << (whole == 1 ? "" : "s") << " and "
                    << (size - kTrailerBytes) % kStageBytes << " extra bytes (truncated or not a sample)";
        } else {
            message << "; found less than the 12-byte trailer (truncated or not a sample)";
        }
        result.error = message.str();
        return result;
    }
    Sample sample;
    const size_t stageBytes = size - kTrailerBytes;
    sample.stages.resize(stageBytes / 4);
    std::memcpy(sample.stages.data(), bytes.data(), stageBytes);
    std::memcpy(&sample.runtimeMs, bytes.data() + stageBytes, 4);
    std::memcpy(&sample.pipelineId, bytes.data() + stageBytes + 4, 4);
    std::memcpy(&sample.scheduleId, bytes.data() + stageBytes + 8, 4);
    result.sample = std::move(sample);
    return result;
}

SampleReadResult parseFeatures(std::span<const char> bytes, const std::string &sourceName)
{
    const size_t size = bytes.size();
    if (size % kStageBytes == kTrailerBytes && size > kTrailerBytes)
        return parseSample(bytes, sourceName);
    if (size == 0 || size % kStageBytes != 0) {
        SampleReadResult result;
        result.error = sourceName + ": size " + std::to_string(size) +
                       " bytes: expected 1440·S (a .featurization) or " +
                       "1440·S + 12 (a .sample), S >= 1 stage records; found " + std::to_string(size / kStageBytes) +
                       " whole stage records and " + std::to_string(size % kStageBytes) + " extra bytes";
        return result;
    }
    Sample sample;
    sample.stages.resize(size / 4);
    std::memcpy(sample.stages.data(), bytes.data(), size);
    SampleReadResult result;
    result.sample = std::move(sample);
    return result;
}

namespace {

// The file's bytes, or the reason (in result.error) it cannot be read.
std::optional<std::vector<char>> readBytes(const std::filesystem::path &path, SampleReadResult &result)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        result.error = path.string() + ": cannot open for reading";
        return std::nullopt;
    }
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) {
        result.error = path.string() + ": read error";
        return std::nullopt;
    }
    return bytes;
}

} // namespace

SampleReadResult readSample(const std::filesystem::path &path)
{
    SampleReadResult result;
    const auto bytes = readBytes(path, result);
    return bytes ? parseSample(*bytes, path.string()) : result;
}

SampleReadResult readFeatures(const std::filesystem::path &path)
{
    SampleReadResult result;
    const auto bytes = readBytes(path, result);
    return bytes ? parseFeatures(*bytes, path.string()) : result;
}

std::vector<char> serializeSample(const Sample &sample)
{
    const size_t stageBytes = sample.stages.size() * 4;
    std::vector<char> bytes(stageBytes + kTrailerBytes);
    std::memcpy(bytes.data(), sample.stages.data(), stageBytes);
    std::memcpy(bytes.data() + stageBytes, &sample.runtimeMs, 4);
    std::memcpy(bytes.data() + stageBytes + 4, &sample.pipelineId, 4);
    std::memcpy(bytes.data() + stageBytes + 8, &sample.scheduleId, 4);
    return bytes;
}

WriteResult writeSample(const Sample &sample, const std::filesystem::path &path, Overwrite overwrite)
{
    if (sample.stages.empty() || sample.stages.size() % kStageFloats != 0)
        return {false, path.string() + ": refusing to write a sample with " + std::to_string(sample.stages.size()) +
                           " feature floats (expected a positive multiple of 360)"};
    const auto bytes = serializeSample(sample);
    return writeFileAtomically(path, bytes, overwrite);
}

float runtimeMsFromSeconds(double seconds) { return static_cast<float>(seconds * 1000.0); }

uint64_t hashFloats(uint64_t h, std::span<const float> values)
{
    for (float value : values) {
        // Halide adds the constant in 32-bit arithmetic (it wraps) before
        // widening to the 64-bit accumulator; the split order depends on it.
        const uint32_t mixed = std::bit_cast<uint32_t>(value) + 0x9e3779b9u;
        h ^= uint64_t{mixed} + (h << 6) + (h >> 2);
    }
    return h;
}

uint64_t scheduleHash(const Sample &sample)
{
    uint64_t h = 0;
    for (int stage = 0; stage < sample.stageCount(); ++stage)
        h = hashFloats(h, sample.scheduleFeatures(stage));
    return h;
}

std::vector<float> pipelineFeaturesInTrainerOrder(const Sample &sample)
{
    std::vector<float> out;
    out.reserve(static_cast<size_t>(sample.stageCount()) * kPipelineFeatureCount);
    for (int stage = 0; stage < sample.stageCount(); ++stage)
        for (int type = 0; type < kPipelineFeatureTypes; ++type)
            for (int row = 0; row < kPipelineFeatureRows; ++row)
                out.push_back(sample.pipelineFeature(stage, row, type));
    return out;
}

uint64_t pipelineHash(const Sample &sample) { return hashFloats(0, pipelineFeaturesInTrainerOrder(sample)); }

} // namespace beamscope::samples
