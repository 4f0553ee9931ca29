// compare-weights' figures (core/samples/weights_comparison.h): the top-k
// score against an example worked by hand, and per-app scores equal to the
// rank metrics of the app's own predictions, with each app judged by the
// weights file a per-app folder has for it.

#include "core/model/cost_model.h"
#include "core/samples/prediction.h"
#include "core/samples/weights_comparison.h"
#include "core/weights/weights.h"
#include "tests/samples/synthetic_samples.h"
#include "tests/support/test_data.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace beamscope;
using namespace beamscope::samples;

namespace {

PipelineSet syntheticPipeline(int32_t id, const std::string &app, int stages, const std::vector<float> &runtimes,
                              uint32_t seed)
{
    std::mt19937 rng(seed);
    PipelineSet p;
    p.pipelineId = id;
    p.app = app;
    p.stageCount = stages;
    p.pipelineFeatures = test::syntheticPipelineFeatures(stages, seed);
    for (size_t i = 0; i < runtimes.size(); i++) {
        ScheduleEntry e;
        e.scheduleId = static_cast<int32_t>(i);
        e.hash = i;
        e.runtimesMs = {runtimes[i]};
        e.features = test::syntheticScheduleFeatures(stages, rng);
        p.schedules.push_back(e);
    }
    return p;
}

} // namespace

class WeightsComparisonTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void topKByHand()
    {
        // Runtimes 5 3 8 1 4 2 (best 1); predictions rank the schedules
        // 0 (5 ms), 2 (8), 4 (4), 5 (2), 1 (3), 3 (1). Top-1: 5 / 1 = 5.
        // Top-2: min(5, 8) / 1 = 5. Top-4: min(5, 8, 4, 2) = 2. Top-5: 2.
        // Top-6 sees the fastest: 1.
        const PipelineSet p = syntheticPipeline(1, "a", 1, {5, 3, 8, 1, 4, 2}, 3);
        const std::vector<float> predicted{0.1f, 0.5f, 0.2f, 0.9f, 0.3f, 0.4f};
        QCOMPARE(topKScore(p, predicted, 1), 5.0);
        QCOMPARE(topKScore(p, predicted, 2), 5.0);
        QCOMPARE(topKScore(p, predicted, 4), 2.0);
        QCOMPARE(topKScore(p, predicted, 5), 2.0);
        QCOMPARE(topKScore(p, predicted, 6), 1.0);
        QCOMPARE(topKScore(p, predicted, 60), 1.0);
        // Ties in the prediction keep the set's order: schedules 0 and 1 tie,
        // so top-1 is schedule 0 (5 ms).
        QCOMPARE(topKScore(p, {0.1f, 0.1f, 0.2f, 0.9f, 0.3f, 0.4f}, 1), 5.0);
        QVERIFY(std::isnan(topKScore(p, {}, 1)));
    }

    void perAppWeightsFromAFolder()
    {
        BEAMSCOPE_REQUIRE_DATA(baseline, "weights/anderson2021/baseline.weights");
        BEAMSCOPE_REQUIRE_DATA(other, "weights/anderson2021/bilateral_grid.weights");
        QTemporaryDir tmp;
        const std::filesystem::path dir = tmp.path().toStdString();
        std::filesystem::copy_file(other, dir / "alpha.weights");

        Dataset d;
        d.pipelines.push_back(syntheticPipeline(1, "alpha", 2, {4, 1, 3, 2, 6, 5, 7}, 11));
        d.pipelines.push_back(syntheticPipeline(2, "beta", 3, {2, 1, 3}, 12));

        std::string error;
        const WeightsChoice folder = weightsChoiceFor(dir.string(), error);
        QVERIFY2(!folder.label.empty(), error.c_str());
        const WeightsChoice single = weightsChoiceFor(baseline.string(), error);
        QVERIFY2(!single.label.empty(), error.c_str());
        QVERIFY(weightsChoiceFor((dir / "missing.weights").string(), error).label.empty());
        QVERIFY(!error.empty());

        const std::vector<ChoiceScore> scores = compareWeights(d, {folder, single}, 80);
        QCOMPARE(scores.size(), size_t{2});
        // The folder has weights for alpha only: beta is named, not scored.
        QCOMPARE(scores[0].appsScored, size_t{1});
        QCOMPARE(scores[0].apps[1].app, std::string("beta"));
        QVERIFY(scores[0].apps[1].error.find("no weights") != std::string::npos);
        QCOMPARE(scores[1].appsScored, size_t{2});

        // Each app's figures are those of its own predictions with its file.
        auto expect = [&](const ChoiceScore &score, size_t app, const std::filesystem::path &weightsPath) {
            const AppScore &a = score.apps[app];
            QCOMPARE(a.weights, weightsPath);
            weights::LoadResult w = weights::loadWeights(weightsPath);
            const model::CostModel model(std::move(*w.weights));
            const PipelinePredictions pred = predictPipeline(model, d.pipelines[app], 80);
            const RankMetrics m = pipelineRankMetrics(d.pipelines[app], pred.predictions);
            QCOMPARE(a.rank.spearman, m.spearman);
            QCOMPARE(a.rank.kendall, m.kendall);
            QCOMPARE(a.rank.pairwiseAccuracy, m.pairwiseAccuracy);
            QCOMPARE(a.top1, topKScore(d.pipelines[app], pred.predictions, 1));
            QCOMPARE(a.top5, topKScore(d.pipelines[app], pred.predictions, 5));
            QCOMPARE(a.schedules, d.pipelines[app].schedules.size());
        };
        expect(scores[0], 0, dir / "alpha.weights");
        expect(scores[1], 0, baseline);
        expect(scores[1], 1, baseline);
        // Overall: the mean over the apps scored.
        QCOMPARE(scores[1].top1, (scores[1].apps[0].top1 + scores[1].apps[1].top1) / 2);
        QCOMPARE(scores[0].spearman, scores[0].apps[0].rank.spearman);
        // Over the apps both choices scored (alpha only): the baseline's alpha figures.
        QCOMPARE(scores[1].common.apps, size_t{1});
        QCOMPARE(scores[1].common.top1, scores[1].apps[0].top1);
        QCOMPARE(scores[0].common.spearman, scores[0].apps[0].rank.spearman);
    }

    // Review, Device 1: schedules of two pipelines are never ranked against
    // each other. An app's figures are the mean of its pipelines' own; each
    // pipeline no app names is a row of its own, said to be unnamed.
    void pipelinesAreNeverRankedAgainstEachOther()
    {
        BEAMSCOPE_REQUIRE_DATA(baseline, "weights/anderson2021/bilateral_grid.weights");
        Dataset d;
        d.pipelines.push_back(syntheticPipeline(1, "", 2, {400, 100, 300, 200, 600}, 21));
        d.pipelines.push_back(syntheticPipeline(2, "", 3, {2, 1, 3, 5, 4}, 22));
        d.pipelines.push_back(syntheticPipeline(3, "gamma", 2, {40, 10, 30, 20}, 23));
        d.pipelines.push_back(syntheticPipeline(4, "gamma", 4, {0.2f, 0.1f, 0.3f, 0.5f}, 24));
        std::string error;
        const WeightsChoice single = weightsChoiceFor(baseline.string(), error);
        const std::vector<ChoiceScore> scores = compareWeights(d, {single}, 80);
        QCOMPARE(scores.size(), size_t{1});
        const std::vector<AppScore> &rows = scores[0].apps;
        QCOMPARE(rows.size(), size_t{3}); // gamma, then each unnamed pipeline
        QCOMPARE(rows[0].app, std::string("gamma"));
        QVERIFY(!rows[0].unnamed);
        QCOMPARE(rows[1].app, std::string("pipeline 1 (no app)"));
        QCOMPARE(rows[2].app, std::string("pipeline 2 (no app)"));
        QVERIFY(rows[1].unnamed && rows[2].unnamed);
        QCOMPARE(scores[0].appsScored, size_t{3});

        weights::LoadResult w = weights::loadWeights(baseline);
        const model::CostModel model(std::move(*w.weights));
        auto own = [&](size_t pipeline) {
            return pipelineRankMetrics(d.pipelines[pipeline],
                                       predictPipeline(model, d.pipelines[pipeline], 80).predictions);
        };
        QCOMPARE(rows[1].rank.spearman, own(0).spearman);
        QCOMPARE(rows[2].rank.kendall, own(1).kendall);
        QCOMPARE(rows[1].schedules, size_t{5});
        // gamma: the mean of its two pipelines' figures, not a ranking of all eight schedules.
        QCOMPARE(rows[0].rank.spearman, (own(2).spearman + own(3).spearman) / 2);
        QCOMPARE(rows[0].rank.pairwiseAccuracy, (own(2).pairwiseAccuracy + own(3).pairwiseAccuracy) / 2);
        QCOMPARE(rows[0].predicted.size(), size_t{8}); // the scatter still shows every schedule

        // A per-app choice has no file for a pipeline no app names, and says why.
        const WeightsChoice h = weightsChoiceFor("halide-hold-one-out", error);
        const std::vector<ChoiceScore> held = compareWeights(d, {h}, 80);
        QVERIFY(held[0].apps[1].error.find("no app names this pipeline") != std::string::npos);
    }

    void shippedHoldOneOutJudgesEachAppWithoutItself()
    {
        std::string error;
        const WeightsChoice h = weightsChoiceFor("halide-hold-one-out", error);
        const auto file = h.weightsFor("bilateral_grid");
        QVERIFY(file);
        QCOMPARE(file->filename().string(), std::string("bilateral_grid.weights"));
        QVERIFY(!h.weightsFor("box_blur")); // a golden pipeline, in no hold-one-out set
    }
};

QTEST_GUILESS_MAIN(WeightsComparisonTest)
#include "test_weights_comparison.moc"
