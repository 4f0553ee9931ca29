// Every built-in pipeline, searched at beam 1 and at a small beam: the chosen
// state's schedule (core/schedule) must compile for CUDA (PTX, no GPU needed)
// and, on OpenCL (PoCL here), produce the same output as the host reference
// through the bench worker (core/schedule/app_check.h). A failing row names
// the pipeline, the beam and what failed, with the emitted source.
//
// The comparison is strict_float on both sides and therefore exact, but for
// pipelines calling the device math library (core/bench/float_check.h, which
// explains the one-unit hist / local_laplacian differences of fast-math builds).
//
// The weights are the seeded synthetic ones of tests/search (not Halide's):
// they make the search pick varied tilings and locations, which is what this
// test needs to exercise, and exercise more than one model. Halide's
// baseline weights at beam 32 are test_schedule_apps_beam32's.

#include "core/schedule/app_check.h"
#include "tests/schedule/app_check_support.h"
#include "tests/search/search_test_support.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace beamscope;

namespace {

constexpr int kSmallBeam = 3;
constexpr double kScale = 0.125; // outputs at an eighth of their estimates: quick on PoCL

} // namespace

class TestScheduleApps : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_cache;
    std::unique_ptr<model::CostModel> m_model;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_cache.isValid());
        m_model = std::make_unique<model::CostModel>(test::syntheticWeights(7));
    }

    void scheduleCompilesAndRuns_data()
    {
        QTest::addColumn<QString>("pipeline");
        QTest::addColumn<int>("beam");
        const QString only = qEnvironmentVariable("BEAMSCOPE_SCHEDULE_APPS"); // comma list to narrow a rerun
        for (const pipelines::PipelineInfo &info : pipelines::builtinPipelines()) {
            if (!only.isEmpty() && !only.split(',').contains(QString::fromStdString(info.name)))
                continue;
            for (int beam : {1, kSmallBeam})
                QTest::newRow((info.name + "/beam" + std::to_string(beam)).c_str())
                    << QString::fromStdString(info.name) << beam;
        }
    }

    void scheduleCompilesAndRuns()
    {
        QFETCH(QString, pipeline);
        QFETCH(int, beam);
        const auto info = pipelines::findPipeline(pipeline.toStdString());
        QVERIFY(info);

        schedule::AppCheckOptions options;
        options.params.beamSize = beam;
        options.params.numPasses = beam == 1 ? 1 : 2;
        options.params.randomDropoutSeed = 1;
        options.compile.cacheDir = m_cache.path().toStdString();
        options.compile.jobs = 2;
        options.run.reps = 1;
        options.run.warmup = 0;
        options.run.scale = kScale;
        options.run.timeoutSeconds = 300;
        const std::vector<schedule::AppCheck> rows = schedule::checkApps({*info}, *m_model, options);
        QCOMPARE(rows.size(), size_t(1));
        const schedule::AppCheck &row = rows.front();
        QVERIFY2(row.searched(), row.error.c_str());
        QVERIFY(row.source.find("compute_root()") != std::string::npos);
        const std::string failure = test::appCheckFailure(row, beam);
        if (!failure.empty()) // QTest shortens long messages: the whole text goes to the log
            qWarning("%s", failure.c_str());
        QVERIFY2(failure.empty(), failure.c_str());
        QVERIFY(row.opencl.checked && row.opencl.strictFloat);
        // Exact unless the pipeline calls the math library (float_check.h).
        QVERIFY2(row.opencl.matches || !row.mathCalls.empty(), row.opencl.tolerance.c_str());
        if (!row.opencl.tolerance.empty())
            qInfo("%s beam %d: %s", row.app.c_str(), beam, row.opencl.tolerance.c_str());
    }
};

QTEST_GUILESS_MAIN(TestScheduleApps)
#include "test_schedule_apps.moc"
