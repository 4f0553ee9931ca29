// Rank metrics against examples worked by hand (the working is in the comments).

#include "core/samples/bootstrap_interval.h"
#include "core/samples/rank_metrics.h"

#include <QtTest>

#include <cmath>
#include <random>
#include <vector>

using namespace beamscope::samples;

class RankMetricsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void perfectAndReversedOrder()
    {
        const std::vector<double> a{1, 2, 3, 4, 5};
        const std::vector<double> up{10, 20, 30, 40, 50};
        const std::vector<double> down{5, 4, 3, 2, 1};
        QCOMPARE(spearman(a, up), 1.0);
        QCOMPARE(kendallTauB(a, up), 1.0);
        QCOMPARE(pairwiseAccuracy(up, a), 1.0);
        QCOMPARE(spearman(a, down), -1.0);
        QCOMPARE(kendallTauB(a, down), -1.0);
        QCOMPARE(pairwiseAccuracy(down, a), 0.0);
    }

    void tiesInOneSide()
    {
        // actual a = 1..5, predicted b = 5 6 7 8 7.
        // Ranks of b: 1 2 3.5 5 3.5; deviations from the mean rank 3:
        //   a: -2 -1 0 1 2, b: -2 -1 .5 2 .5
        //   sum(da·db) = 4+1+0+2+1 = 8, sum(da²) = 10, sum(db²) = 9.5
        //   Spearman = 8 / sqrt(95) = 0.8207826816...
        // Pairs (10): all concordant except (3,4)... precisely: (4,5) discordant
        //   (8 > 7 while 4 < 5), (3,5) tied in b; concordant 8, discordant 1,
        //   ties in b 1, none in a: tau-b = 7 / sqrt(10 · 9) = 0.7378647873...
        // Pairwise accuracy: 8 right, 1 tie (1/2), 1 wrong over 10 = 0.85.
        const std::vector<double> a{1, 2, 3, 4, 5};
        const std::vector<double> b{5, 6, 7, 8, 7};
        QVERIFY(std::abs(spearman(b, a) - 8.0 / std::sqrt(95.0)) < 1e-12);
        QVERIFY(std::abs(kendallTauB(b, a) - 7.0 / std::sqrt(90.0)) < 1e-12);
        QVERIFY(std::abs(pairwiseAccuracy(b, a) - 0.85) < 1e-12);
    }

    void tiesOnBothSides()
    {
        // x = 1 1 2 3, y = 1 2 2 3. Pairs: (1,2): x tie; (1,3) C; (1,4) C; (2,3): y tie;
        // (2,4) C; (3,4) C. nc = 4, nd = 0, ties x = 1, ties y = 1, n0 = 6:
        // tau-b = 4 / sqrt(5 · 5) = 0.8.
        // Ranks x: 1.5 1.5 3 4, y: 1 2.5 2.5 4, mean 2.5:
        //   dx = -1 -1 .5 1.5, dy = -1.5 0 0 1.5; sum dx·dy = 1.5 + 2.25 = 3.75;
        //   sum dx² = 1+1+.25+2.25 = 4.5; sum dy² = 4.5: Spearman = 3.75/4.5 = 0.8333...
        // Pairwise accuracy with predicted = x, actual = y: pairs with y distinct: 5;
        //   (1,2): x tie -> 1/2; (1,3), (1,4), (2,4), (3,4) right: 4.5 / 5 = 0.9.
        const std::vector<double> x{1, 1, 2, 3};
        const std::vector<double> y{1, 2, 2, 3};
        QVERIFY(std::abs(kendallTauB(x, y) - 0.8) < 1e-12);
        QVERIFY(std::abs(spearman(x, y) - 3.75 / 4.5) < 1e-12);
        QVERIFY(std::abs(pairwiseAccuracy(x, y) - 0.9) < 1e-12);
    }

    void undefinedCases()
    {
        const std::vector<double> one{1};
        QVERIFY(std::isnan(spearman(one, one)));
        QVERIFY(std::isnan(kendallTauB(one, one)));
        QVERIFY(std::isnan(pairwiseAccuracy(one, one)));
        const std::vector<double> constant{2, 2, 2};
        const std::vector<double> varying{1, 2, 3};
        QVERIFY(std::isnan(spearman(constant, varying)));
        QVERIFY(std::isnan(kendallTauB(constant, varying)));
        // Predictions all tied: every pair is half right.
        QCOMPARE(pairwiseAccuracy(constant, varying), 0.5);
        QVERIFY(std::isnan(pairwiseAccuracy(varying, constant)));
    }

    void nanPairsAreLeftOut()
    {
        // The NaN pairs are dropped, leaving the tiesOnBothSides example.
        const double nan = std::nan("");
        const std::vector<double> x{1, nan, 1, 2, 5, 3};
        const std::vector<double> y{1, 4, 2, 2, nan, 3};
        QVERIFY(std::abs(kendallTauB(x, y) - 0.8) < 1e-12);
        QVERIFY(std::abs(spearman(x, y) - 3.75 / 4.5) < 1e-12);
        QVERIFY(std::abs(pairwiseAccuracy(x, y) - 0.9) < 1e-12);
        QCOMPARE(rankMetrics(x, y).count, size_t{4});
    }

    void bundle()
    {
        const std::vector<double> predicted{3, 1, 2};
        const std::vector<double> actual{30, 10, 20};
        const auto m = rankMetrics(predicted, actual);
        QCOMPARE(m.count, size_t{3});
        QCOMPARE(m.spearman, 1.0);
        QCOMPARE(m.kendall, 1.0);
        QCOMPARE(m.pairwiseAccuracy, 1.0);
    }

    // A perfect order stays perfect in every resample (resamples repeat schedules, and equal pairs are
    // ties on both sides): the interval is [1, 1]. Twelve noisy schedules give a wide interval, 200 a
    // narrow one around the same figure; the same seed gives the same interval.
    void bootstrapIntervals()
    {
        std::vector<double> perfect(12), measured(12);
        for (size_t i = 0; i < 12; ++i) {
            perfect[i] = double(i);
            measured[i] = 10.0 + double(i);
        }
        const ScheduleRanking exact{perfect, measured};
        const RankIntervals p = bootstrapRankIntervals(std::span(&exact, 1));
        QCOMPARE(p.schedules, size_t{12});
        QCOMPARE(p.spearman.low, 1.0);
        QCOMPARE(p.spearman.high, 1.0);
        QCOMPARE(p.top1.low, 1.0);

        std::mt19937_64 rng(3);
        std::normal_distribution<double> noise(0.0, 40.0);
        const auto noisy = [&](size_t n) {
            std::pair<std::vector<double>, std::vector<double>> v;
            for (size_t i = 0; i < n; ++i) {
                v.first.push_back(double(i) + noise(rng) * double(n) / 100.0);
                v.second.push_back(double(i));
            }
            return v;
        };
        const auto few = noisy(12), many = noisy(200);
        const ScheduleRanking a{few.first, few.second}, b{many.first, many.second};
        const RankIntervals small = bootstrapRankIntervals(std::span(&a, 1));
        const RankIntervals large = bootstrapRankIntervals(std::span(&b, 1));
        QVERIFY(small.spearman.defined() && large.spearman.defined());
        const double point = spearman(few.first, few.second);
        QVERIFY(small.spearman.low <= point && point <= small.spearman.high);
        QVERIFY2(small.spearman.high - small.spearman.low > 2 * (large.spearman.high - large.spearman.low),
                 qPrintable(QStringLiteral("12: [%1, %2], 200: [%3, %4]")
                                .arg(small.spearman.low)
                                .arg(small.spearman.high)
                                .arg(large.spearman.low)
                                .arg(large.spearman.high)));
        const RankIntervals again = bootstrapRankIntervals(std::span(&a, 1));
        QCOMPARE(again.spearman.low, small.spearman.low);
        QVERIFY(small.spearman.overlaps(again.spearman));
        const Interval low{0.1, 0.2}, high{0.3, 0.4};
        QVERIFY(!low.overlaps(high));

        // Fewer than three schedules: no interval.
        const std::vector<double> two{1, 2};
        const ScheduleRanking tiny{two, two};
        QVERIFY(!bootstrapRankIntervals(std::span(&tiny, 1)).spearman.defined());
    }
};

QTEST_GUILESS_MAIN(RankMetricsTest)
#include "test_rank_metrics.moc"
