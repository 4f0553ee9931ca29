#include "core/search/gpu_memory_features.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <utility>

namespace beamscope::search {

void Rational::operator+=(const Rational &o) {
    // Halide tests the denominators with a bitwise and: 1/1 + 1/2 is unknown there.
    if ((den & o.den) == 0) {
        num = den = 0;
        return;
    }
    if (den == o.den) {
        num += o.num;
        return;
    }
    const int64_t l = std::lcm(den, o.den);
    num = num * (l / den) + o.num * (l / o.den);
    den = l;
    const int64_t g = std::gcd(num, den);
    if (g != 0) {
        num /= g;
        den /= g;
    }
}

Rational Rational::operator*(const Rational &o) const {
    if (isZero())
        return *this;
    if (o.isZero())
        return o;
    return {num * o.num, den * o.den};
}

Rational Rational::scaled(int64_t factor) const {
    if (isZero())
        return *this;
    return {num * factor, den};
}

RationalJacobian RationalJacobian::fromDag(const dag::LoadJacobian &j, size_t consumerLoops) {
    RationalJacobian out(j.matrix.size(), consumerLoops, j.count);
    for (size_t i = 0; i < j.matrix.size(); i++)
        for (size_t k = 0; k < consumerLoops && k < j.matrix[i].size(); k++) {
            const dag::JacobianEntry &e = j.matrix[i][k];
            out.m[i * consumerLoops + k] = e.known ? Rational{e.numerator, e.denominator} : Rational{0, 0};
        }
    return out;
}

RationalJacobian RationalJacobian::fromStore(const std::vector<std::vector<dag::JacobianEntry>> &store, size_t loops) {
    dag::LoadJacobian j;
    j.matrix = store;
    j.count = 1;
    return fromDag(j, loops);
}

bool RationalJacobian::columnIsZero(size_t j) const {
    for (size_t i = 0; i < rows; i++)
        if (!at(i, j).isZero())
            return false;
    return true;
}

RationalJacobian RationalJacobian::scaledColumns(const std::vector<int64_t> &factors) const {
    RationalJacobian out = *this;
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            out.m[i * cols + j] = m[i * cols + j].scaled(j < factors.size() ? factors[j] : 1);
    return out;
}

RationalJacobian RationalJacobian::operator*(const RationalJacobian &inner) const {
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

WarpLayout makeWarpLayout(const ThreadInfo &info) {
    WarpLayout w;
    w.info = info;
    const int64_t last = info.numThreadsInBlock - 1;
    int id = 0, activeInWarp = 0, threadsInWarp = 0, activeInFirstWarp = 0;
    bool warpActive = false, first = true;
    int activeWarps = 0;
    for (int z = 0; z < info.inBlock[2]; z++)
        for (int y = 0; y < info.inBlock[1]; y++)
            for (int x = 0; x < info.inBlock[0]; x++, id++) {
                const bool active = x < info.threads[0] && y < info.threads[1] && z < info.threads[2];
                warpActive = warpActive || active;
                activeInWarp += active ? 1 : 0;
                threadsInWarp++;
                if ((id + 1) % kWarpSize == 0 || id == last) {
                    if (warpActive) {
                        activeWarps++;
                        if (first) {
                            first = false;
                            activeInFirstWarp = activeInWarp;
                        }
                        if (id == last) {
                            w.tailThreads = threadsInWarp;
                            w.hasTailWarp = activeInFirstWarp != activeInWarp;
                            w.tailFirstThread = id - threadsInWarp + 1;
                        }
                    }
                    warpActive = false;
                    activeInWarp = threadsInWarp = 0;
                }
            }
    w.regularActiveWarps = activeWarps - (w.hasTailWarp ? 1 : 0);
    return w;
}

namespace {

// Byte offsets of one warp's accesses, and how many threads had no known address.
struct WarpAccess {
    std::vector<std::pair<int64_t, int64_t>> pairs; // (sector, byte) or (bank, word)
    std::vector<int64_t> bytes;
    int unknown = 0;
};

struct Strides {
    std::vector<int64_t> storage;                 // per storage dim, innermost first
    std::vector<std::vector<double>> perThreadDim; // [thread dim][storage dim]
    std::vector<bool> valid;

    int64_t offset(size_t k, int64_t point) const {
        int64_t r = 0;
        for (size_t i = 0; i < storage.size(); i++)
            r += static_cast<int64_t>(double(point) * perThreadDim[k][i]) * storage[i];
        return std::llabs(r);
    }
};

void accessOf(MemKind kind, const Strides &s, int bytesPerAccess, int x, int y, int z, WarpAccess &out) {
    const int coord[3] = {x, y, z};
    int64_t byte = 0;
    for (size_t k = 0; k < s.valid.size(); k++) {
        if (!s.valid[k]) {
            out.unknown++;
            return;
        }
        byte += bytesPerAccess * s.offset(k, coord[k < 3 ? k : 2]);
    }
    if (kind == MemKind::Global) {
        // Every byte of the access is billed to the sector its first byte lies in.
        const int64_t sector = byte / 32;
        for (int b = 0; b < bytesPerAccess; b++)
            out.pairs.emplace_back(sector, byte + b);
    } else {
        for (int b = 0; b < bytesPerAccess; b++) {
            const int64_t word = (byte + b) / 4;
            out.pairs.emplace_back(word % 32, word);
            out.bytes.push_back(byte + b);
        }
    }
}

void addRequests(MemKind kind, WarpAccess &a, int bytesPerAccess, int requests, MemTotals &totals) {
    std::sort(a.pairs.begin(), a.pairs.end());
    a.pairs.erase(std::unique(a.pairs.begin(), a.pairs.end()), a.pairs.end());
    int perRequest = 0, used = 0;
    if (kind == MemKind::Global) {
        for (size_t i = 0; i < a.pairs.size(); i++)
            if (i == 0 || a.pairs[i].first != a.pairs[i - 1].first)
                perRequest++;
        used = static_cast<int>(a.pairs.size());
    } else {
        int run = 0;
        for (size_t i = 0; i < a.pairs.size(); i++) {
            run = (i > 0 && a.pairs[i].first == a.pairs[i - 1].first) ? run + 1 : 1;
            perRequest = std::max(perRequest, run);
        }
        std::sort(a.bytes.begin(), a.bytes.end());
        used = static_cast<int>(std::unique(a.bytes.begin(), a.bytes.end()) - a.bytes.begin());
    }
    perRequest += a.unknown;
    used += a.unknown * bytesPerAccess;
    const double transactions = double(requests) * perRequest;
    totals.transactions += transactions;
    totals.bytes += transactions * (kind == MemKind::Global ? 32.0 : 128.0);
    totals.bytesUsed += double(requests) * used;
}

int truncatedRequests(double r) {
    if (!(r < 2147483647.0))
        return 2147483647;
    return static_cast<int>(r);
}

} // namespace

MemTotals countAccesses(MemKind kind, const RationalJacobian &jac, int innermostDim,
                        const std::vector<int64_t> &storageExtents, int bytesPerAccess, const WarpLayout &warps,
                        const std::vector<int> &threadLoops, double requestsPerWarp) {
    Strides s;
    std::vector<int> dims;
    const int nd = static_cast<int>(storageExtents.size());
    if (nd > 0) {
        const int inner = std::clamp(innermostDim, 0, nd - 1);
        dims.push_back(inner);
        for (int i = 0; i < nd; i++)
            if (i != inner)
                dims.push_back(i);
    }
    int64_t stride = 1;
    for (int d : dims) {
        s.storage.push_back(stride);
        stride *= storageExtents[static_cast<size_t>(d)];
    }
    for (int loop : threadLoops) {
        std::vector<double> perDim;
        bool ok = true;
        for (int d : dims) {
            if (loop < 0) {
                perDim.push_back(0);
                continue;
            }
            const Rational r = jac.at(static_cast<size_t>(d), static_cast<size_t>(loop));
            if (!r.known()) {
                ok = false;
                break;
            }
            perDim.push_back(r.value());
        }
        s.perThreadDim.push_back(ok ? perDim : std::vector<double>());
        s.valid.push_back(ok);
    }

    MemTotals totals;
    const ThreadInfo &ti = warps.info;
    static thread_local WarpAccess access;
    access.pairs.clear();
    access.bytes.clear();
    access.unknown = 0;
    int id = 0;
    for (int z = 0; z < ti.inBlock[2] && id < kWarpSize; z++)
        for (int y = 0; y < ti.inBlock[1] && id < kWarpSize; y++)
            for (int x = 0; x < ti.inBlock[0] && id < kWarpSize; x++, id++)
                if (x < ti.threads[0] && y < ti.threads[1] && z < ti.threads[2])
                    accessOf(kind, s, bytesPerAccess, x, y, z, access);
    addRequests(kind, access, bytesPerAccess, truncatedRequests(double(warps.regularActiveWarps) * requestsPerWarp),
                totals);
    if (!warps.hasTailWarp)
        return totals;
    access.pairs.clear();
    access.bytes.clear();
    access.unknown = 0;
    const int plane = ti.inBlock[0] * ti.inBlock[1];
    for (int t = warps.tailFirstThread; t < warps.tailFirstThread + warps.tailThreads; t++) {
        const int z = t / plane, y = (t - z * plane) / ti.inBlock[0], x = t % ti.inBlock[0];
        if (x < ti.threads[0] && y < ti.threads[1] && z < ti.threads[2])
            accessOf(kind, s, bytesPerAccess, x, y, z, access);
    }
    addRequests(kind, access, bytesPerAccess, truncatedRequests(requestsPerWarp), totals);
    return totals;
}

int vectorizedAccessSize(int64_t extent, int bytesPerPoint) {
    const int64_t maxPoints = std::min<int64_t>(4, 16 / std::max(1, bytesPerPoint));
    if (maxPoints <= 0)
        return 1;
    if (extent >= maxPoints && extent % maxPoints == 0)
        return static_cast<int>(maxPoints);
    if (extent > 0 && extent < maxPoints && maxPoints % extent == 0)
        return static_cast<int>(extent);
    return 1;
}

bool vectorizableAlong(const RationalJacobian &jac, int innermostDim, size_t j) {
    for (size_t i = 0; i < jac.rows; i++) {
        const Rational r = jac.at(i, j);
        if (static_cast<int>(i) == innermostDim ? !r.isOne() : !r.isZero())
            return false;
    }
    return true;
}

} // namespace beamscope::search
