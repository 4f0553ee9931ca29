// Statistics and diff figures on small hand-made tensors, against values worked
// out by hand in the comments (not by calling the code under test twice).

#include "core/weights/statistics.h"

#include "tests/weights/qtest_std_string.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace beamscope::weights;

namespace {
// Figures are computed in double from float inputs that are exact in binary;
// 1e-12 relative leaves room only for the order of summation.
bool near(double a, double b) { return std::fabs(a - b) <= 1e-12 * std::max(1.0, std::fabs(b)); }
} // namespace

class WeightsStatisticsTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void statsSkipNonFiniteValues()
    {
        Tensor t;
        t.name = "t";
        t.shape = {7};
        const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
        t.data = {1.0f, -2.0f, 0.0f, 3.0f, nan, inf, -0.0f};
        const TensorStats s = computeStats(t);
        QCOMPARE(s.count, size_t(7));
        QCOMPARE(s.nanCount, size_t(1));
        QCOMPARE(s.infCount, size_t(1));
        QCOMPARE(s.zeroCount, size_t(2)); // +0 and -0
        // Finite values 1, -2, 0, 3, -0: sum 2, mean 0.4.
        QCOMPARE(s.min, -2.0);
        QCOMPARE(s.max, 3.0);
        QVERIFY(near(s.mean, 0.4));
        // Deviations 0.6, -2.4, -0.4, 2.6, -0.4: squares sum to 13.2; population variance 2.64.
        QVERIFY2(near(s.stddev, std::sqrt(2.64)), qPrintable(QString::number(s.stddev, 'g', 17)));
        // 1 + 4 + 0 + 9 + 0 = 14.
        QVERIFY(near(s.l2norm, std::sqrt(14.0)));
    }

    void statsOfNothingFinite()
    {
        Tensor t;
        t.shape = {2};
        t.data = {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity()};
        const TensorStats s = computeStats(t);
        QCOMPARE(s.count, size_t(2));
        QCOMPARE(s.nanCount, size_t(1));
        QCOMPARE(s.infCount, size_t(1));
        QCOMPARE(s.min, 0.0);
        QCOMPARE(s.max, 0.0);
        QCOMPARE(s.l2norm, 0.0);
    }

    void unflattenIsDimensionZeroFastest()
    {
        Tensor t;
        t.shape = {8, 40, 7};
        t.data.resize(8 * 40 * 7);
        // 1234 = 2 + 8 * (34 + 40 * 3)
        QCOMPARE(t.unflatten(1234), (std::vector<uint32_t>{2, 34, 3}));
        QCOMPARE(t.unflatten(0), (std::vector<uint32_t>{0, 0, 0}));
        QCOMPARE(t.unflatten(2239), (std::vector<uint32_t>{7, 39, 6}));
    }

    void diffOfHandMadeTensors()
    {
        Weights a = zeroWeights(Network::Anderson2021);
        Weights b = a;
        // conv1_filter is 32 x 32; flat 40 is (8, 1).
        auto &fa = a.tensor(Conv1Filter).data;
        auto &fb = b.tensor(Conv1Filter).data;
        fa[0] = 1, fa[1] = 2, fa[40] = 3, fa[3] = 4;
        fb[0] = 1, fb[1] = 2, fb[40] = 5, fb[3] = 0;
        const WeightsDiff d = diffWeights(a, b, 10);
        QVERIFY(d.comparable);
        QCOMPARE(d.tensors.size(), size_t(kTensorCount));
        for (int i = 0; i < kTensorCount; i++) {
            if (i == Conv1Filter)
                continue;
            QCOMPARE(d.tensors[i].changedCount, size_t(0));
            QCOMPARE(d.tensors[i].maxAbsDiff, 0.0);
            QCOMPARE(d.tensors[i].relativeL2, 0.0);       // both zero
            QCOMPARE(d.tensors[i].cosineSimilarity, 1.0); // both zero
        }
        const TensorDiff &t = d.tensors[Conv1Filter];
        QCOMPARE(t.name, std::string("conv1_filter"));
        QCOMPARE(t.changedCount, size_t(2));
        // b - a = (0, 0, +2 at 40, -4 at 3): max |d| 4, ||d|| = sqrt(20), ||a|| = sqrt(30),
        // ||b|| = sqrt(1 + 4 + 25) = sqrt(30), a.b = 1 + 4 + 15 = 20.
        QCOMPARE(t.maxAbsDiff, 4.0);
        QVERIFY(near(t.relativeL2, std::sqrt(20.0) / std::sqrt(30.0)));
        QVERIFY(near(t.cosineSimilarity, 20.0 / 30.0));
        QCOMPARE(t.largest.size(), size_t(2));
        QCOMPARE(t.largest[0].flatIndex, size_t(3));
        QCOMPARE(t.largest[0].index, (std::vector<uint32_t>{3, 0}));
        QCOMPARE(t.largest[0].a, 4.0f);
        QCOMPARE(t.largest[0].b, 0.0f);
        QCOMPARE(t.largest[0].absDiff, 4.0);
        QCOMPARE(t.largest[1].flatIndex, size_t(40));
        QCOMPARE(t.largest[1].index, (std::vector<uint32_t>{8, 1}));
        QCOMPARE(t.largest[1].absDiff, 2.0);
        QCOMPARE(t.difference.size(), size_t(1024));
        QCOMPARE(t.difference[3], -4.0f);
        QCOMPARE(t.difference[40], 2.0f);
        QCOMPARE(t.difference[0], 0.0f);

        QCOMPARE(diffWeights(a, b, 1).tensors[Conv1Filter].largest.size(), size_t(1));
        QCOMPARE(diffWeights(a, b, 0).tensors[Conv1Filter].largest.size(), size_t(0));
    }

    void diffAgainstZeros()
    {
        const Weights zero = zeroWeights(Network::Adams2019);
        Weights other = zero;
        other.tensor(Head1Bias).data[2] = -3;
        const TensorDiff fromZero = diffWeights(zero, other).tensors[Head1Bias];
        QVERIFY(std::isinf(fromZero.relativeL2)); // only a is zero
        QCOMPARE(fromZero.cosineSimilarity, 0.0);
        QCOMPARE(fromZero.maxAbsDiff, 3.0);
        const TensorDiff toZero = diffWeights(other, zero).tensors[Head1Bias];
        QCOMPARE(toZero.relativeL2, 1.0); // ||0 - a|| / ||a||
        QCOMPARE(toZero.difference[2], 3.0f);
    }

    void signedZeroIsAChangeOfBits()
    {
        Weights a = zeroWeights(Network::Anderson2021);
        Weights b = a;
        b.tensor(Conv1Bias).data[5] = -0.0f;
        const TensorDiff t = diffWeights(a, b).tensors[Conv1Bias];
        QCOMPARE(t.changedCount, size_t(1));
        QCOMPARE(t.maxAbsDiff, 0.0);
    }

    void differentNetworksAreNotComparable()
    {
        const WeightsDiff d = diffWeights(zeroWeights(Network::Anderson2021), zeroWeights(Network::Adams2019));
        QVERIFY(!d.comparable);
        QVERIFY(d.tensors.empty());
        QVERIFY2(d.reason.find("head2_filter") != std::string::npos, d.reason.c_str());
        QVERIFY2(d.reason.find("24 x 73") != std::string::npos, d.reason.c_str());
        QVERIFY2(d.reason.find("24 x 39") != std::string::npos, d.reason.c_str());
    }
};

QTEST_GUILESS_MAIN(WeightsStatisticsTest)
#include "weights_statistics_test.moc"
