#include "app/worker/buffers.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace beamscope::worker {

HostBuffer::HostBuffer(halide_type_t type, int dimensions) : m_dims(static_cast<size_t>(dimensions))
{
    m_buf.type = type;
    m_buf.dimensions = dimensions;
    m_buf.dim = m_dims.empty() ? nullptr : m_dims.data();
}

HostBuffer::~HostBuffer() { std::free(m_owned); }

void HostBuffer::setShape(const std::vector<int64_t> &mins, const std::vector<int64_t> &extents)
{
    int64_t stride = 1;
    for (size_t i = 0; i < m_dims.size(); ++i) {
        m_dims[i].min = static_cast<int32_t>(mins[i]);
        m_dims[i].extent = static_cast<int32_t>(extents[i]);
        m_dims[i].stride = static_cast<int32_t>(stride);
        m_dims[i].flags = 0;
        stride *= std::max<int64_t>(extents[i], 1);
    }
}

std::vector<int64_t> HostBuffer::mins() const
{
    std::vector<int64_t> out;
    for (const auto &d : m_dims)
        out.push_back(d.min);
    return out;
}

std::vector<int64_t> HostBuffer::extents() const
{
    std::vector<int64_t> out;
    for (const auto &d : m_dims)
        out.push_back(d.extent);
    return out;
}

size_t HostBuffer::elementCount() const
{
    size_t n = 1;
    for (const auto &d : m_dims)
        n *= static_cast<size_t>(std::max(d.extent, 0));
    return n;
}

bool HostBuffer::allocate()
{
    std::free(m_owned);
    m_owned = nullptr;
    m_buf.host = nullptr;
    const size_t count = elementCount();
    if (count > std::numeric_limits<size_t>::max() / 8)
        return false;
    // Round up to the alignment; generated code assumes nothing, but vector
    // loads are faster when the base is aligned.
    const size_t bytes = ((std::max<size_t>(count * elementBytes(), 1) + 127) / 128) * 128;
    m_owned = static_cast<uint8_t *>(std::aligned_alloc(128, bytes));
    if (!m_owned)
        return false;
    std::memset(m_owned, 0, bytes);
    m_buf.host = m_owned;
    return true;
}

void HostBuffer::shareHostOf(const HostBuffer &other)
{
    setShape(other.mins(), other.extents());
    m_buf.host = other.m_buf.host;
}

std::string typeName(halide_type_t type)
{
    std::string base;
    switch (type.code) {
    case halide_type_int: base = "int"; break;
    case halide_type_uint: base = type.bits == 1 ? "bool" : "uint"; break;
    case halide_type_float: base = "float"; break;
    case halide_type_handle: base = "handle"; break;
    case halide_type_bfloat: base = "bfloat"; break;
    }
    if (type.bits == 1)
        return base;
    return base + std::to_string(type.bits);
}

namespace {

uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

float halfToFloat(uint16_t h)
{
    const int sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    float v;
    if (exponent == 0)
        v = std::ldexp(static_cast<float>(mantissa), -24);
    else if (exponent == 31)
        v = mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    else
        v = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
    return sign ? -v : v;
}

uint16_t floatToHalf(float f) // for values in [0, 1): no overflow or NaN to handle
{
    if (f <= 0)
        return 0;
    int e = 0;
    const float m = std::frexp(f, &e); // f = m * 2^e, m in [0.5, 1)
    const int exponent = e + 14;
    if (exponent <= 0)
        return static_cast<uint16_t>(std::lround(std::ldexp(f, 24)));
    const int mantissa = static_cast<int>(std::lround((m * 2 - 1) * 1024));
    return static_cast<uint16_t>((exponent << 10) + mantissa);
}

// Reads element i as a double (floats) or as raw integer bits (integers).
double readFloat(const uint8_t *p, halide_type_t t)
{
    if (t.code == halide_type_float && t.bits == 32) {
        float v;
        std::memcpy(&v, p, 4);
        return v;
    }
    if (t.code == halide_type_float && t.bits == 64) {
        double v;
        std::memcpy(&v, p, 8);
        return v;
    }
    uint16_t h;
    std::memcpy(&h, p, 2);
    if (t.code == halide_type_bfloat) {
        uint32_t bits = static_cast<uint32_t>(h) << 16;
        float v;
        std::memcpy(&v, &bits, 4);
        return v;
    }
    return halfToFloat(h);
}

bool isFloat(halide_type_t t) { return t.code == halide_type_float || t.code == halide_type_bfloat; }

int64_t readInteger(const uint8_t *p, halide_type_t t)
{
    uint64_t raw = 0;
    std::memcpy(&raw, p, (t.bits + 7) / 8);
    if (t.code == halide_type_int && t.bits < 64) {
        const int shift = 64 - ((t.bits + 7) / 8) * 8;
        return static_cast<int64_t>(raw << shift) >> shift;
    }
    return static_cast<int64_t>(raw);
}

std::string coordinates(size_t index, const std::vector<int64_t> &mins, const std::vector<int64_t> &extents)
{
    std::string out = "(";
    for (size_t d = 0; d < extents.size(); ++d) {
        const auto e = static_cast<size_t>(std::max<int64_t>(extents[d], 1));
        out += (d ? ", " : "") + std::to_string(mins[d] + static_cast<int64_t>(index % e));
        index /= e;
    }
    return out + ")";
}

std::string formatValue(double v)
{
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

} // namespace

void fillDeterministic(HostBuffer &buffer, uint64_t seed, uint64_t stream)
{
    const halide_type_t t = buffer.raw()->type;
    const size_t n = buffer.elementCount(), bytes = buffer.elementBytes();
    uint8_t *p = buffer.host();
    const uint64_t base = splitmix64(seed * 0x100000001b3ULL ^ splitmix64(stream));
    for (size_t i = 0; i < n; ++i, p += bytes) {
        const uint64_t r = splitmix64(base + i);
        const double unit = static_cast<double>(r >> 11) * 0x1.0p-53; // [0, 1)
        if (t.code == halide_type_float && t.bits == 32) {
            const float v = static_cast<float>(unit);
            std::memcpy(p, &v, 4);
        } else if (t.code == halide_type_float && t.bits == 64) {
            std::memcpy(p, &unit, 8);
        } else if (isFloat(t)) {
            uint16_t h;
            if (t.code == halide_type_bfloat) {
                const float f = static_cast<float>(unit);
                uint32_t bits;
                std::memcpy(&bits, &f, 4);
                h = static_cast<uint16_t>(bits >> 16);
            } else {
                h = floatToHalf(static_cast<float>(unit));
            }
            std::memcpy(p, &h, 2);
        } else if (t.bits == 1) {
            *p = static_cast<uint8_t>(r & 1);
        } else if (t.bits <= 16) {
            std::memcpy(p, &r, bytes);
        } else {
            const uint64_t v = r % 1024;
            std::memcpy(p, &v, bytes);
        }
    }
}

Comparison compareBuffers(const HostBuffer &got, const HostBuffer &expected)
{
    Comparison c;
    const halide_type_t t = expected.raw()->type;
    const size_t n = expected.elementCount(), bytes = expected.elementBytes();
    if (got.elementCount() != n || got.extents() != expected.extents()) {
        c.mismatches = n;
        c.firstMismatch = "shapes differ";
        return c;
    }
    c.values = n;
    const auto mins = expected.mins(), extents = expected.extents();
    const uint8_t *a = got.host(), *b = expected.host();
    for (size_t i = 0; i < n; ++i, a += bytes, b += bytes) {
        bool same;
        double va, vb;
        if (isFloat(t)) {
            va = readFloat(a, t);
            vb = readFloat(b, t);
            const double diff = std::fabs(va - vb);
            same = (std::isnan(va) && std::isnan(vb)) || diff <= 1e-4 * std::max(1.0, std::fabs(vb));
            if (std::isfinite(diff)) {
                c.maxAbsError = std::max(c.maxAbsError, diff);
                c.maxRelError = std::max(c.maxRelError, diff / std::max(1.0, std::fabs(vb)));
            }
        } else {
            const int64_t ia = readInteger(a, t), ib = readInteger(b, t);
            va = static_cast<double>(ia);
            vb = static_cast<double>(ib);
            same = ia == ib;
            c.maxAbsError = std::max(c.maxAbsError, std::fabs(va - vb));
        }
        if (!same) {
            if (c.mismatches == 0)
                c.firstMismatch =
                    coordinates(i, mins, extents) + ": got " + formatValue(va) + ", expected " + formatValue(vb);
            ++c.mismatches;
        }
    }
    return c;
}

} // namespace beamscope::worker
