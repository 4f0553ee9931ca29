#pragma once
// Test-side hwf1 writer, written from HALIDE-FACTS.md's table and independent of
// core/weights, so a reader and writer that agreed on a wrong layout would still
// be caught. Also makes deterministic synthetic weights for both networks, the
// project's own stand-ins for Halide's shipped files.

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

namespace beamscope::test {

struct SyntheticBuffer {
    std::string name;
    std::string legacyFile;
    std::vector<uint32_t> extents;
    std::vector<float> values;
};

struct SyntheticWeights {
    uint32_t pipelineVersion = 3;
    uint32_t scheduleVersion = 3;
    std::vector<SyntheticBuffer> buffers;
};

// head2Width: 73 (Anderson2021) or 39 (Adams2019). Values are a fixed sequence
// in [-2, 2) with an exact zero every 97th element, different for each seed.
inline SyntheticWeights makeSyntheticWeights(uint32_t head2Width, uint32_t seed = 1)
{
    SyntheticWeights w;
    const std::vector<std::pair<const char *, const char *>> names = {
        {"head1_filter", "head1_conv1_weight.data"}, {"head1_bias", "head1_conv1_bias.data"},
        {"head2_filter", "head2_conv1_weight.data"}, {"head2_bias", "head2_conv1_bias.data"},
        {"conv1_filter", "trunk_conv1_weight.data"}, {"conv1_bias", "trunk_conv1_bias.data"}};
    const std::vector<std::vector<uint32_t>> extents = {{8, 40, 7}, {8}, {24, head2Width}, {24}, {32, 32}, {32}};
    uint64_t state = 0x9e3779b97f4a7c15ull * (seed + 1);
    size_t counter = 0;
    for (size_t b = 0; b < names.size(); b++) {
        SyntheticBuffer buffer{names[b].first, names[b].second, extents[b], {}};
        size_t count = 1;
        for (uint32_t e : extents[b])
            count *= e;
        for (size_t i = 0; i < count; i++, counter++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            const float v = static_cast<float>(static_cast<double>(state >> 40) / double(1ull << 24) * 4.0 - 2.0);
            buffer.values.push_back(counter % 97 == 0 ? 0.0f : v);
        }
        w.buffers.push_back(std::move(buffer));
    }
    return w;
}

inline void appendLittleEndian(std::string &out, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        out += static_cast<char>((v >> (8 * i)) & 0xff);
}

inline std::string rawFloats(const std::vector<float> &values)
{
    std::string out;
    for (float f : values)
        appendLittleEndian(out, std::bit_cast<uint32_t>(f));
    return out;
}

inline std::string hwf1Bytes(const SyntheticWeights &w)
{
    std::string out;
    appendLittleEndian(out, 0x68776631);
    appendLittleEndian(out, w.pipelineVersion);
    appendLittleEndian(out, w.scheduleVersion);
    appendLittleEndian(out, static_cast<uint32_t>(w.buffers.size()));
    for (const auto &b : w.buffers) {
        appendLittleEndian(out, static_cast<uint32_t>(b.extents.size()));
        for (uint32_t e : b.extents)
            appendLittleEndian(out, e);
        out += rawFloats(b.values);
    }
    return out;
}

// One field of the layout, for checking where a parser says a file went wrong.
struct LayoutField {
    std::string name;
    uint64_t offset;
    uint64_t size;
};

// Every field of an hwf1 file in order, named as Beamscope's diagnostics name them.
inline std::vector<LayoutField> hwf1Layout(const SyntheticWeights &w)
{
    std::vector<LayoutField> fields = {{"signature", 0, 4},
                                       {"pipeline features version", 4, 4},
                                       {"schedule features version", 8, 4},
                                       {"buffer count", 12, 4}};
    uint64_t offset = 16;
    for (size_t b = 0; b < w.buffers.size(); b++) {
        const auto &buffer = w.buffers[b];
        const std::string prefix = "buffer " + std::to_string(b) + " (" + buffer.name + ") ";
        fields.push_back({prefix + "dimension count", offset, 4});
        offset += 4;
        for (size_t d = 0; d < buffer.extents.size(); d++) {
            fields.push_back({prefix + "extent " + std::to_string(d), offset, 4});
            offset += 4;
        }
        fields.push_back({prefix + "data", offset, 4 * buffer.values.size()});
        offset += 4 * buffer.values.size();
    }
    return fields;
}

} // namespace beamscope::test
