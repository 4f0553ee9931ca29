// The Autotune workspace (a run from the GUI, live records, cancel and
// resume, an opened folder) and the Device workspace's comparison of weights
// on the samples that run measured, offscreen.

#include "core/autotune/autotune_request.h"
#include "core/samples/dataset.h"
#include "core/samples/weights_comparison.h"
#include "tests/support/test_data.h"
#include "ui/autotune/autotune_charts.h"
#include "ui/autotune/batch_charts.h"
#include "ui/autotune/autotune_failures_model.h"
#include "ui/autotune/autotune_run_data.h"
#include "ui/autotune/autotune_workspace.h"
#include "ui/common/app_settings.h"
#include "ui/common/wheel_guard.h"
#include "ui/device/comparison_scatter.h"
#include "ui/device/device_workspace.h"
#include "ui/device/weights_comparison_model.h"
#include "ui/device/weights_on_samples_panel.h"

#include <QAbstractItemModelTester>
#include <QBoxPlotSeries>
#include <QComboBox>
#include <QLabel>
#include <QLineSeries>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QWheelEvent>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QtTest>

#include <filesystem>

using namespace beamscope;
using namespace beamscope::ui;

namespace {

samples::ScheduleRecord record(const std::string &pipeline, int batch, int index, samples::Status status, double ms)
{
    samples::ScheduleRecord r;
    r.pipeline = pipeline;
    r.batch = batch;
    r.index = index;
    r.scheduleId = samples::scheduleIdFor(batch, index);
    r.status = status;
    r.runtimeMs = ms;
    r.message = status == samples::Status::Ok ? "" : "it went wrong";
    return r;
}

} // namespace

class TestUiAutotune : public QObject {
    Q_OBJECT
    QTemporaryDir m_settingsDir, m_dir;
    QString m_run; // the folder the GUI run wrote

    void configure(AutotuneWorkspace &w, const QString &folder, int batchSize)
    {
        w.setOutputFolder(folder);
        w.setApps({QStringLiteral("box_blur")});
        w.setTarget(QStringLiteral("opencl"));
        w.setBatchSize(batchSize);
        w.setFirstBeam(1);
        w.setScale(0.25);
        w.setJobs(2);
        w.setRetrain(false);
        BEAMSCOPE_REQUIRE_DATA(baseline, "weights/anderson2021/baseline.weights");
        w.setWeights(QString::fromStdString(baseline.string()));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("BeamscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_ui_autotune"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
        QVERIFY(m_settingsDir.isValid() && m_dir.isValid());
    }

    // A-1: the wheel over an unfocused spin box scrolls the form; it changes the value only once focused.
    void wheelOverTheFormScrollsIt()
    {
        WheelGuard::installOnApplication();
        AppSettings settings;
        AutotuneWorkspace w(settings);
        w.resize(1280, 420); // short, so the form scrolls
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSpinBox *box = nullptr;
        for (QSpinBox *b : w.findChildren<QSpinBox *>())
            if (b->isVisible() && b->isEnabled() && b->value() < b->maximum() && b->value() > b->minimum()) {
                box = b;
                break;
            }
        QVERIFY(box);
        QCOMPARE(box->focusPolicy(), Qt::StrongFocus);
        QScrollArea *area = nullptr;
        for (QWidget *up = box->parentWidget(); up && !area; up = up->parentWidget())
            area = qobject_cast<QScrollArea *>(up);
        QVERIFY(area);
        QScrollBar *bar = area->verticalScrollBar();
        QVERIFY2(bar->maximum() > 0, "the form must be taller than the window for this test");
        bar->setValue(bar->maximum() / 2);
        const int value = box->value(), scrolled = bar->value();
        const auto wheel = [&](int steps) {
            const QPointF at = QPointF(box->rect().center());
            QWheelEvent e(at, box->mapToGlobal(at), QPoint(), QPoint(0, 120 * steps), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
            QApplication::sendEvent(box, &e);
        };
        box->clearFocus();
        wheel(-1);
        QCOMPARE(box->value(), value);
        QVERIFY2(bar->value() > scrolled, qPrintable(QStringLiteral("%1 -> %2").arg(scrolled).arg(bar->value())));
        // Focused (clicked or tabbed into), the box takes the wheel as a spin box does.
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        box->setFocus(Qt::TabFocusReason);
        QTRY_VERIFY(box->hasFocus());
        wheel(1);
        QVERIFY(box->value() != value);
    }

    void runDataFigures()
    {
        AutotuneRunData d;
        d.add(record("a", 0, 0, samples::Status::Ok, 5));
        d.add(record("a", 0, 1, samples::Status::Ok, 3));
        d.add(record("a", 1, 0, samples::Status::Ok, 4)); // not better than batch 0's 3
        d.add(record("a", 2, 0, samples::Status::Ok, 2));
        d.add(record("a", 2, 1, samples::Status::Crash, 0));
        d.add(record("b", 1, 0, samples::Status::Duplicate, 0));
        d.add(record("b", 1, 1, samples::Status::Ok, 7));
        d.add(record("a", 0, 1, samples::Status::Ok, 6)); // the same schedule again: replaced
        QCOMPARE(d.records().size(), size_t{7});
        QCOMPARE(d.pipelines(), (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
        QCOMPARE(d.runtimesMs(QStringLiteral("a")), (std::vector<double>{2, 4, 5, 6}));
        const auto best = d.bestSoFar(QStringLiteral("a"));
        QCOMPARE(best, (std::vector<std::pair<int, double>>{{0, 5}, {1, 4}, {2, 2}}));
        QCOMPARE(d.countsByStatus()[QStringLiteral("ok")], 5);
        QCOMPARE(d.countsByStatus()[QStringLiteral("crash")], 1);
        QCOMPARE(d.failures().size(), size_t{1}); // duplicates are not failures

        AutotuneFailuresModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setData(d);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.data(model.index(0, AutotuneFailuresModel::Status), Qt::DisplayRole).toString(),
                 QStringLiteral("crash"));
        QCOMPARE(model.data(model.index(0, AutotuneFailuresModel::Message), Qt::ToolTipRole).toString(),
                 QStringLiteral("it went wrong"));
    }

    // Each batch's schedules, predicted against measured, and the learning curve across batches.
    void batchScatterAndLearningCurve()
    {
        AutotuneRunData d;
        const auto add = [&](const std::string &p, int batch, int index, double predicted, double ms) {
            samples::ScheduleRecord r = record(p, batch, index, samples::Status::Ok, ms);
            r.predictedCost = predicted;
            d.add(r);
        };
        // a: batch 0 ordered right (ρ 1), pick 8 ms; batch 1 backwards (ρ -1), pick 4 ms.
        add("a", 0, 0, 1, 8);
        add("a", 0, 1, 2, 9);
        add("a", 0, 2, 3, 10);
        add("a", 1, 0, 3, 4);
        add("a", 1, 1, 2, 5);
        add("a", 1, 2, 1, 6);
        // b: batch 0 only, ρ 1.
        add("b", 0, 0, 10, 20);
        add("b", 0, 1, 20, 30);
        d.add(record("b", 0, 2, samples::Status::Hang, 0));
        QCOMPARE(d.batches(), (std::vector<int>{0, 1}));

        BatchLearningPanel panel;
        panel.resize(1200, 400);
        panel.setData(d, QStringLiteral("ms"));
        // The latest batch is shown first: a's three schedules of batch 1.
        QCOMPARE(panel.batchBox()->count(), 2);
        QCOMPARE(panel.batchBox()->currentText(), QStringLiteral("1"));
        QCOMPARE(panel.scatter()->series().size(), 1);
        QCOMPARE(panel.scatter()->series().front()->count(), 3);
        QVERIFY2(panel.scatter()->chart()->title().contains(QStringLiteral("-1.00")),
                 qPrintable(panel.scatter()->chart()->title()));
        panel.setBatch(0);
        QCOMPARE(panel.scatter()->series().size(), 2); // a and b; b's hang is not a point
        QCOMPARE(panel.scatter()->series().at(1)->count(), 2);
        // The learning curve: a's pick halves from batch 0 to 1; Spearman 1 then -1.
        QCOMPARE(panel.curve()->pickLines().size(), 2);
        const QLineSeries *a = panel.curve()->pickLines().front();
        QCOMPARE(a->count(), 2);
        QCOMPARE(a->at(0), QPointF(0, 1.0));
        QCOMPARE(a->at(1), QPointF(1, 0.5));
        QCOMPARE(panel.curve()->spearmanLine()->count(), 2);
        QCOMPARE(panel.curve()->spearmanLine()->at(0).y(), 1.0);
        QCOMPARE(panel.curve()->spearmanLine()->at(1).y(), -1.0);
        // A batch chosen by hand stays chosen when the run reports more.
        add("a", 2, 0, 1, 3);
        panel.setBatch(0);
        panel.setData(d, QStringLiteral("ms"));
        QCOMPARE(panel.batchBox()->currentText(), QStringLiteral("0"));
    }

    // Start, cancel after the first schedule, start again: the run resumes
    // (the earlier records stay) and completes; the views show the records.
    void runCancelAndResumeFromTheGui()
    {
        AppSettings settings;
        AutotuneWorkspace w(settings);
        w.resize(1400, 900);
        w.show();
        QAbstractItemModelTester tester(w.failuresModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_run = m_dir.filePath(QStringLiteral("gui-run"));
        configure(w, m_run, 4);
        QCOMPARE(w.request().apps, std::vector<std::string>{"box_blur"});
        QCOMPARE(w.request().target, std::string("opencl"));

        QSignalSpy finished(&w, &AutotuneWorkspace::runFinished);
        QSignalSpy added(&w, &AutotuneWorkspace::recordAdded);
        w.start();
        QVERIFY(w.isRunning());
        QVERIFY(!w.startButton()->isEnabled() && w.cancelButton()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(added.count() >= 1, 180000);
        // Review, Autotune 2: the bar counts schedules (one of four is most of
        // one batch), with an estimate of the time left.
        QVERIFY2(w.progressText().startsWith(QStringLiteral("%1 of 4 schedules").arg(added.count())),
                 qPrintable(w.progressText()));
        QVERIFY2(w.progressText().contains(QStringLiteral("left")) || added.count() == 4, qPrintable(w.progressText()));
        w.cancel();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 180000);
        QCOMPARE(finished.at(0).at(0).toBool(), false);
        QVERIFY(w.lastResult() && w.lastResult()->ok && w.lastResult()->cancelled);
        const size_t before = w.runData().records().size();
        QVERIFY(before >= 1 && before < 4);

        w.start(); // the same form: the folder's run resumes
        QVERIFY2(w.isRunning(), qPrintable(w.statusLabel()->text()));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 240000);
        QVERIFY2(finished.at(1).at(0).toBool(), qPrintable(w.statusLabel()->text()));
        QCOMPARE(w.lastResult()->schedulesResumed, static_cast<int>(before));
        QCOMPARE(w.runData().records().size(), size_t{4});
        // A-2: the count says what this start attempted beside the run's whole.
        QVERIFY2(
            w.statusLabel()->text().contains(
                QStringLiteral("%1 schedule(s) attempted by this start, 4 recorded in the run in all").arg(4 - before)),
            qPrintable(w.statusLabel()->text()));
        QVERIFY(w.countsLabel()->text().contains(QStringLiteral("ok")));
        QCOMPARE(w.distributionChart()->series()->count(), 1);
        QCOMPARE(w.bestChart()->lines().size(), 1);
        QCOMPARE(w.bestChart()->lines().front()->count(), 1); // one batch

        // A later start reopens the run worked on last (A-2).
        {
            AutotuneWorkspace later(settings);
            QCOMPARE(later.outputFolder(), m_run);
            QCOMPARE(later.runData().records().size(), size_t{4});
        }
        // The folder opens as an autotune run, in a fresh workspace.
        AutotuneWorkspace other(settings);
        QVERIFY(other.canOpen(m_run));
        QVERIFY(!other.canOpen(m_dir.path()));
        other.open(m_run);
        QCOMPARE(other.runData().records().size(), size_t{4});
        QCOMPARE(other.outputFolder(), m_run);
    }

    // Review N3: opening a run folder puts every recorded setting in the form (pipelines, starting
    // weights, seed, benchmark reps, ...), so Start resumes it; a setting changed afterwards is named in
    // the form's words and Start refuses until the run's settings are taken back.
    void openedRunResumesWithItsOwnSettings()
    {
        QVERIFY2(!m_run.isEmpty(), "needs the GUI run of the test before");
        BEAMSCOPE_REQUIRE_DATA(baseline, "weights/anderson2021/baseline.weights");
        AppSettings settings;
        AutotuneWorkspace w(settings);
        w.setSeed(7);
        w.setReps(2);
        w.setApps({QStringLiteral("harris")});
        QSignalSpy finished(&w, &AutotuneWorkspace::runFinished);
        w.open(m_run);
        QTRY_VERIFY_WITH_TIMEOUT(!w.request().weights.empty(), 30000);
        const autotune::AutotuneRequest r = w.request();
        QCOMPARE(r.apps, std::vector<std::string>{"box_blur"});
        QCOMPARE(r.seed, uint64_t{0});
        QCOMPARE(r.reps, autotune::AutotuneRequest{}.reps);
        QCOMPARE(r.batchSize, 4);
        QCOMPARE(r.firstBeamSize, 1);
        QCOMPARE(r.scale, 0.25);
        QCOMPARE(r.retrain, false);
        QCOMPARE(std::filesystem::canonical(r.weights), std::filesystem::canonical(baseline));
        QVERIFY2(w.differencesFromRun().isEmpty(), qPrintable(w.differencesFromRun().join(QLatin1Char('\n'))));

        w.setSeed(7);
        w.setReps(2);
        const QStringList differences = w.differencesFromRun();
        QCOMPARE(differences.size(), 2);
        QVERIFY2(differences.contains(QStringLiteral("Seed: the run used 0, the form says 7")),
                 qPrintable(differences.join(QLatin1Char('\n'))));
        QVERIFY(differences.contains(QStringLiteral("Benchmark reps: the run used 10, the form says 2")));
        w.start();
        QVERIFY(!w.isRunning());
        QVERIFY2(w.statusLabel()->text().contains(QStringLiteral("Use the run's settings")),
                 qPrintable(w.statusLabel()->text()));
        Q_EMIT w.statusLabel()->linkActivated(QStringLiteral("#run"));
        QVERIFY(w.differencesFromRun().isEmpty());

        // Resumed with its own settings: the finished batch is recognised, nothing is measured again.
        w.start();
        QVERIFY(w.isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(w.statusLabel()->text()));
        QCOMPARE(w.lastResult()->batchesSkipped, 1);
        QCOMPARE(w.runData().records().size(), size_t{4});
    }

    // A folder submitted to Slurm shows its tasks: from squeue while they are
    // queued, else from the shards' batch markers (done) or their absence
    // (failed); a run with nothing queued here reads entirely from the folder.
    void slurmRunFolderShowsItsTasks()
    {
        const QString folder = m_dir.filePath(QStringLiteral("slurm-run"));
        auto write = [&](const QString &rel, const QByteArray &text) {
            const QString path = QDir(folder).filePath(rel);
            QDir().mkpath(QFileInfo(path).path());
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        };
        write(QStringLiteral("manifest.json"), R"({"format": "beamscope-autotune 1", "parameters": {}})");
        write(QStringLiteral("slurm/plan.json"),
              QStringLiteral(R"({"out": "%1", "cli": "beamscope-cli", "autotune_args": [], "batches": 1,
                                 "slurm": {"tasks": 2, "retries": 0}})")
                  .arg(folder)
                  .toUtf8());
        write(QStringLiteral("slurm/jobs.json"),
              R"([{"batch": 0, "attempt": 0, "tasks": [0, 1], "array_job": "999990", "merge_job": "999991"}])");
        write(QStringLiteral("slurm/batch_0000/task_0/batches/batch_0000.json"), "{}");
        AppSettings settings;
        AutotuneWorkspace w(settings);
        QSignalSpy updated(&w, &AutotuneWorkspace::slurmStatusUpdated);
        QVERIFY(w.canOpen(folder));
        w.open(folder);
        QVERIFY(w.isSlurmRun());
        QTRY_VERIFY_WITH_TIMEOUT(updated.count() >= 1, 30000);
        const QString text = w.slurmLabel()->text();
        QVERIFY2(text.contains(QStringLiteral("done <b>1</b>")) && text.contains(QStringLiteral("failed <b>1</b>")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("failed after every retry")), qPrintable(text));
        QVERIFY(w.cancelButton()->isEnabled()); // scancel of the run's jobs
    }

    // The Device workspace compares weights on the run's samples: the table
    // holds compare-weights' figures, one scatter per weights choice.
    void deviceComparisonOfTheRunsSamples()
    {
        QVERIFY2(!m_run.isEmpty(), "needs the GUI run of the test before");
        BEAMSCOPE_REQUIRE_DATA(baseline, "weights/anderson2021/baseline.weights");
        BEAMSCOPE_REQUIRE_DATA(other, "weights/anderson2021/gpu.weights");
        AppSettings settings;
        DeviceWorkspace w(settings);
        w.resize(1200, 900);
        WeightsOnSamplesPanel *panel = w.weightsPanel();
        QAbstractItemModelTester tester(panel->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel->setWeightsChoices({QString::fromStdString(baseline.string()), QString::fromStdString(other.string())});
        QSignalSpy compared(panel, &WeightsOnSamplesPanel::compared);
        QVERIFY(w.offerSampleFolder(m_run)); // as the Autotune workspace's "Compare weights" does
        QTRY_COMPARE_WITH_TIMEOUT(compared.count(), 1, 60000);
        QCOMPARE(panel->sampleFolder(), m_run);
        QCOMPARE(panel->scatters().size(), 2);
        // 1 app x 2 choices, then 2 overall rows and 2 rows over the apps both scored.
        QCOMPARE(panel->model()->rowCount(), 6);
        QVERIFY(panel->statusLabel()->text().contains(QStringLiteral("OpenCL")));

        const samples::LoadedSamples loaded = samples::loadSamples({m_run.toStdString()});
        std::string error;
        const auto direct =
            samples::compareWeights(loaded.dataset, {samples::weightsChoiceFor(baseline.string(), error)}, 80);
        const samples::AppScore &a = panel->model()->scores().front().apps.front();
        QCOMPARE(a.rank.spearman, direct.front().apps.front().rank.spearman);
        QCOMPARE(a.top1, direct.front().apps.front().top1);
        QCOMPARE(panel->scatters().front()->appSeries().front()->count(), static_cast<int>(a.schedules));
    }
};

QTEST_MAIN(TestUiAutotune)
#include "tst_ui_autotune.moc"
