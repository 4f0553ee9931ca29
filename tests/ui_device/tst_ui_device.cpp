// The Device panel offscreen: the reference column holds core's profile
// figures (V100 by default, others on request), the search-parameter table
// holds core's searchParametersFor() of each, and the local column is either
// the device the CUDA runtime reports or, without one, the clear no-device
// state with core's status text.

#include "core/gpu/device_facts.h"
#include "core/gpu/search_parameters.h"
#include "ui/common/app_settings.h"
#include "ui/device/device_comparison_model.h"
#include "ui/device/device_workspace.h"
#include "ui/device/study_charts.h"
#include "ui/device/study_panel.h"
#include "ui/device/study_table_model.h"
#include "ui/retrain/retrain_workspace.h"
#include "core/study/study_report.h"
#include "core/util/atomic_file.h"

#include <QAbstractItemModelTester>
#include <QBarSeries>
#include <QBarSet>
#include <QBoxPlotSeries>
#include <QTabWidget>
#include <QComboBox>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace beamscope;
using namespace beamscope::ui;

namespace {

QString cell(const DeviceComparisonModel *model, const QString &property, int column)
{
    const int row = model->rowOf(property);
    return row < 0 ? QStringLiteral("<no row %1>").arg(property) : model->index(row, column).data().toString();
}

} // namespace

class TestUiDevice : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_settingsDir.isValid());
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
    }

    void showsReferenceAndLocalDevice()
    {
        AppSettings settings;
        DeviceWorkspace workspace(settings);
        QAbstractItemModelTester factsTester(workspace.factsModel(),
                                             QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester searchTester(workspace.searchModel(),
                                              QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy queried(&workspace, &DeviceWorkspace::deviceQueried);
        workspace.resize(900, 700);
        workspace.show(); // the query starts on first show
        QTRY_COMPARE_WITH_TIMEOUT(queried.count(), 1, 30000);
        QCOMPARE(workspace.profile(), QStringLiteral("V100"));

        const auto v100 = gpu::findProfile("V100");
        QVERIFY(v100);
        const auto *facts = workspace.factsModel();
        const auto *search = workspace.searchModel();
        QCOMPARE(facts->headerData(DeviceComparisonModel::ReferenceColumn, Qt::Horizontal).toString(),
                 QStringLiteral("V100 (reference)"));
        QCOMPARE(cell(facts, QStringLiteral("name"), DeviceComparisonModel::ReferenceColumn),
                 QString::fromStdString(v100->name));
        QVERIFY(cell(facts, QStringLiteral("name"), DeviceComparisonModel::ReferenceColumn)
                    .contains(QStringLiteral("V100")));
        QCOMPARE(cell(facts, QStringLiteral("SMs"), DeviceComparisonModel::ReferenceColumn),
                 QString::number(v100->smCount));
        QCOMPARE(cell(facts, QStringLiteral("compute capability"), DeviceComparisonModel::ReferenceColumn),
                 QStringLiteral("%1.%2").arg(v100->computeMajor).arg(v100->computeMinor));
        QCOMPARE(cell(facts, QStringLiteral("shared memory / SM"), DeviceComparisonModel::ReferenceColumn),
                 QStringLiteral("%1 KiB").arg(v100->sharedMemoryPerSmBytes / 1024));
        const gpu::DeviceSearchParameters p = gpu::searchParametersFor(*v100);
        QCOMPARE(cell(search, QStringLiteral("parallelism"), DeviceComparisonModel::ReferenceColumn),
                 QString::number(p.parallelism));
        QCOMPARE(cell(search, QStringLiteral("shared_memory_limit_kb"), DeviceComparisonModel::ReferenceColumn),
                 QString::number(p.sharedMemoryLimitKb));
        QCOMPARE(cell(search, QStringLiteral("active_warp_limit"), DeviceComparisonModel::ReferenceColumn),
                 QString::number(p.activeWarpLimit));
        QCOMPARE(facts->rowCount(), static_cast<int>(DeviceComparisonModel::factNames().size()));

        // The local column: what core's query says, here and now.
        const gpu::LocalDeviceQuery local = gpu::queryLocalDevice();
        QCOMPARE(workspace.localQuery().device.has_value(), local.device.has_value());
        const QString status = workspace.statusLabel()->text();
        if (!local.device) {
            QVERIFY2(status.contains(QStringLiteral("No CUDA device")), qPrintable(status));
            // The query's reason once, not "No CUDA device (no CUDA device: ...)".
            const QString reason = QString::fromStdString(local.status).remove(QStringLiteral("no CUDA device: "));
            QVERIFY2(status.contains(reason.toHtmlEscaped()), qPrintable(status));
            QVERIFY2(!status.contains(QStringLiteral("no CUDA device: ")), qPrintable(status));
            // Without CUDA, the OpenCL device measurements run on (PoCL's here) names itself in the local
            // column, as the bench worker describes it; OpenCL reports nothing of the rest.
            const gpu::OpenClQuery openCl = gpu::queryOpenClDevice();
            QCOMPARE(workspace.openClQuery().ok, openCl.ok);
            for (int row = 0; row < facts->rowCount(); ++row) {
                const QString name = facts->index(row, DeviceComparisonModel::PropertyColumn).data().toString();
                const QString value = facts->index(row, DeviceComparisonModel::LocalColumn).data().toString();
                if (openCl.ok && name == QStringLiteral("name"))
                    QCOMPARE(value,
                             QStringLiteral("%1 (OpenCL: %2)")
                                 .arg(QString::fromStdString(openCl.device), QString::fromStdString(openCl.platform)));
                else if (openCl.ok && name == QStringLiteral("SMs"))
                    QCOMPARE(value, QStringLiteral("%1 compute units").arg(openCl.computeUnits));
                else
                    QCOMPARE(value, QStringLiteral("—"));
            }
            if (openCl.ok) {
                QVERIFY2(status.contains(QString::fromStdString(openCl.device).toHtmlEscaped()), qPrintable(status));
                QVERIFY(facts->headerData(DeviceComparisonModel::LocalColumn, Qt::Horizontal)
                            .toString()
                            .contains(QStringLiteral("OpenCL")));
            }
            QCOMPARE(cell(search, QStringLiteral("parallelism"), DeviceComparisonModel::LocalColumn),
                     QStringLiteral("—"));
        } else {
            QCOMPARE(cell(facts, QStringLiteral("name"), DeviceComparisonModel::LocalColumn),
                     QString::fromStdString(local.device->name));
            QCOMPARE(cell(facts, QStringLiteral("SMs"), DeviceComparisonModel::LocalColumn),
                     QString::number(local.device->smCount));
            QCOMPARE(cell(search, QStringLiteral("parallelism"), DeviceComparisonModel::LocalColumn),
                     QString::number(gpu::searchParametersFor(*local.device).parallelism));
            QVERIFY2(status.contains(QString::fromStdString(local.device->name).toHtmlEscaped()), qPrintable(status));
        }
    }

    void otherProfilesSelectable()
    {
        AppSettings settings;
        DeviceWorkspace workspace(settings);
        QAbstractItemModelTester factsTester(workspace.factsModel(),
                                             QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(workspace.profileBox()->count(), static_cast<int>(gpu::profileNames().size()));
        for (const std::string &name : gpu::profileNames()) {
            workspace.setProfile(QString::fromStdString(name));
            const auto facts = gpu::findProfile(name);
            QVERIFY(facts);
            QCOMPARE(workspace.profile(), QString::fromStdString(name));
            QCOMPARE(cell(workspace.factsModel(), QStringLiteral("name"), DeviceComparisonModel::ReferenceColumn),
                     QString::fromStdString(facts->name));
            QCOMPARE(cell(workspace.factsModel(), QStringLiteral("SMs"), DeviceComparisonModel::ReferenceColumn),
                     QString::number(facts->smCount));
            QCOMPARE(
                cell(workspace.searchModel(), QStringLiteral("parallelism"), DeviceComparisonModel::ReferenceColumn),
                QString::number(gpu::searchParametersFor(*facts).parallelism));
        }
        // A100 and V100 differ in SM count: the table must have changed with the choice.
        workspace.setProfile(QStringLiteral("a100"));
        QCOMPARE(workspace.profile(), QStringLiteral("A100"));
        QVERIFY(cell(workspace.factsModel(), QStringLiteral("SMs"), DeviceComparisonModel::ReferenceColumn) !=
                QString::number(gpu::findProfile("V100")->smCount));
    }

    // A device study's folder opens on the Device workspace's study page: the headline, both charts and the
    // per-app table from report.json; the Retrain workspace leaves it alone though it holds samples.
    void opensADeviceStudy()
    {
        QTemporaryDir dir;
        const std::filesystem::path folder = dir.path().toStdString();
        study::StudyReport report;
        report.device = "OpenCL: test device";
        report.command = "beamscope-cli device-study --out x";
        const std::vector<double> slow = {2.0, 2.1, 1.9, 2.0, 2.05}, fast = {1.0, 1.05, 0.95, 1.0, 1.02},
                                  same = {3.0, 3.1, 2.9, 3.0, 3.05};
        for (const auto &[name, v100, tuned] : {std::tuple{"unsharp", slow, fast}, std::tuple{"harris", same, same}}) {
            study::AppResult a;
            a.app = name;
            a.v100.roundsMs = v100;
            a.v100.runtime = study::medianWithInterval(v100);
            a.tuned.roundsMs = tuned;
            a.tuned.runtime = study::medianWithInterval(tuned);
            a.v100Ranks = {20, 0.1, 0.05, 0.0, 1.0};
            a.tunedRanks = {20, 0.7, 0.5, 1.0, 1.0};
            report.apps.push_back(a);
        }
        report.failures.push_back({"random_2_6", 1, 3, "crash", "signal 11"});
        report.scheduleCounts = {{"ok", 40}, {"crash", 1}};
        study::summarize(report);
        QVERIFY(replaceTextFile(folder / "report.json", report.toJson().dump(2)).ok);
        QVERIFY(replaceTextFile(folder / "study.json", "{}").ok);
        QVERIFY(replaceTextFile(folder / "loop" / "unsharp" / "unsharp" / "batch_0000" / "00000000.sample", "x").ok);

        AppSettings settings;
        DeviceWorkspace workspace(settings);
        RetrainWorkspace retrain(settings);
        QVERIFY(workspace.canOpen(dir.path()));
        QVERIFY(!retrain.canOpen(dir.path()));
        QSignalSpy opened(&workspace, &Workspace::fileOpened);
        workspace.open(dir.path());
        QCOMPARE(opened.count(), 1);
        QCOMPARE(workspace.pages()->currentWidget(), workspace.studyPanel());
        StudyPanel *panel = workspace.studyPanel();
        QAbstractItemModelTester tester(panel->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(panel->model()->rowCount(), 2);
        const QModelIndex speedup = panel->model()->index(0, StudyTableModel::Speedup);
        QVERIFY(std::abs(speedup.data(StudyTableModel::ValueRole).toDouble() - 2.0) < 0.01);
        QVERIFY2(speedup.data().toString().startsWith(QStringLiteral("2.00x [")),
                 qPrintable(speedup.data().toString()));
        QCOMPARE(panel->model()->index(1, StudyTableModel::Note).data().toString(),
                 QStringLiteral("not told apart (the interval holds 1x)"));
        QCOMPARE(panel->model()->index(0, StudyTableModel::TunedSpearman).data().toString(), QStringLiteral("0.70"));
        QVERIFY2(panel->headline()->text().contains(QStringLiteral("1.414x")), qPrintable(panel->headline()->text()));
        QVERIFY2(panel->failures()->text().contains(QStringLiteral("1 failed (hover for each): random_2_6 (1 crash)")),
                 qPrintable(panel->failures()->text()));
        QVERIFY(panel->failures()->toolTip().contains(QStringLiteral("random_2_6 batch 1 #3 (crash)")));
        QCOMPARE(panel->speedupChart()->bars()->barSets().front()->count(), 2);
        QCOMPARE(panel->speedupChart()->intervals()->count(), 2);
        QCOMPARE(panel->rankChart()->bars()->barSets().size(), 2);

        // A folder whose report is broken says which file and what, and shows nothing stale.
        QVERIFY(replaceTextFile(folder / "report.json", "{\"format\": 3}").ok);
        QVERIFY(!panel->openFolder(dir.path()));
        QVERIFY2(panel->headline()->text().contains(QStringLiteral("report.json")),
                 qPrintable(panel->headline()->text()));
        QCOMPARE(panel->model()->rowCount(), 0);
    }

private:
    QTemporaryDir m_settingsDir;
};

QTEST_MAIN(TestUiDevice)
#include "tst_ui_device.moc"
