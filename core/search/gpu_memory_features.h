#pragma once
// Memory transactions per GPU block, counted the way Anderson2021 does for
// num_{global,shared}_mem_{loads,stores}_per_block and the four
// *_mem_*_efficiency features: the addresses touched by the threads of the
// first warp (and of a partly-active tail warp, counted separately), mapped
// through a Jacobian into the storage of the accessed Func, turned into
// 32-byte sectors (global) or worst-case bank conflicts (shared, 128 bytes a
// transaction), times the requests each warp makes.

#include "core/dag/function_dag.h"
#include "core/search/thread_info.h"
#include "core/util/small_vector.h"

#include <cstdint>
#include <span>
#include <vector>

namespace beamscope::search {

// A rational Jacobian entry with Halide's OptionalRational arithmetic
// (denominator 0 = unknown; sums of entries whose denominators share no bit
// become unknown, products do not reduce) so that Jacobians composed through
// inlined Funcs agree with Halide's.
struct Rational {
    int64_t num = 0, den = 0;
    bool known() const { return den != 0; }
    bool isZero() const { return known() && num == 0; }
    bool isOne() const { return known() && num == den; }
    double value() const { return double(float(num) / float(den)); } // Halide strides are float
    void operator+=(const Rational &o);
    Rational operator*(const Rational &o) const;
    Rational scaled(int64_t factor) const;
};

// [producer storage dim][consumer loop] with a call count.
struct RationalJacobian {
    size_t rows = 0, cols = 0;
    // Inline up to a 4-dimensional producer read from 6 loops: every featurization makes and
    // composes several per load, and a heap allocation each was a tenth of a search's time.
    SmallVector<Rational, 24> m;
    int64_t count = 1;

    RationalJacobian() = default;
    RationalJacobian(size_t r, size_t c, int64_t n) : rows(r), cols(c), m(r * c), count(n) {}
    static RationalJacobian fromDag(const dag::LoadJacobian &j, size_t consumerLoops);
    static RationalJacobian fromStore(const std::vector<std::vector<dag::JacobianEntry>> &store, size_t loops);

    // Scalar producers or consumers read every coordinate with stride 0.
    // (Out-of-range entries, which Halide never reads, are zero.)
    Rational at(size_t i, size_t j) const { return i >= rows || j >= cols ? Rational{0, 1} : m[i * cols + j]; }
    bool columnIsZero(size_t j) const;
    // Column j scaled by factors[j] (strides of thread loops outside serial loops).
    RationalJacobian scaledColumns(std::span<const int64_t> factors) const;
    // this (producer <- inlined Func) composed with inner (inlined Func <- consumer loops).
    RationalJacobian operator*(const RationalJacobian &inner) const;
};

// ThreadInfo plus the partly-active final warp Halide counts on its own.
struct WarpLayout {
    ThreadInfo info;
    int regularActiveWarps = 0;
    bool hasTailWarp = false;
    int tailFirstThread = 0;
    int tailThreads = 0;
};
WarpLayout makeWarpLayout(const ThreadInfo &info);

struct MemTotals {
    double transactions = 0, bytesUsed = 0, bytes = 0;
    void add(const MemTotals &o)
    {
        transactions += o.transactions;
        bytesUsed += o.bytesUsed;
        bytes += o.bytes;
    }
    double efficiency() const { return bytes == 0 ? 1.0 : bytesUsed / bytes; }
};

enum class MemKind { Global, Shared };

// One access pattern. threadLoops: for each thread dim (x, y, z) the loop of
// the accessing stage with the thread loop's variable, -1 when it has none.
// storageExtents: the accessed Func's region required at its store site;
// innermostDim: its dense storage dim. requestsPerWarp: accesses each thread
// makes (Halide truncates the per-block request counts to int).
MemTotals countAccesses(MemKind kind, const RationalJacobian &jac, int innermostDim,
                        std::span<const int64_t> storageExtents, int bytesPerAccess, const WarpLayout &warps,
                        std::span<const int> threadLoops, double requestsPerWarp);

// Vector width of a shared access along a loop of this extent (Halide's
// vectorized_access_size: up to 4 points and 16 bytes).
int vectorizedAccessSize(int64_t extent, int bytesPerPoint);
// Unit stride in innermostDim and none in the others along loop j.
bool vectorizableAlong(const RationalJacobian &jac, int innermostDim, size_t j);

} // namespace beamscope::search
