#include "core/search/gpu_memory_features.h"

#include "core/util/hash_words.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <utility>
#include <vector>

namespace beamscope::search {

void Rational::operator+=(const Rational &o) { dag::addOptionalRational(num, den, o.num, o.den); }

Rational Rational::operator*(const Rational &o) const
{
    if (isZero())
        return *this;
    if (o.isZero())
        return o;
    return {num * o.num, den * o.den};
}

Rational Rational::scaled(int64_t factor) const
{
    if (isZero())
        return *this;
    return {num * factor, den};
}

namespace {

RationalJacobian fromEntries(const std::vector<std::vector<dag::JacobianEntry>> &matrix, size_t consumerLoops,
                             int64_t count)
{
    RationalJacobian out(matrix.size(), consumerLoops, count);
    for (size_t i = 0; i < matrix.size(); i++)
        for (size_t k = 0; k < consumerLoops && k < matrix[i].size(); k++) {
            const dag::JacobianEntry &e = matrix[i][k];
            out.m[i * consumerLoops + k] = e.known ? Rational{e.numerator, e.denominator} : Rational{0, 0};
        }
    return out;
}

} // namespace

RationalJacobian RationalJacobian::fromDag(const dag::LoadJacobian &j, size_t consumerLoops)
{
    return fromEntries(j.matrix, consumerLoops, j.count);
}

RationalJacobian RationalJacobian::fromStore(const std::vector<std::vector<dag::JacobianEntry>> &store, size_t loops)
{
    return fromEntries(store, loops, 1);
}

bool RationalJacobian::columnIsZero(size_t j) const
{
    for (size_t i = 0; i < rows; i++)
        if (!at(i, j).isZero())
            return false;
    return true;
}

RationalJacobian RationalJacobian::scaledColumns(std::span<const int64_t> factors) const
{
    RationalJacobian out = *this;
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            out.m[i * cols + j] = m[i * cols + j].scaled(j < factors.size() ? factors[j] : 1);
    return out;
}

RationalJacobian RationalJacobian::operator*(const RationalJacobian &inner) const
{
    RationalJacobian out(rows, inner.cols, count * inner.count);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < inner.cols; j++) {
            Rational r{0, 1};
            for (size_t k = 0; k < cols; k++)
                r += at(i, k) * (k < inner.rows ? inner.at(k, j) : Rational{0, 1});
            out.m[i * inner.cols + j] = r;
        }
    return out;
}

WarpLayout makeWarpLayout(const ThreadInfo &info)
{
    WarpLayout w;
    w.info = info;
    const WarpCounts counts = countWarps(info.threads, info.inBlock);
    w.hasTailWarp = counts.hasTailWarp;
    w.tailFirstThread = counts.tailFirstThread;
    w.tailThreads = counts.tailThreads;
    w.regularActiveWarps = counts.activeWarps - (w.hasTailWarp ? 1 : 0);
    return w;
}

namespace {

// The accesses of one warp: each active thread's first byte (an access covers
// bytesPerAccess bytes from there), and how many threads had no known address.
struct WarpAccess {
    int64_t start[kWarpSize];
    int count = 0;
    int unknown = 0;
};

constexpr int kMaxStorageDims = 16;

struct Strides {
    int dims = 0;
    int64_t storage[kMaxStorageDims];        // per storage dim, innermost first
    double perThreadDim[3][kMaxStorageDims]; // [thread dim][storage dim]
    bool valid[3] = {true, true, true};
    int threadDims = 0;
    // When every stride along thread dim k is a whole number (the usual case), Halide's
    // per-dimension truncation changes nothing and the offset is linear in the thread index:
    // point * linear[k] elements.
    bool whole[3] = {false, false, false};
    int64_t linear[3] = {0, 0, 0};

    void findLinearOffsets()
    {
        for (int k = 0; k < threadDims; k++) {
            whole[k] = valid[k];
            linear[k] = 0;
            for (int i = 0; i < dims && whole[k]; i++) {
                const double v = perThreadDim[k][i];
                // Exact below 2^31: point (< 1024 threads) times v stays exact in a double.
                whole[k] = std::trunc(v) == v && std::fabs(v) < 2147483648.0;
                linear[k] += static_cast<int64_t>(v) * storage[i];
            }
        }
    }

    int64_t offset(int k, int64_t point) const
    {
        if (whole[k])
            return std::llabs(point * linear[k]);
        int64_t r = 0;
        for (int i = 0; i < dims; i++)
            r += static_cast<int64_t>(double(point) * perThreadDim[k][i]) * storage[i];
        return std::llabs(r);
    }
};

void accessOf(const Strides &s, int bytesPerAccess, int x, int y, int z, WarpAccess &out)
{
    const int coord[3] = {x, y, z};
    int64_t byte = 0;
    for (int k = 0; k < s.threadDims; k++) {
        if (!s.valid[k]) {
            out.unknown++;
            return;
        }
        byte += bytesPerAccess * s.offset(k, coord[k]);
    }
    out.start[out.count++] = byte;
}

// Bytes covered by equal-length accesses starting at sorted, distinct offsets.
int64_t coveredBytes(const int64_t *starts, int n, int bytesPerAccess)
{
    int64_t covered = 0;
    for (int i = 0; i < n; i++)
        covered += i + 1 < n ? std::min<int64_t>(bytesPerAccess, starts[i + 1] - starts[i]) : bytesPerAccess;
    return covered;
}

// Threads' offsets mostly arrive in order (x fastest, strides positive), where insertion sort
// makes one pass; a warp has at most 32 of them.
void sortStarts(int64_t *start, int count)
{
    for (int i = 1; i < count; i++) {
        const int64_t v = start[i];
        int j = i;
        for (; j > 0 && start[j - 1] > v; j--)
            start[j] = start[j - 1];
        start[j] = v;
    }
}

// What one warp's accesses cost per request: transactions (sectors, or the worst bank
// conflict) and the bytes of them the accesses use.
struct WarpCost {
    int64_t perRequest = 0, used = 0;
};

WarpCost costOfWarp(MemKind kind, WarpAccess &a, int bytesPerAccess)
{
    sortStarts(a.start, a.count);
    const int n = static_cast<int>(std::unique(a.start, a.start + a.count) - a.start);
    WarpCost cost;
    if (kind == MemKind::Global) {
        // Every byte of an access is billed to the sector its first byte lies in.
        for (int i = 0; i < n;) {
            int j = i + 1;
            while (j < n && a.start[j] / 32 == a.start[i] / 32)
                j++;
            cost.perRequest++;
            cost.used += coveredBytes(a.start + i, j - i, bytesPerAccess);
            i = j;
        }
    } else {
        // Worst bank conflict: the most distinct 4-byte words any one of the 32 banks serves.
        static thread_local std::vector<int64_t> words;
        words.clear();
        for (int i = 0; i < n; i++)
            for (int64_t w = a.start[i] / 4; w <= (a.start[i] + bytesPerAccess - 1) / 4; w++)
                words.push_back(w);
        std::sort(words.begin(), words.end());
        words.erase(std::unique(words.begin(), words.end()), words.end());
        int perBank[32] = {};
        for (int64_t w : words)
            cost.perRequest = std::max<int64_t>(cost.perRequest, ++perBank[w % 32]);
        cost.used = coveredBytes(a.start, n, bytesPerAccess);
    }
    cost.perRequest += a.unknown;
    cost.used += int64_t(a.unknown) * bytesPerAccess;
    return cost;
}

void addRequests(MemKind kind, const WarpCost &cost, int requests, MemTotals &totals)
{
    const double transactions = double(requests) * double(cost.perRequest);
    totals.transactions += transactions;
    totals.bytes += transactions * (kind == MemKind::Global ? 32.0 : 128.0);
    totals.bytesUsed += double(requests) * double(cost.used);
}

struct WarpCosts {
    WarpCost regular, tail;
};

WarpCosts computeWarpCosts(MemKind kind, const Strides &s, int bytesPerAccess, const WarpLayout &warps)
{
    WarpCosts costs;
    const ThreadInfo &ti = warps.info;
    WarpAccess access;
    int id = 0;
    for (int z = 0; z < ti.inBlock[2] && id < kWarpSize; z++)
        for (int y = 0; y < ti.inBlock[1] && id < kWarpSize; y++)
            for (int x = 0; x < ti.inBlock[0] && id < kWarpSize; x++, id++)
                if (x < ti.threads[0] && y < ti.threads[1] && z < ti.threads[2])
                    accessOf(s, bytesPerAccess, x, y, z, access);
    costs.regular = costOfWarp(kind, access, bytesPerAccess);
    if (!warps.hasTailWarp)
        return costs;
    WarpAccess tail;
    const int plane = ti.inBlock[0] * ti.inBlock[1];
    for (int t = warps.tailFirstThread; t < warps.tailFirstThread + warps.tailThreads; t++) {
        const int z = t / plane, y = (t - z * plane) / ti.inBlock[0], x = t % ti.inBlock[0];
        if (x < ti.threads[0] && y < ti.threads[1] && z < ti.threads[2])
            accessOf(s, bytesPerAccess, x, y, z, tail);
    }
    costs.tail = costOfWarp(kind, tail, bytesPerAccess);
    return costs;
}

// With whole strides, a warp's cost depends only on the memory, the access width, the block's
// shape and one element stride per thread dim, and a search asks for the same few thousand
// patterns over and over (every tiling of a Func reads its producers through the same thread
// shapes). Memoized per thread; fractional strides are rare and computed each time.
struct PatternKey {
    std::array<int64_t, 10> words{};
    bool operator==(const PatternKey &) const = default;
};

WarpCosts warpCosts(MemKind kind, const Strides &s, int bytesPerAccess, const WarpLayout &warps)
{
    PatternKey key;
    int validBits = 0;
    for (int k = 0; k < s.threadDims; k++) {
        if (!s.valid[k]) {
            validBits |= 1 << k; // every thread's address is unknown: nothing else matters
            continue;
        }
        if (!s.whole[k])
            return computeWarpCosts(kind, s, bytesPerAccess, warps);
        key.words[static_cast<size_t>(7 + k)] = s.linear[k];
    }
    const ThreadInfo &ti = warps.info;
    key.words[0] = static_cast<int64_t>(kind) | int64_t(bytesPerAccess) << 8 | int64_t(s.threadDims) << 40 |
                   int64_t(validBits) << 48;
    for (int k = 0; k < 3; k++) {
        key.words[static_cast<size_t>(1 + k)] = ti.threads[k];
        key.words[static_cast<size_t>(4 + k)] = ti.inBlock[k];
    }
    // A direct-mapped cache: one probe, and a collision just recomputes (and takes the slot).
    struct Slot {
        PatternKey key;
        WarpCosts costs;
        bool filled = false;
    };
    constexpr size_t kSlots = 4096;
    static thread_local std::unique_ptr<Slot[]> memo(new Slot[kSlots]);
    Slot &slot = memo[hashWords(key.words) & (kSlots - 1)];
    if (slot.filled && slot.key == key)
        return slot.costs;
    slot.key = key;
    slot.costs = computeWarpCosts(kind, s, bytesPerAccess, warps);
    slot.filled = true;
    return slot.costs;
}

int truncatedRequests(double r)
{
    if (!(r < 2147483647.0))
        return 2147483647;
    return static_cast<int>(r);
}

} // namespace

MemTotals countAccesses(MemKind kind, const RationalJacobian &jac, int innermostDim,
                        std::span<const int64_t> storageExtents, int bytesPerAccess, const WarpLayout &warps,
                        std::span<const int> threadLoops, double requestsPerWarp)
{
    Strides s;
    int dimOrder[kMaxStorageDims];
    const int nd = std::min(static_cast<int>(storageExtents.size()), kMaxStorageDims);
    if (nd > 0) {
        const int inner = std::clamp(innermostDim, 0, nd - 1);
        dimOrder[s.dims++] = inner;
        for (int i = 0; i < nd; i++)
            if (i != inner)
                dimOrder[s.dims++] = i;
    }
    int64_t stride = 1;
    for (int i = 0; i < s.dims; i++) {
        s.storage[i] = stride;
        stride *= storageExtents[static_cast<size_t>(dimOrder[i])];
    }
    s.threadDims = std::min(static_cast<int>(threadLoops.size()), 3);
    for (int k = 0; k < s.threadDims; k++) {
        const int loop = threadLoops[static_cast<size_t>(k)];
        for (int i = 0; i < s.dims; i++) {
            if (loop < 0) {
                s.perThreadDim[k][i] = 0;
                continue;
            }
            const Rational r = jac.at(static_cast<size_t>(dimOrder[i]), static_cast<size_t>(loop));
            if (!r.known()) {
                s.valid[k] = false;
                break;
            }
            s.perThreadDim[k][i] = r.value();
        }
    }

    s.findLinearOffsets();

    const WarpCosts costs = warpCosts(kind, s, bytesPerAccess, warps);
    MemTotals totals;
    addRequests(kind, costs.regular, truncatedRequests(double(warps.regularActiveWarps) * requestsPerWarp), totals);
    if (warps.hasTailWarp)
        addRequests(kind, costs.tail, truncatedRequests(requestsPerWarp), totals);
    return totals;
}

int vectorizedAccessSize(int64_t extent, int bytesPerPoint)
{
    const int64_t maxPoints = std::min<int64_t>(4, 16 / std::max(1, bytesPerPoint));
    if (maxPoints <= 0)
        return 1;
    if (extent >= maxPoints && extent % maxPoints == 0)
        return static_cast<int>(maxPoints);
    if (extent > 0 && extent < maxPoints && maxPoints % extent == 0)
        return static_cast<int>(extent);
    return 1;
}

bool vectorizableAlong(const RationalJacobian &jac, int innermostDim, size_t j)
{
    for (size_t i = 0; i < jac.rows; i++) {
        const Rational r = jac.at(i, j);
        if (static_cast<int>(i) == innermostDim ? !r.isOne() : !r.isZero())
            return false;
    }
    return true;
}

} // namespace beamscope::search
