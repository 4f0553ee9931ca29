// Anderson2021's memory-transaction counting (core/search/gpu_memory_features.h)
// and expr_branching (core/search/expr_branching.h) on hand-worked cases that
// need no golden data: every expected value below is derived in its comment.

#include "core/search/expr_branching.h"
#include "core/search/gpu_memory_features.h"

#include <QtTest>

using namespace beamscope::search;

namespace {

// A block of `threads` x 1 x 1 threads, all active, thread x on loop 0.
WarpLayout block1d(int threads)
{
    ThreadInfo t;
    t.threads[0] = threads;
    t.inBlock[0] = threads;
    t.numThreads = t.numThreadsInBlock = threads;
    t.loopIndices = {0};
    return makeWarpLayout(t);
}

using Extents = std::vector<int64_t>; // the accessed Func's storage extents
using Loops = std::vector<int>;       // the consumer loop of each thread dim

// Producer dim i = coefficient[i] x loop 0 (one consumer loop).
RationalJacobian column(std::vector<Rational> coefficients)
{
    RationalJacobian j(coefficients.size(), 1, 1);
    j.m = std::move(coefficients);
    return j;
}

int branchingOf(const Halide::Func &f)
{
    return exprBranching(f.function(), [](const std::string &, int &) { return false; });
}

} // namespace

class GpuMemoryFeaturesTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void contiguousGlobalLoadsUseWholeSectors()
    {
        // 32 threads read consecutive floats: 128 bytes = 4 sectors of 32 bytes, all bytes used.
        const MemTotals m =
            countAccesses(MemKind::Global, column({{1, 1}, {0, 1}}), 0, Extents{64, 8}, 4, block1d(32), Loops{0}, 1);
        QCOMPARE(m.transactions, 4.0);
        QCOMPARE(m.efficiency(), 1.0);
    }

    void stridedGlobalLoadsWasteHalfOfEachSector()
    {
        // Stride 2 floats: thread x starts at byte 8x, 8 sectors for 128 used bytes of 256 moved.
        const MemTotals m =
            countAccesses(MemKind::Global, column({{2, 1}, {0, 1}}), 0, Extents{64, 8}, 4, block1d(32), Loops{0}, 1);
        QCOMPARE(m.transactions, 8.0);
        QCOMPARE(m.efficiency(), 0.5);
    }

    void columnAccessToSharedMemoryConflictsOnOneBank()
    {
        // Thread x reads row x of a 32-float-wide tile: word 32x, always bank 0 -> 32-way conflict,
        // 32 transactions of 128 bytes for 128 used bytes.
        const MemTotals m =
            countAccesses(MemKind::Shared, column({{0, 1}, {1, 1}}), 0, Extents{32, 32}, 4, block1d(32), Loops{0}, 1);
        QCOMPARE(m.transactions, 32.0);
        QCOMPARE(m.efficiency(), 128.0 / (32.0 * 128.0));
    }

    void tailWarpIsCountedOnItsOwn()
    {
        // 48 threads: warp 0 is full (32 active), warp 1 has 16 -> a tail warp. Contiguous floats,
        // 3 requests per thread: warp 0 touches 4 sectors, the tail (bytes 128..191) 2 sectors:
        // 1 regular warp x 3 x 4 + 3 x 2 = 18.
        const WarpLayout w = block1d(48);
        QCOMPARE(w.regularActiveWarps, 1);
        QVERIFY(w.hasTailWarp);
        QCOMPARE(w.tailFirstThread, 32);
        QCOMPARE(w.tailThreads, 16);
        const MemTotals m = countAccesses(MemKind::Global, column({{1, 1}}), 0, Extents{48}, 4, w, Loops{0}, 3);
        QCOMPARE(m.transactions, 18.0);
        // Requests per block are truncated to int as Halide does: 1 x 2.5 -> 2, tail 2.5 -> 2.
        QCOMPARE(countAccesses(MemKind::Global, column({{1, 1}}), 0, Extents{48}, 4, w, Loops{0}, 2.5).transactions,
                 12.0);
    }

    void fractionalStridesTruncatePerDimension()
    {
        // Half a float per thread: thread x reads element trunc(x / 2), byte 4 * trunc(x / 2), so
        // pairs of threads share an access: 16 distinct floats over 64 bytes = 2 sectors, all used.
        const MemTotals m =
            countAccesses(MemKind::Global, column({{1, 2}, {0, 1}}), 0, Extents{64, 8}, 4, block1d(32), Loops{0}, 1);
        QCOMPARE(m.transactions, 2.0);
        QCOMPARE(m.efficiency(), 1.0);
    }

    void repeatedPatternsCountTheSame()
    {
        // Warp costs are memoized by access pattern: the same pattern asked again, and a pattern
        // differing only in the element stride of thread x, must come out as if computed afresh.
        for (int round = 0; round < 3; round++) {
            QCOMPARE(countAccesses(MemKind::Global, column({{1, 1}}), 0, Extents{64}, 4, block1d(32), Loops{0}, 1)
                         .transactions,
                     4.0);
            QCOMPARE(countAccesses(MemKind::Global, column({{3, 1}}), 0, Extents{128}, 4, block1d(32), Loops{0}, 1)
                         .transactions,
                     12.0); // 12-byte stride: 32 starts over 384 bytes, one per sector of 12
            QCOMPARE(countAccesses(MemKind::Shared, column({{1, 1}}), 0, Extents{64}, 4, block1d(32), Loops{0}, 1)
                         .transactions,
                     1.0); // 32 consecutive words, one per bank
        }
    }

    void unknownStridesCostOneTransactionPerThread()
    {
        const MemTotals m =
            countAccesses(MemKind::Global, column({{0, 0}}), 0, Extents{64}, 4, block1d(32), Loops{0}, 1);
        QCOMPARE(m.transactions, 32.0);
        QCOMPARE(m.efficiency(), 1.0 / 8.0); // 4 of every 32 bytes moved
    }

    void rationalSumsFollowHalide()
    {
        // Halide tests the denominators with a bitwise and: 1/1 + 1/2 becomes unknown.
        Rational a{1, 1};
        a += Rational{1, 2};
        QVERIFY(!a.known());
        Rational b{1, 3};
        b += Rational{1, 3};
        QVERIFY(b.known());
        QCOMPARE(b.value(), double(2.0f / 3.0f));            // equal denominators add numerators; strides are float
        QVERIFY((Rational{0, 1} * Rational{0, 0}).isZero()); // zero wins over unknown
    }

    void vectorWidthOfSharedAccesses()
    {
        QCOMPARE(vectorizedAccessSize(8, 4), 4); // 4 floats = 16 bytes
        QCOMPARE(vectorizedAccessSize(2, 4), 2);
        QCOMPARE(vectorizedAccessSize(3, 4), 1);
        QCOMPARE(vectorizedAccessSize(8, 8), 2); // 2 doubles = 16 bytes
    }

    void exprBranchingCountsRegistersLikeHalide()
    {
        Halide::Var x("x"), y("y");
        Halide::Func sum("sum");
        sum(x, y) = x + y; // two equal leaves: 2; args x, y: 2
        QCOMPARE(branchingOf(sum), 2);
        Halide::ImageParam in(Halide::Float(32), 2, "in");
        Halide::Func blur("blur");
        // in(x, y) and in(x + 1, y) measure their args: 2 each; 2 + 2 -> 3; / 2.0f (1) stays 3.
        blur(x, y) = (in(x, y) + in(x + 1, y)) / 2.0f;
        QCOMPARE(branchingOf(blur), 3);
        Halide::Func out("out");
        out(x, y) = blur(x, y) + blur(x, y + 1);
        // Not inlined: each call measures its args (x, y + 1 -> 2), 2 + 2 -> 3.
        QCOMPARE(branchingOf(out), 3);
        // Inlined: each call counts as blur's own 3, 3 + 3 -> 4.
        QCOMPARE(exprBranching(out.function(),
                               [&](const std::string &name, int &v) {
                                   if (name != "blur")
                                       return false;
                                   v = branchingOf(blur);
                                   return true;
                               }),
                 4);
    }
};

QTEST_GUILESS_MAIN(GpuMemoryFeaturesTest)
#include "test_gpu_memory_features.moc"
