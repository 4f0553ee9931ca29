// The "done when": every built-in app autoschedules at beam 32 with
// the V100 profile and Halide's baseline weights, its schedule is emitted,
// compiles for CUDA (PTX) and runs correctly on OpenCL (PoCL here) against the
// host reference (strict_float: core/bench/float_check.h). Opt-in (it is
// slow); test_schedule_apps covers the same
// code paths at beam 1 and 3 with synthetic weights.
//
// All apps go through one checkApps call, so their compilations run in
// parallel; the failure message lists every failing app.

#include "core/search/device_limits.h"
#include "core/schedule/app_check.h"
#include "core/weights/weights.h"
#include "tests/schedule/app_check_support.h"
#include "tests/support/test_data.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace beamscope;

class TestScheduleAppsBeam32 : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyAppAtBeam32WithBaselineWeights()
    {
        BEAMSCOPE_REQUIRE_DATA(weightsPath, "weights/anderson2021/baseline.weights");
        auto loaded = weights::loadWeights(weightsPath);
        QVERIFY2(loaded.ok(), weightsPath.string().c_str());
        const model::CostModel model(*loaded.weights);
        const auto v100 = gpu::findProfile("v100");
        QVERIFY(v100);

        QTemporaryDir cache;
        QVERIFY(cache.isValid());
        schedule::AppCheckOptions options;
        options.params.beamSize = 32;
        options.params.device = search::featureParamsFor(*v100);
        options.compile.cacheDir = cache.path().toStdString();
        options.compile.jobs = 2;
        options.run.reps = 1;
        options.run.warmup = 0;
        options.run.scale = 0.125; // an eighth of the estimated extents: quick on PoCL
        options.run.timeoutSeconds = 300;

        std::vector<pipelines::PipelineInfo> apps;
        const QString only = qEnvironmentVariable("BEAMSCOPE_SCHEDULE_APPS"); // comma list to narrow a rerun
        for (const pipelines::PipelineInfo &info : pipelines::builtinPipelines())
            if (only.isEmpty() || only.split(',').contains(QString::fromStdString(info.name)))
                apps.push_back(info);
        QVERIFY(!apps.empty());

        const std::vector<schedule::AppCheck> rows = schedule::checkApps(apps, model, options);
        QCOMPARE(rows.size(), apps.size());
        std::string failures;
        for (const schedule::AppCheck &row : rows) {
            const std::string f = test::appCheckFailure(row, 32);
            if (!f.empty()) {
                qWarning("%s", f.c_str()); // the whole text: QTest shortens long messages
                failures += (failures.empty() ? "" : ", ") + row.app;
            } else {
                QVERIFY(row.opencl.strictFloat);
                QVERIFY2(row.opencl.matches || !row.mathCalls.empty(), row.app.c_str());
            }
            qInfo("%s: search %.2f s, %lld states, cost %.4g, opencl %s%s%s", row.app.c_str(), row.searchSeconds,
                  static_cast<long long>(row.statesEvaluated), row.predictedCost, row.opencl.ok ? "ok" : "FAILED",
                  row.opencl.tolerance.empty() ? "" : " (math library tolerance)",
                  row.openclNote.empty() ? "" : (" (" + row.openclNote + ")").c_str());
        }
        QVERIFY2(failures.empty(), ("failing apps at beam 32: " + failures).c_str());
    }
};

QTEST_GUILESS_MAIN(TestScheduleAppsBeam32)
#include "test_schedule_apps_beam32.moc"
