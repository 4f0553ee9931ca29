// The Retrain workspace, offscreen: a short run from the GUI on a generated
// sample set fills the loss and ranking charts and the epoch table, reaches
// 100%, writes weights that load and that the weights library then lists;
// a cancelled run keeps its checkpoint and Resume continues from it.

#include "core/samples/checkpoint.h"
#include "core/samples/training_loop.h"
#include "core/weights/weights.h"
#include "tests/ui_retrain/synthetic_sample_set.h"
#include "ui/common/app_settings.h"
#include "ui/common/weights_combo_box.h"
#include "ui/retrain/epoch_chart.h"
#include "ui/retrain/epoch_table_model.h"
#include "ui/retrain/retrain_workspace.h"
#include "ui/weights/library_model.h"
#include "ui/weights/weights_workspace.h"

#include <QAbstractItemModelTester>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QLineSeries>
#include <QMouseEvent>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QChart>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QVBoxLayout>

#include <cmath>

using namespace beamscope;
using namespace beamscope::ui;

namespace {

constexpr int kTimeoutMs = 120000;

samples::EpochRecord record(int epoch, double training, double validation, double spearman)
{
    samples::EpochRecord r;
    r.epoch = epoch;
    r.trainingLoss = training;
    r.validationLoss = validation;
    r.validation.pipelines = 1;
    r.validation.spearman = spearman;
    r.validation.kendall = spearman / 2;
    r.validation.pairwiseAccuracy = 0.5 + spearman / 4;
    return r;
}

} // namespace

class TestUiRetrain : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_settingsDir;
    QTemporaryDir m_dir;
    QString m_samples;
    QString m_library;
    QString m_initial;

    QString path(const QString &relative) const { return m_dir.filePath(relative); }

    // Waits until the form has read the folders and the library.
    static void settle(RetrainWorkspace &workspace)
    {
        QTRY_VERIFY_WITH_TIMEOUT(!workspace.foldersPending() && !workspace.initialWeightsBox()->scanPending(),
                                 kTimeoutMs);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("BeamscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_ui_retrain"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
        QVERIFY(m_settingsDir.isValid() && m_dir.isValid());
        QDir(AppSettings::trainedWeightsFolder()).removeRecursively(); // left by an earlier run

        m_samples = path(QStringLiteral("samples"));
        const int written = test::writeSyntheticSampleSet(m_samples.toStdString(), samples::randomWeights(1234));
        QCOMPARE(written, 4 * 20);
        m_library = path(QStringLiteral("library"));
        QVERIFY(QDir().mkpath(m_library));
        m_initial = canonicalPath(m_library + QStringLiteral("/baseline.weights"));
        const auto saved =
            weights::saveWeightsFile(samples::randomWeights(8), m_initial.toStdString(), Overwrite::Refuse);
        QVERIFY2(saved.ok, saved.error.c_str());
    }

    void cleanupTestCase() { QDir(AppSettings::trainedWeightsFolder()).removeRecursively(); }

    void epochTableModel()
    {
        EpochTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.addEpoch(record(0, 2.0, 3.0, 0.1));
        model.addEpoch(record(1, 1.5, 2.5, 0.4));
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(EpochTableModel::ColumnCount));
        QCOMPARE(model.index(1, EpochTableModel::ValidationLossColumn).data(EpochTableModel::ValueRole).toDouble(),
                 2.5);
        // A resumed run reports epoch 1 again: it replaces the row.
        model.addEpoch(record(1, 1.4, 2.4, 0.5));
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(1, EpochTableModel::SpearmanColumn).data(EpochTableModel::ValueRole).toDouble(), 0.5);
        model.addEpoch(record(2, 1.0, std::nan(""), 0.6));
        QCOMPARE(model.index(2, EpochTableModel::ValidationLossColumn).data().toString(), QStringLiteral("–"));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void epochChartLogScaleHidesNonPositive()
    {
        EpochChart chart(QStringLiteral("t"), QStringLiteral("y"), {QStringLiteral("a"), QStringLiteral("b")});
        chart.setLogScale(true);
        chart.addEpoch(0, {1.0, 0.0});
        chart.addEpoch(1, {0.5, 2.0});
        QCOMPARE(chart.series(0)->count(), 2);
        QCOMPARE(chart.series(1)->count(), 1); // 0 has no place on a log axis
        chart.setLogScale(false);
        QCOMPARE(chart.series(1)->count(), 2); // and comes back on a linear one
        chart.addEpoch(1, {0.25, 2.0});        // same epoch again: replaced, not added
        QCOMPARE(chart.series(0)->count(), 2);
        QCOMPARE(chart.series(0)->at(1).y(), 0.25);
    }

    void shortRunFromTheGui()
    {
        AppSettings settings;
        settings.setSessionFolders({m_library});
        QWidget window;
        auto *layout = new QVBoxLayout(&window);
        auto *weightsView = new WeightsWorkspace(settings, &window);
        auto *workspace = new RetrainWorkspace(settings, &window);
        layout->addWidget(weightsView);
        layout->addWidget(workspace);
        QAbstractItemModelTester tester(workspace->epochModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);

        workspace->addSampleFolder(m_samples);
        settle(*workspace);
        QCOMPARE(workspace->availableApps(), QStringList({QStringLiteral("blur"), QStringLiteral("conv"),
                                                          QStringLiteral("hist"), QStringLiteral("matmul")}));
        // The library's baseline is the default start.
        QCOMPARE(workspace->initialWeightsBox()->path(), m_initial);
        workspace->setHoldOutApp(QStringLiteral("hist"));
        workspace->setEpochs(3);
        workspace->setLearningRate(0.001);
        workspace->setSeed(5);
        const QString output = AppSettings::trainedWeightsFolder() + QStringLiteral("/gui-run.weights");
        workspace->setOutput(output);
        const RetrainRequest request = workspace->request();
        QCOMPARE(request.initialWeights, m_initial);
        QVERIFY(!request.randomInit);
        QCOMPARE(request.holdOutApp, QStringLiteral("hist"));
        QCOMPARE(request.epochs, 3);

        QSignalSpy finished(workspace, &RetrainWorkspace::runFinished);
        QSignalSpy trained(workspace, &RetrainWorkspace::weightsTrained);
        workspace->start();
        QVERIFY(workspace->isRunning());
        QVERIFY(!workspace->startButton()->isEnabled());
        QVERIFY(workspace->cancelButton()->isEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);

        const auto &outcome = workspace->lastOutcome();
        QVERIFY(outcome.has_value());
        QVERIFY2(outcome->ok, qPrintable(outcome->error));
        QCOMPARE(outcome->epochsCompleted, 3);
        QCOMPARE(outcome->validationPipelines, size_t(1)); // the held-out app
        QCOMPARE(outcome->trainingPipelines, size_t(3));
        QCOMPARE(workspace->progressBar()->value(), workspace->progressBar()->maximum());
        // Epoch 0 (the initial weights) and three epochs, on both charts and in the table.
        QCOMPARE(workspace->epochModel()->rowCount(), 4);
        QCOMPARE(workspace->lossChart()->series(0)->count(), 4);
        QCOMPARE(workspace->lossChart()->series(1)->count(), 4);
        QCOMPARE(workspace->rankChart()->series(0)->count(), 4);
        const auto &records = workspace->epochModel()->records();
        for (int e = 0; e < 4; ++e) {
            QCOMPARE(records[static_cast<size_t>(e)].epoch, e);
            QCOMPARE(workspace->lossChart()->series(1)->at(e).y(), records[static_cast<size_t>(e)].validationLoss);
        }
        QCOMPARE(outcome->history.size(), size_t(4));
        QCOMPARE(workspace->rankChart()->chart()->title(), QStringLiteral("Validation ranking per epoch"));

        // The output loads, is usable by the model and carries the current feature versions.
        QVERIFY(QFileInfo::exists(output));
        QVERIFY(!QFileInfo::exists(checkpointFor(output))); // the output now holds it
        const auto loaded = weights::loadWeights(output.toStdString());
        QVERIFY(loaded.ok());
        QVERIFY(model::checkWeights(*loaded.weights).empty());
        QCOMPARE(loaded.weights->scheduleFeaturesVersion, weights::kAnderson2021ScheduleVersion);
        QCOMPARE(trained.count(), 1);
        QCOMPARE(trained.first().first().toString(), output);

        // The library lists it: in the picker here and in the Weights workspace.
        QTRY_VERIFY_WITH_TIMEOUT(
            workspace->initialWeightsBox()->findData(canonicalPath(output), WeightsComboBox::PathRole) >= 0,
            kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(weightsView->libraryModel()->indexOfPath(canonicalPath(output)).isValid(), kTimeoutMs);
        const QModelIndex entry = weightsView->libraryModel()->indexOfPath(canonicalPath(output));
        QCOMPARE(entry.data(LibraryModel::GroupRole).toInt(), int(LibraryGroup::TrainedHere));
        // The next run will not replace this file by accident.
        QVERIFY(workspace->output() != output);

        // Halide's hash split of these four pipelines puts them all on the training side: the
        // ranking chart says so instead of staying empty.
        workspace->setHoldOutApp(QString());
        workspace->setEpochs(1);
        workspace->setOutput(AppSettings::trainedWeightsFolder() + QStringLiteral("/gui-run-hash.weights"));
        workspace->start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, kTimeoutMs);
        QVERIFY(workspace->lastOutcome() && workspace->lastOutcome()->ok);
        QCOMPARE(workspace->lastOutcome()->validationPipelines, size_t(0));
        QVERIFY2(workspace->rankChart()->chart()->title().startsWith(QStringLiteral("No validation set")),
                 qPrintable(workspace->rankChart()->chart()->title()));
    }

    void cancelKeepsCheckpointAndResumes()
    {
        AppSettings settings;
        settings.setSessionFolders({m_library});
        RetrainWorkspace workspace(settings);
        workspace.addSampleFolder(m_samples);
        settle(workspace);
        workspace.setRandomInitialWeights();
        workspace.setSeed(21);
        QVERIFY(workspace.request().randomInit);
        workspace.setEpochs(1000000); // never finishes on its own
        const QString output = path(QStringLiteral("out/cancelled.weights"));
        workspace.setOutput(output);

        QSignalSpy finished(&workspace, &RetrainWorkspace::runFinished);
        connect(&workspace, &RetrainWorkspace::epochFinished, &workspace, [&workspace](int epoch) {
            if (epoch >= 1)
                workspace.cancel();
        });
        workspace.start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
        const auto first = *workspace.lastOutcome();
        QVERIFY2(first.cancelled, qPrintable(first.error));
        QVERIFY(first.epochsCompleted >= 1);
        QVERIFY(!QFileInfo::exists(output));
        const auto checkpoint = samples::readCheckpoint(checkpointFor(output).toStdString());
        QVERIFY2(checkpoint.checkpoint.has_value(), checkpoint.error.c_str());
        QCOMPARE(checkpoint.checkpoint->epochsCompleted, first.epochsCompleted);
        QCOMPARE(checkpoint.checkpoint->seed, 21u);
        QVERIFY(workspace.canResume());
        QVERIFY(workspace.resumeButton()->isEnabled());
        QVERIFY(workspace.progressBar()->value() < workspace.progressBar()->maximum());
        // the bar counts the epochs alone (a few of a million: under 1 %), not the loading phase too.
        QVERIFY2(workspace.progressBar()->value() < workspace.progressBar()->maximum() / 100,
                 qPrintable(QString::number(workspace.progressBar()->value())));

        // Resume continues after the checkpoint's epochs (and is cancelled again).
        const int rowsBefore = workspace.epochModel()->rowCount();
        workspace.resume();
        QVERIFY(workspace.isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, kTimeoutMs);
        const auto second = *workspace.lastOutcome();
        QVERIFY2(second.cancelled, qPrintable(second.error));
        QCOMPARE(second.resumedEpochs, first.epochsCompleted);
        QVERIFY(second.epochsCompleted > first.epochsCompleted);
        QVERIFY(workspace.epochModel()->rowCount() > rowsBefore);
        QCOMPARE(workspace.epochModel()->rowCount(), second.epochsCompleted + 1);
    }

    // Review, Retrain 1: while epochs stream in (a few ms each), the window
    // stays live: a click on Cancel is handled and stops the run, and the
    // charts and table, drawn a few times a second, end with every epoch.
    void cancelClickAnswersWhileTraining()
    {
        AppSettings settings;
        settings.setSessionFolders({m_library});
        RetrainWorkspace workspace(settings);
        workspace.show();
        workspace.addSampleFolder(m_samples);
        settle(workspace);
        workspace.setRandomInitialWeights();
        workspace.setSeed(3);
        workspace.setEpochs(1000000); // never finishes on its own
        workspace.setOutput(path(QStringLiteral("out/clicked.weights")));
        QSignalSpy finished(&workspace, &RetrainWorkspace::runFinished);
        QSignalSpy drawn(&workspace, &RetrainWorkspace::epochFinished);
        workspace.start();
        QTRY_VERIFY_WITH_TIMEOUT(workspace.epochModel()->rowCount() >= 40, kTimeoutMs);
        QVERIFY(workspace.isRunning());
        // Drawn in batches: fewer redraws than epochs.
        QVERIFY2(drawn.count() < workspace.epochModel()->rowCount(), qPrintable(QString::number(drawn.count())));
        // The click goes through the event queue as a user's does (posted, not delivered synchronously):
        // the GUI thread must take it and answer (Cancel disabled, the status saying so) within the
        // 100 ms the explorer promises, while training runs on its worker.
        QPushButton *cancel = workspace.cancelButton();
        const QPointF centre = QRectF(cancel->rect()).center();
        QElapsedTimer clock;
        clock.start();
        for (const QEvent::Type type : {QEvent::MouseButtonPress, QEvent::MouseButtonRelease})
            QCoreApplication::postEvent(
                cancel,
                new QMouseEvent(type, centre, cancel->mapToGlobal(centre), Qt::LeftButton,
                                type == QEvent::MouseButtonPress ? Qt::LeftButton : Qt::NoButton, Qt::NoModifier));
        while (cancel->isEnabled() && clock.elapsed() < 10000)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        const qint64 answeredMs = clock.elapsed();
        QVERIFY(!cancel->isEnabled());
        // "Cancelling…" at once; on a quick machine the worker may even have stopped ("Cancelled after …").
        QVERIFY2(workspace.statusLabel()->text().startsWith(QStringLiteral("Cancel")),
                 qPrintable(workspace.statusLabel()->text()));
        qInfo("Cancel answered %lld ms after the click was posted", static_cast<long long>(answeredMs));
        QVERIFY2(answeredMs <= 100, qPrintable(QStringLiteral("Cancel answered after %1 ms").arg(answeredMs)));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        const auto outcome = *workspace.lastOutcome();
        QVERIFY(outcome.cancelled);
        QCOMPARE(workspace.epochModel()->rowCount(), outcome.epochsCompleted + 1);
        QCOMPARE(workspace.lossChart()->epochCount(), outcome.epochsCompleted + 1);
        // A long run is drawn with a bounded number of points, without markers.
        QVERIFY(workspace.lossChart()->series(0)->count() <= static_cast<int>(EpochChart::kMaxPlottedPoints) + 1);
    }

    void refusesUnusableInput()
    {
        AppSettings settings;
        settings.setSessionFolders({m_library});
        RetrainWorkspace workspace(settings);
        QVERIFY(!workspace.startButton()->isEnabled()); // no folder yet
        const QString missing = path(QStringLiteral("no-such-folder"));
        workspace.addSampleFolder(missing);
        settle(workspace);
        workspace.setOutput(path(QStringLiteral("out/never.weights")));
        QSignalSpy finished(&workspace, &RetrainWorkspace::runFinished);
        workspace.start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
        QVERIFY(!workspace.lastOutcome()->ok);
        QVERIFY2(workspace.lastOutcome()->error.contains(QStringLiteral("no-such-folder")),
                 qPrintable(workspace.lastOutcome()->error));
        QVERIFY(workspace.statusLabel()->text().contains(QStringLiteral("no-such-folder")));
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("out/never.weights"))));
    }
};

QTEST_MAIN(TestUiRetrain)
#include "tst_ui_retrain.moc"
