#pragma once
// Host buffers for a compiled pipeline's arguments, made from its
// halide_filter_metadata_t: shapes, deterministic contents, comparison.

#include <HalideRuntime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace beamscope::worker {

// One halide_buffer_t with its own shape and (once allocated) host memory.
// The struct is heap-held so pointers handed to the pipeline stay valid.
class HostBuffer {
public:
    HostBuffer(halide_type_t type, int dimensions);
    HostBuffer(const HostBuffer &) = delete;
    HostBuffer &operator=(const HostBuffer &) = delete;
    ~HostBuffer();

    halide_buffer_t *raw() { return &m_buf; }
    const halide_buffer_t *raw() const { return &m_buf; }
    void setShape(const std::vector<int64_t> &mins, const std::vector<int64_t> &extents); // dense strides
    std::vector<int64_t> mins() const;
    std::vector<int64_t> extents() const;
    // Allocates zeroed host memory for the current shape; false on overflow or no memory.
    bool allocate();
    // Points at other's host memory (same shape) without owning it, device untouched.
    void shareHostOf(const HostBuffer &other);
    size_t elementCount() const;
    size_t elementBytes() const { return (m_buf.type.bits + 7) / 8; }
    uint8_t *host() const { return m_buf.host; }

private:
    halide_buffer_t m_buf{};
    std::vector<halide_dimension_t> m_dims;
    uint8_t *m_owned = nullptr;
};

std::string typeName(halide_type_t type); // "float32", "uint8", ...

// Deterministic pseudo-random contents: floats uniform in [0, 1); integers up
// to 16 bits use every bit; wider integers stay in [0, 1024) so index-like
// inputs don't overflow what a pipeline computes from them.
void fillDeterministic(HostBuffer &buffer, uint64_t seed, uint64_t stream);

struct Comparison {
    size_t values = 0;
    size_t mismatches = 0;
    double maxAbsError = 0;
    double maxRelError = 0;    // floats: |got - expected| / max(1, |expected|), the quantity the tolerance bounds
    std::string firstMismatch; // "(x, y): got A, expected B"
};

// Integers must match exactly. Floats may differ by 1e-4 relative to
// max(1, |expected|): GPU code contracts a*b+c into FMAs, uses the device's
// own exp/log/sin approximations and may reorder reductions, which changes
// float32 results in the last few bits (~1e-6 relative per operation, growing
// with pipeline depth); a wrong schedule (bad indexing, missed boundary,
// race) produces errors orders of magnitude larger than that.
Comparison compareBuffers(const HostBuffer &got, const HostBuffer &expected);

} // namespace beamscope::worker
