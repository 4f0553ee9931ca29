// The cost-gap scan: a change planted in one stage's features, seen only
// through the totals two weights files give it, is found again.

#include "core/model/cost_gap.h"
#include "core/model/cost_model.h"
#include "core/samples/sample.h"
#include "tests/model/model_test_support.h"
#include "tests/support/test_data.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <memory>

using namespace beamscope;
using namespace beamscope::model;

namespace {

struct Features {
    int stages = 0;
    std::vector<float> pipeline, schedule;
};

// A real schedule: Halide's featurization of conv_relu's beam-32 winner.
Features goldenFeatures(const std::filesystem::path &path)
{
    const samples::SampleReadResult read = samples::readFeatures(path);
    if (!read.ok())
        throw std::runtime_error(read.error);
    return {read.sample->stageCount(), samples::pipelineFeaturesOf(*read.sample),
            samples::scheduleFeaturesOf(*read.sample)};
}

float total(const CostModel &m, const Features &f)
{
    return m.evaluate(f.pipeline, f.schedule, f.stages, 1, 80).predictions[0];
}

float total(const CostModel &m, const Features &pipeline, const Features &schedule)
{
    return m.evaluate(pipeline.pipeline, schedule.schedule, pipeline.stages, 1, 80).predictions[0];
}

} // namespace

class TestCostGap : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void findsAPlantedPipelineChange();
    void findsAPlantedScheduleChange();
    void reportsStageCostsAsEvaluateDoes();
    void refusesBadInput();

private:
    std::unique_ptr<CostModel> m_baseline, m_unsharp;
    Features m_features, m_beam1; // conv_relu's beam-32 and beam-1 winners: one algorithm, two schedules
};

void TestCostGap::initTestCase()
{
    BEAMSCOPE_REQUIRE_DATA(baseline, "weights/anderson2021/baseline.weights");
    BEAMSCOPE_REQUIRE_DATA(unsharp, "weights/anderson2021/unsharp.weights");
    BEAMSCOPE_REQUIRE_DATA(sample, "tests/fixtures/halide/samples/from_pipelines/conv_relu_beam32.sample");
    m_baseline = std::make_unique<CostModel>(model::test::loadWeightsOrThrow(baseline));
    m_unsharp = std::make_unique<CostModel>(model::test::loadWeightsOrThrow(unsharp));
    BEAMSCOPE_REQUIRE_DATA(beam1, "tests/fixtures/halide/samples/from_pipelines/conv_relu_beam1.sample");
    m_features = goldenFeatures(sample);
    m_beam1 = goldenFeatures(beam1);
    QVERIFY(m_features.stages >= 2);
    QCOMPARE(m_beam1.stages, m_features.stages);
    QVERIFY(m_beam1.pipeline == m_features.pipeline);
    QVERIFY(m_beam1.schedule != m_features.schedule);
}

void TestCostGap::findsAPlantedPipelineChange()
{
    // One more op in the last stage's op histogram (row 3, Float), as another front end might
    // count, seen through two schedules of the pipeline, each costed under other weights.
    const int stage = m_features.stages - 1, cell = 3 * kPipelineFeatureTypes + 5;
    Features planted = m_features;
    planted.pipeline[static_cast<size_t>(stage * kPipelineFeaturesPerStage + cell)] += 1;
    const CostTarget targets[] = {{m_baseline.get(), total(*m_baseline, planted), m_features.schedule},
                                  {m_unsharp.get(), total(*m_unsharp, planted, m_beam1), m_beam1.schedule}};
    QVERIFY(std::abs(targets[0].cost - total(*m_baseline, m_features)) > 1e-4 * targets[0].cost);

    CostGapOptions options;
    options.threads = 2;
    const CostGapReport r = explainCostGap(m_features.pipeline, m_features.stages, targets, options);
    // Stages the two schedules featurize alike have their schedule features scanned too.
    for (int st = 0; st < m_features.stages; st++) {
        const auto at = m_features.schedule.begin() + st * kScheduleFeatureCount;
        const bool alike =
            std::equal(at, at + kScheduleFeatureCount, m_beam1.schedule.begin() + st * kScheduleFeatureCount);
        QCOMPARE(r.scheduleScanned.at(static_cast<size_t>(st)), alike);
    }
    QVERIFY(std::find(r.scheduleScanned.begin(), r.scheduleScanned.end(), false) != r.scheduleScanned.end());
    QVERIFY(!r.candidates.empty());
    const CostGapCandidate &best = r.candidates.front();
    QCOMPARE(best.change.stage, stage);
    QCOMPARE(best.change.kind, FeatureKind::Pipeline);
    QCOMPARE(best.change.index, cell);
    QCOMPARE(best.change.to, best.change.from + 1);
    QCOMPARE(best.worstRelativeError, 0.0); // the same float operations as the planted evaluation
    QVERIFY(r.candidates.size() <= static_cast<size_t>(options.maxCandidates));
    for (size_t i = 1; i < r.candidates.size(); i++) {
        QVERIFY(r.candidates[i - 1].worstRelativeError <= r.candidates[i].worstRelativeError);
        if (r.candidates[i].change.kind == FeatureKind::Schedule)
            QVERIFY(r.scheduleScanned[static_cast<size_t>(r.candidates[i].change.stage)]);
    }
}

void TestCostGap::findsAPlantedScheduleChange()
{
    // 30% more bytes at realization in the first stage that has any (a continuous feature: solved
    // for, not enumerated).
    const int feature = 12; // bytes_at_realization
    int stage = 0;
    while (stage < m_features.stages &&
           m_features.schedule[static_cast<size_t>(stage * kScheduleFeatureCount + feature)] == 0)
        stage++;
    QVERIFY(stage < m_features.stages);
    Features planted = m_features;
    float &value = planted.schedule[static_cast<size_t>(stage * kScheduleFeatureCount + feature)];
    QVERIFY(value > 0);
    value *= 1.3f;
    const CostTarget targets[] = {{m_unsharp.get(), total(*m_unsharp, planted), m_features.schedule},
                                  {m_baseline.get(), total(*m_baseline, planted), m_features.schedule}};
    QVERIFY(std::abs(targets[0].cost - total(*m_unsharp, m_features)) > 1e-5 * targets[0].cost);

    const CostGapReport r = explainCostGap(m_features.pipeline, m_features.stages, targets, {});
    QCOMPARE(std::count(r.scheduleScanned.begin(), r.scheduleScanned.end(), true), ptrdiff_t(m_features.stages));
    QVERIFY(!r.candidates.empty());
    const CostGapCandidate &best = r.candidates.front();
    QCOMPARE(best.change.stage, stage);
    QCOMPARE(best.change.kind, FeatureKind::Schedule);
    QCOMPARE(best.change.index, feature);
    // Bisection on float values: the fitted value is the planted one to float resolution of the cost.
    QVERIFY2(std::abs(best.change.to - value) <= 1e-3 * value,
             qPrintable(QString("fitted %1, planted %2").arg(best.change.to).arg(value)));
    QVERIFY2(best.worstRelativeError < 1e-5, qPrintable(QString::number(best.worstRelativeError)));
    // The runner-up explains the two totals much worse: the second weights file tells them apart.
    QVERIFY(r.candidates.size() > 1);
    QVERIFY(r.candidates[1].worstRelativeError > 10 * best.worstRelativeError);
}

void TestCostGap::reportsStageCostsAsEvaluateDoes()
{
    const CostTarget targets[] = {{m_baseline.get(), 1.0, m_features.schedule}};
    const CostGapReport r = explainCostGap(m_features.pipeline, m_features.stages, targets, {});
    const Evaluation e = m_baseline->evaluate(m_features.pipeline, m_features.schedule, m_features.stages, 1, 80);
    QCOMPARE(r.numStages, m_features.stages);
    QCOMPARE(r.totals.at(0), e.predictions[0]);
    QCOMPARE(r.stageCosts.at(0), e.costPerStage);
}

void TestCostGap::refusesBadInput()
{
    const auto pf = m_features.pipeline;
    const int stages = m_features.stages;
    QVERIFY_THROWS_EXCEPTION(ModelError, explainCostGap(pf, stages, std::span<const CostTarget>(), {}));
    const CostTarget zeroCost[] = {{m_baseline.get(), 0.0, m_features.schedule}};
    QVERIFY_THROWS_EXCEPTION(ModelError, explainCostGap(pf, stages, zeroCost, {}));
    const CostTarget shortSchedule[] = {
        {m_baseline.get(), 1.0, std::span<const float>(m_features.schedule).first(kScheduleFeatureCount)}};
    QVERIFY_THROWS_EXCEPTION(ModelError, explainCostGap(pf, stages, shortSchedule, {}));
    const CostTarget one[] = {{m_baseline.get(), 1.0, m_features.schedule}};
    QVERIFY_THROWS_EXCEPTION(ModelError, explainCostGap(pf, stages + 1, one, {}));
}

QTEST_GUILESS_MAIN(TestCostGap)
#include "test_cost_gap.moc"
