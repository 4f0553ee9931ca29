// The Weights workspace and the main window, offscreen: library grouping, the
// tensor table's figures, heatmap layout and hover, histogram bins, the diff
// view's figures, the conversion dialog's refusal to overwrite, settings
// persistence. Weights files are generated here with core's saveWeightsFile
// (deterministic values), so every check has known values; the shipped
// files (weights/) are checked too.

#include "core/weights/statistics.h"
#include "core/weights/weights.h"
#include "tests/support/test_data.h"
#include "ui/common/app_settings.h"
#include "ui/common/latest_job.h"
#include "ui/mainwindow/main_window.h"
#include "ui/weights/conversion_dialog.h"
#include "ui/weights/diff_models.h"
#include "ui/weights/diff_view.h"
#include "ui/weights/feature_names.h"
#include "ui/weights/heatmap_grid.h"
#include "ui/weights/heatmap_panel.h"
#include "ui/weights/heatmap_widget.h"
#include "ui/weights/histogram_widget.h"
#include "ui/weights/library_model.h"
#include "ui/weights/summary_widget.h"
#include "ui/weights/tensor_table_model.h"
#include "ui/weights/weights_library.h"
#include "ui/weights/weights_workspace.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMimeData>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QSemaphore>
#include <QTableView>
#include <QThreadPool>
#include <QTemporaryDir>
#include <QMenu>
#include <QMenuBar>
#include <QTest>
#include <QTreeView>

#include <cmath>
#include <limits>

using namespace beamscope;
using namespace beamscope::ui;
namespace wt = beamscope::weights;

namespace {

// Deterministic, signed, distinct values per tensor; head1_bias is 0..7 so its
// histogram is known exactly.
wt::Weights syntheticWeights(int seed)
{
    wt::Weights w = wt::zeroWeights(wt::Network::Anderson2021);
    for (int t = 0; t < wt::kTensorCount; ++t) {
        auto &data = w.tensors[t].data;
        for (size_t i = 0; i < data.size(); ++i)
            data[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i) + t + seed) * 0.1 * (t + 1));
    }
    auto &bias = w.tensor(wt::Head1Bias).data;
    for (size_t i = 0; i < bias.size(); ++i)
        bias[i] = static_cast<float>(i);
    return w;
}

struct Figures {
    double min = 0, max = 0, mean = 0, stddev = 0, l2 = 0;
    qulonglong nans = 0, infs = 0, zeros = 0;
};

// Computed here independently of core's computeStats (over finite values).
Figures figuresOf(const std::vector<float> &data)
{
    Figures f;
    std::vector<double> finite;
    for (float v : data) {
        if (std::isnan(v))
            ++f.nans;
        else if (std::isinf(v))
            ++f.infs;
        else {
            finite.push_back(v);
            if (v == 0.0f)
                ++f.zeros;
        }
    }
    if (finite.empty())
        return f;
    f.min = *std::min_element(finite.begin(), finite.end());
    f.max = *std::max_element(finite.begin(), finite.end());
    double sum = 0, squares = 0;
    for (double v : finite) {
        sum += v;
        squares += v * v;
    }
    f.mean = sum / static_cast<double>(finite.size());
    double dev = 0;
    for (double v : finite)
        dev += (v - f.mean) * (v - f.mean);
    f.stddev = std::sqrt(dev / static_cast<double>(finite.size()));
    f.l2 = std::sqrt(squares);
    return f;
}

// Relative tolerance for figures summed in a different order than core's.
bool near(double a, double b, double tolerance = 1e-9)
{
    return std::abs(a - b) <= tolerance * std::max({1.0, std::abs(a), std::abs(b)});
}

QString path(const QTemporaryDir &dir, const QString &name) { return QDir(dir.path()).filePath(name); }

void save(const wt::Weights &w, const QString &file)
{
    const WriteResult r = wt::saveWeightsFile(w, file.toStdString(), Overwrite::Replace);
    QVERIFY2(r.ok, r.error.c_str());
}

QByteArray readAll(const QString &file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

} // namespace

class TestUiWeights : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_settingsDir;
    QTemporaryDir m_library; // baseline, harris, gpu, custom, broken, legacy/
    QTemporaryDir m_empty;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("BeamscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_ui_weights"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
        QVERIFY(m_library.isValid() && m_empty.isValid() && m_settingsDir.isValid());

        save(syntheticWeights(0), path(m_library, QStringLiteral("baseline.weights")));
        save(syntheticWeights(1), path(m_library, QStringLiteral("harris.weights")));
        save(syntheticWeights(2), path(m_library, QStringLiteral("gpu.weights")));
        wt::Weights custom = syntheticWeights(3);
        // Non-finite values must be counted, not averaged.
        custom.tensor(wt::Conv1Bias).data[3] = std::numeric_limits<float>::quiet_NaN();
        custom.tensor(wt::Conv1Bias).data[4] = std::numeric_limits<float>::infinity();
        custom.tensor(wt::Conv1Bias).data[5] = 0.0f;
        save(custom, path(m_library, QStringLiteral("custom.weights")));
        QFile broken(path(m_library, QStringLiteral("broken.weights")));
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.write("not an hwf1 file at all");
        broken.close();
        const WriteResult legacy = wt::saveWeightsDirectory(
            syntheticWeights(4), path(m_library, QStringLiteral("legacy")).toStdString(), Overwrite::Refuse);
        QVERIFY2(legacy.ok, legacy.error.c_str());
    }

    void init() { QSettings().clear(); }

    void latestJobDeliversOnlyTheNewestResult()
    {
        // The slow job holds a pool thread while the fast one runs: two threads at least.
        QThreadPool::globalInstance()->setMaxThreadCount(std::max(4, QThreadPool::globalInstance()->maxThreadCount()));
        LatestJob job;
        QObject receiver;
        QStringList delivered;
        QSemaphore releaseSlow;
        // The first job finishes last: its result must be dropped.
        job.start(
            &receiver,
            [&releaseSlow] {
                releaseSlow.acquire();
                return QStringLiteral("slow");
            },
            [&delivered](const QString &r) { delivered.append(r); });
        job.start(
            &receiver, [] { return QStringLiteral("fast"); }, [&delivered](const QString &r) { delivered.append(r); });
        QVERIFY(job.pending());
        QTRY_COMPARE(delivered, QStringList{QStringLiteral("fast")});
        QVERIFY(!job.pending());
        releaseSlow.release();
        QThreadPool::globalInstance()->waitForDone();
        QCoreApplication::processEvents();
        QCOMPARE(delivered, QStringList{QStringLiteral("fast")});

        // A receiver destroyed before delivery gets nothing.
        auto *gone = new QObject;
        QSemaphore releaseGone;
        job.start(
            gone,
            [&releaseGone] {
                releaseGone.acquire();
                return QStringLiteral("late");
            },
            [&delivered](const QString &r) { delivered.append(r); });
        delete gone;
        releaseGone.release();
        QThreadPool::globalInstance()->waitForDone();
        QCoreApplication::processEvents();
        QCOMPARE(delivered, QStringList{QStringLiteral("fast")});
    }

    void classifiesHalideNames()
    {
        QCOMPARE(perAppNames().size(), 16);
        QCOMPARE(classifyWeights(QStringLiteral("/x/baseline.weights")), LibraryGroup::Baseline);
        for (const QString &app : perAppNames())
            QCOMPARE(classifyWeights(QStringLiteral("/x/weights/%1.weights").arg(app)), LibraryGroup::PerApp);
        QCOMPARE(classifyWeights(QStringLiteral("/x/gpu.weights")), LibraryGroup::General);
        QCOMPARE(classifyWeights(QStringLiteral("/x/harris_v2.weights")), LibraryGroup::Other);
        QCOMPARE(classifyWeights(QStringLiteral("/x/mine.weights")), LibraryGroup::Other);
        QCOMPARE(classifyWeights(QStringLiteral("/t/trained/baseline.weights"), QStringLiteral("/t/trained")),
                 LibraryGroup::TrainedHere);
    }

    void libraryGroupsFilesAndMarksInvalidOnes()
    {
        LibraryScanRequest request;
        request.folders = {m_library.path()};
        const LibraryScanResult scan = scanLibrary(request);
        QCOMPARE(scan.entries.size(), size_t(6));

        LibraryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setEntries(scan.entries);
        // Baseline, Per-app, General, Other (custom, broken, legacy); no "Trained here".
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.rowCount(model.groupIndex(LibraryGroup::Baseline)), 1);
        QCOMPARE(model.rowCount(model.groupIndex(LibraryGroup::PerApp)), 1);
        QCOMPARE(model.rowCount(model.groupIndex(LibraryGroup::General)), 1);
        QCOMPARE(model.rowCount(model.groupIndex(LibraryGroup::Other)), 3);
        QVERIFY(!model.groupIndex(LibraryGroup::TrainedHere).isValid());
        QVERIFY(model.groupIndex(LibraryGroup::PerApp).data().toString().startsWith(QStringLiteral("Per-app")));

        const QModelIndex harris = model.indexOfPath(canonicalPath(path(m_library, QStringLiteral("harris.weights"))));
        QVERIFY(harris.isValid());
        QCOMPARE(harris.parent(), model.groupIndex(LibraryGroup::PerApp));
        QCOMPARE(harris.siblingAtColumn(LibraryModel::NetworkColumn).data().toString(), QStringLiteral("anderson2021"));

        const QModelIndex broken = model.indexOfPath(canonicalPath(path(m_library, QStringLiteral("broken.weights"))));
        QVERIFY(broken.isValid());
        QCOMPARE(broken.data(LibraryModel::ValidRole).toBool(), false);
        QCOMPARE(broken.siblingAtColumn(LibraryModel::NetworkColumn).data().toString(), QStringLiteral("invalid"));
        // The tool tip carries core's diagnostic, which names the file.
        QVERIFY(broken.data(Qt::ToolTipRole).toString().contains(QStringLiteral("broken.weights")));
        QVERIFY(!broken.data(Qt::DecorationRole).value<QIcon>().isNull());

        const QModelIndex legacy = model.indexOfPath(canonicalPath(path(m_library, QStringLiteral("legacy"))));
        QVERIFY(legacy.isValid());
        QVERIFY(legacy.data(LibraryModel::ValidRole).toBool());
        QVERIFY(model.entry(legacy)->isDirectory);
    }

    void tensorTableShowsEachTensorsFigures()
    {
        const LoadedWeightsPtr loaded = loadForDisplay(path(m_library, QStringLiteral("custom.weights")));
        QVERIFY(loaded->ok());
        TensorTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setWeights(loaded);
        QCOMPARE(model.rowCount(), wt::kTensorCount);
        const wt::Weights expected = [] {
            wt::Weights w = syntheticWeights(3);
            w.tensor(wt::Conv1Bias).data[3] = std::numeric_limits<float>::quiet_NaN();
            w.tensor(wt::Conv1Bias).data[4] = std::numeric_limits<float>::infinity();
            w.tensor(wt::Conv1Bias).data[5] = 0.0f;
            return w;
        }();
        for (int row = 0; row < wt::kTensorCount; ++row) {
            const auto &tensor = expected.tensors[row];
            const Figures f = figuresOf(tensor.data);
            const auto raw = [&](int column) { return model.index(row, column).data(TensorTableModel::RawRole); };
            QCOMPARE(model.index(row, TensorTableModel::Name).data().toString(), QString::fromStdString(tensor.name));
            QVERIFY2(near(raw(TensorTableModel::Min).toDouble(), f.min), tensor.name.c_str());
            QVERIFY2(near(raw(TensorTableModel::Max).toDouble(), f.max), tensor.name.c_str());
            QVERIFY2(near(raw(TensorTableModel::Mean).toDouble(), f.mean), tensor.name.c_str());
            QVERIFY2(near(raw(TensorTableModel::Std).toDouble(), f.stddev, 1e-7), tensor.name.c_str());
            QVERIFY2(near(raw(TensorTableModel::L2).toDouble(), f.l2), tensor.name.c_str());
            QCOMPARE(raw(TensorTableModel::NaNs).toULongLong(), f.nans);
            QCOMPARE(raw(TensorTableModel::Infs).toULongLong(), f.infs);
            QCOMPARE(raw(TensorTableModel::Zeros).toULongLong(), f.zeros);
        }
        const int conv1Bias = model.rowOfTensor(QStringLiteral("conv1_bias"));
        QCOMPARE(model.index(conv1Bias, TensorTableModel::NaNs).data().toString(), QStringLiteral("1"));
        QCOMPARE(
            model.index(model.rowOfTensor(QStringLiteral("head2_filter")), TensorTableModel::Shape).data().toString(),
            QStringLiteral("24 × 73"));
        // head1_bias is 0..7: the displayed figures are the exact ones.
        const int head1Bias = model.rowOfTensor(QStringLiteral("head1_bias"));
        QCOMPARE(model.index(head1Bias, TensorTableModel::Max).data().toString(), QStringLiteral("7"));
        QCOMPARE(model.index(head1Bias, TensorTableModel::Mean).data().toString(), QStringLiteral("3.5"));
    }

    void heatmapGridLaysOutChannelsRowsAndStrips()
    {
        const wt::Weights w = syntheticWeights(0);
        const auto &h1 = w.tensor(wt::Head1Filter);
        QCOMPARE(heatmapChannelCount(h1.shape), 8);
        const HeatmapGrid grid = makeHeatmapGrid(QStringLiteral("head1_filter"), h1.shape, h1.data, 3);
        QCOMPARE(grid.rows, 40);
        QCOMPARE(grid.columns, 7);
        for (int r : {0, 17, 39})
            for (int c : {0, 4, 6}) {
                QCOMPARE(grid.at(r, c), h1.data[3 + 8 * (r + 40 * c)]);
                QCOMPARE(grid.tensorIndex(r, c), (std::vector<uint32_t>{3, uint32_t(r), uint32_t(c)}));
            }
        const HeatmapGrid swapped = makeHeatmapGrid(QStringLiteral("head1_filter"), h1.shape, h1.data, 3, true);
        QCOMPARE(swapped.rows, 7);
        QCOMPARE(swapped.columns, 40);
        QCOMPARE(swapped.at(4, 17), grid.at(17, 4));

        const auto &bias = w.tensor(wt::Conv1Bias);
        const HeatmapGrid strip = makeHeatmapGrid(QStringLiteral("conv1_bias"), bias.shape, bias.data);
        QCOMPARE(strip.rows, 1);
        QCOMPARE(strip.columns, 32);
        QCOMPARE(strip.at(0, 9), bias.data[9]);
    }

    void heatmapHoverReportsIndexAndValue()
    {
        const wt::Weights w = syntheticWeights(0);
        const auto &h2 = w.tensor(wt::Head2Filter);
        HeatmapWidget widget;
        widget.resize(900, 420);
        widget.setGrid(makeHeatmapGrid(QStringLiteral("head2_filter"), h2.shape, h2.data));
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QCOMPARE(widget.grid().rows, 24);
        QCOMPARE(widget.grid().columns, 73);
        const QRect plot = widget.plotRect();
        QVERIFY(plot.width() >= 73 && plot.height() >= 24);

        for (auto [row, column] : {std::pair{0, 0}, std::pair{5, 12}, std::pair{23, 72}}) {
            const QPoint centre = widget.cellRect(row, column).center();
            const auto hover = widget.hoverAt(centre);
            QVERIFY(hover.has_value());
            QCOMPARE(hover->row, row);
            QCOMPARE(hover->column, column);
            QCOMPARE(hover->index, (std::vector<uint32_t>{uint32_t(row), uint32_t(column)}));
            QCOMPARE(hover->value, h2.data[row + 24 * column]);
        }
        // Schedule feature 12 of the Anderson2021 layout is bytes_at_realization.
        QVERIFY(widget.hoverAt(widget.cellRect(5, 12).center())->text.contains(QStringLiteral("bytes_at_realization")));
        QVERIFY(!widget.hoverAt(QPoint(2, 2)).has_value());

        QSignalSpy spy(&widget, &HeatmapWidget::hovered);
        const QPoint target = widget.cellRect(7, 30).center();
        QTest::mouseMove(&widget, target);
        QTRY_VERIFY(!spy.isEmpty());
        QVERIFY(spy.last().at(0).toString().startsWith(QStringLiteral("head2_filter(7, 30) = ")));
        QVERIFY(spy.last().at(0).toString().contains(QString::number(h2.data[7 + 24 * 30], 'g', 7)));

        // The colour scale is symmetric around 0 and spans the largest |value|.
        double largest = 0;
        for (float v : h2.data)
            largest = std::max(largest, static_cast<double>(std::abs(v)));
        QCOMPARE(widget.colourLimit(), largest);
    }

    void heatmapScaleCanClipToAPercentile()
    {
        std::vector<float> values;
        for (int i = 1; i <= 100; ++i)
            values.push_back(static_cast<float>(i % 2 ? i : -i));
        QCOMPARE(HeatmapPanel::scaleLimit(values, 1.0), 100.0);
        QCOMPARE(HeatmapPanel::scaleLimit(values, 0.95), 95.0);
        QCOMPARE(HeatmapPanel::scaleLimit(values, 0.99), 99.0);

        HeatmapPanel panel;
        panel.setTensor(QStringLiteral("conv1_filter"), {10, 10}, values);
        QCOMPARE(panel.heatmap()->colourLimit(), 100.0);
        QVERIFY(!panel.heatmap()->colourClipped());
        panel.scaleSelector()->setCurrentIndex(2); // 95%
        QCOMPARE(panel.heatmap()->colourLimit(), 95.0);
        QVERIFY(panel.heatmap()->colourClipped());
        // The grid keeps the true values; only the colours saturate.
        QCOMPARE(panel.heatmap()->grid().at(9, 9), -100.0f);
    }

    void histogramCountsValuesIntoBins()
    {
        HistogramWidget widget;
        const std::vector<float> values = {0, 1, 2, 3, 4, 5, 6, 7};
        widget.setValues(QStringLiteral("head1_bias"), values);
        widget.setBinCount(4);
        QCOMPARE(widget.histogram().low, 0.0);
        QCOMPARE(widget.histogram().high, 7.0);
        QCOMPARE(widget.histogram().counts, (std::vector<long>{2, 2, 2, 2}));

        const std::vector<float> skewed = {-1, -1, -1, 0.1f, 0.2f, 3, std::numeric_limits<float>::quiet_NaN()};
        widget.setValues(QStringLiteral("x"), skewed);
        widget.setBinCount(2); // [-1, 1) and [1, 3]
        QCOMPARE(widget.histogram().counts, (std::vector<long>{5, 1}));
        QCOMPARE(widget.histogram().nonFinite, 1L);
        QVERIFY(widget.chart()->title().contains(QStringLiteral("non-finite")));
    }

    void workspaceLoadsOffTheGuiThreadAndShowsATensor()
    {
        AppSettings settings;
        settings.setSessionFolders({m_library.path()});
        WeightsWorkspace workspace(settings);
        workspace.resize(1400, 900);
        workspace.show();
        QAbstractItemModelTester libraryTester(workspace.libraryModel(),
                                               QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester tableTester(workspace.tensorModel(),
                                             QAbstractItemModelTester::FailureReportingMode::QtTest);
        // The library's baseline opens by itself.
        QTRY_VERIFY(workspace.currentWeights());
        QTRY_VERIFY(!workspace.isBusy());
        QCOMPARE(workspace.currentWeights()->path, canonicalPath(path(m_library, QStringLiteral("baseline.weights"))));
        QVERIFY(!workspace.startPageShown());
        QCOMPARE(workspace.libraryModel()->entryCount(), 6);

        QSignalSpy shown(&workspace, &WeightsWorkspace::weightsDisplayed);
        const QString custom = path(m_library, QStringLiteral("custom.weights"));
        workspace.open(custom);
        QTRY_COMPARE(shown.count(), 1);
        QCOMPARE(workspace.currentWeights()->path, canonicalPath(custom));
        QVERIFY(settings.recentFiles().contains(canonicalPath(custom)));
        QCOMPARE(workspace.summary()->field(QStringLiteral("sha256")),
                 QString::fromLatin1(QCryptographicHash::hash(readAll(custom), QCryptographicHash::Sha256).toHex()));
        QCOMPARE(workspace.summary()->field(QStringLiteral("size")), QStringLiteral("20,400 bytes"));
        // A legacy directory is known by the digest of its hwf1 equivalent, the one
        // `beamscope-cli weights inspect` prints (core/weights/weights_digest.h).
        workspace.open(path(m_library, QStringLiteral("legacy")));
        QTRY_COMPARE(shown.count(), 2);
        const std::vector<char> hwf1 = wt::serializeWeightsFile(syntheticWeights(4));
        QCOMPARE(workspace.summary()->field(QStringLiteral("sha256")),
                 QString::fromLatin1(QCryptographicHash::hash(QByteArray(hwf1.data(), qsizetype(hwf1.size())),
                                                              QCryptographicHash::Sha256)
                                         .toHex()));
        workspace.open(custom);
        QTRY_COMPARE(shown.count(), 3);
        QVERIFY(
            workspace.summary()->field(QStringLiteral("versions")).contains(QStringLiteral("pipeline 3, schedule 3")));
        // conv1_bias holds a NaN and an infinity: an error in core (review, Weights 5), said in the header,
        // while the tensors stay in view to show where.
        QVERIFY(workspace.summary()->field(QStringLiteral("problems")).contains(QStringLiteral("Cannot be used")));
        QVERIFY(workspace.summary()->field(QStringLiteral("problems")).contains(QStringLiteral("1 NaN and 1 Inf")));

        QVERIFY(workspace.selectTensor(QStringLiteral("head1_filter")));
        HeatmapPanel *panel = workspace.heatmapPanel();
        QCOMPARE(panel->channelCount(), 8);
        QVERIFY(panel->channelSelector()->isVisible());
        panel->setChannel(2);
        const wt::Weights expected = syntheticWeights(3);
        const auto &h1 = expected.tensor(wt::Head1Filter);
        QCOMPARE(panel->heatmap()->grid().channel, 2);
        QCOMPARE(panel->heatmap()->grid().at(10, 5), h1.data[2 + 8 * (10 + 40 * 5)]);
        QCOMPARE(workspace.histogram()->histogram().total(), 2240L);

        // A tensor without channels hides the selector.
        QVERIFY(workspace.selectTensor(QStringLiteral("head2_filter")));
        QVERIFY(!panel->channelSelector()->isVisible());
        QCOMPARE(panel->heatmap()->grid().rows, 24);
        QCOMPARE(workspace.tensorView()->currentIndex().row(),
                 workspace.tensorModel()->rowOfTensor(QStringLiteral("head2_filter")));

        QVERIFY(workspace.tensorView()->isVisible() && workspace.histogram()->isVisible());
        // An invalid file shows its error inline and no tensors.
        workspace.open(path(m_library, QStringLiteral("broken.weights")));
        QTRY_COMPARE(shown.count(), 4); // after custom, the legacy directory and custom again
        QCOMPARE(workspace.tensorModel()->rowCount(), 0);
        QVERIFY(workspace.summary()->field(QStringLiteral("problems")).contains(QStringLiteral("broken.weights")));
        // Its view is the errors: no empty tensor table or histogram axes (W4).
        QVERIFY(!workspace.tensorView()->isVisible());
        QVERIFY(!workspace.histogram()->isVisible());
    }

    void diffViewShowsKnownChanges()
    {
        const wt::Weights a = syntheticWeights(7);
        wt::Weights b = a;
        b.tensor(wt::Head2Filter).data[5 + 24 * 2] += 0.5f; // element (5, 2)
        b.tensor(wt::Conv1Bias).data[3] -= 1.0f;
        QTemporaryDir dir;
        const QString fileA = path(dir, QStringLiteral("a.weights")), fileB = path(dir, QStringLiteral("b.weights"));
        save(a, fileA);
        save(b, fileB);

        AppSettings settings;
        settings.setSessionFolders({dir.path()});
        WeightsWorkspace workspace(settings);
        workspace.show();
        QAbstractItemModelTester summaryTester(workspace.diffView()->summaryModel(),
                                               QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester changesTester(workspace.diffView()->changesModel(),
                                               QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTRY_COMPARE(workspace.libraryModel()->entryCount(), 2);

        // Selecting two files in the library compares them, the last one clicked as b.
        QSignalSpy compared(&workspace, &WeightsWorkspace::comparisonDisplayed);
        QItemSelectionModel *selection = workspace.libraryView()->selectionModel();
        const QModelIndex indexA = workspace.libraryModel()->indexOfPath(canonicalPath(fileA));
        const QModelIndex indexB = workspace.libraryModel()->indexOfPath(canonicalPath(fileB));
        QVERIFY(indexA.isValid() && indexB.isValid());
        selection->setCurrentIndex(indexA, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        selection->setCurrentIndex(indexB, QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QTRY_VERIFY(compared.count() >= 1);
        QTRY_VERIFY(!workspace.isBusy());
        DiffView *view = workspace.diffView();
        QCOMPARE(workspace.tabs()->currentWidget(), view);
        QVERIFY(view->hasDiff());
        QCOMPARE(view->a()->path, canonicalPath(fileA));
        QCOMPARE(view->b()->path, canonicalPath(fileB));

        DiffSummaryModel *summary = view->summaryModel();
        QCOMPARE(summary->rowCount(), wt::kTensorCount);
        const auto raw = [&](int row, int column) {
            return summary->index(row, column).data(DiffSummaryModel::RawRole);
        };
        const auto &h2a = a.tensor(wt::Head2Filter).data, &h2b = b.tensor(wt::Head2Filter).data;
        const double delta = static_cast<double>(h2b[53]) - static_cast<double>(h2a[53]);
        double normA = 0, dot = 0, normB = 0;
        for (size_t i = 0; i < h2a.size(); ++i) {
            normA += double(h2a[i]) * h2a[i];
            normB += double(h2b[i]) * h2b[i];
            dot += double(h2a[i]) * h2b[i];
        }
        const int head2 = wt::Head2Filter, conv1Bias = wt::Conv1Bias;
        QCOMPARE(raw(head2, DiffSummaryModel::Changed).toULongLong(), 1ULL);
        QVERIFY(near(raw(head2, DiffSummaryModel::MaxAbsDiff).toDouble(), std::abs(delta)));
        QVERIFY(near(raw(head2, DiffSummaryModel::RelativeL2).toDouble(), std::abs(delta) / std::sqrt(normA)));
        QVERIFY(near(raw(head2, DiffSummaryModel::Cosine).toDouble(), dot / std::sqrt(normA * normB)));
        QCOMPARE(raw(conv1Bias, DiffSummaryModel::Changed).toULongLong(), 1ULL);
        QVERIFY(near(raw(conv1Bias, DiffSummaryModel::MaxAbsDiff).toDouble(),
                     std::abs(double(b.tensor(wt::Conv1Bias).data[3]) - double(a.tensor(wt::Conv1Bias).data[3]))));
        for (int row : {int(wt::Head1Filter), int(wt::Head1Bias), int(wt::Head2Bias), int(wt::Conv1Filter)}) {
            QCOMPARE(raw(row, DiffSummaryModel::Changed).toULongLong(), 0ULL);
            QCOMPARE(raw(row, DiffSummaryModel::MaxAbsDiff).toDouble(), 0.0);
        }

        view->selectTensor(head2);
        LargestChangesModel *changes = view->changesModel();
        QVERIFY(changes->rowCount() >= 1);
        QCOMPARE(changes->index(0, LargestChangesModel::Index).data().toString(), QStringLiteral("(5, 2)"));
        // What the element weighs, named as the heatmap's hover names it (review, Weights 6).
        QCOMPARE(changes->index(0, LargestChangesModel::Meaning).data().toString(), scheduleFeatureName(2));
        QVERIFY(near(changes->index(0, LargestChangesModel::Difference).data(LargestChangesModel::RawRole).toDouble(),
                     delta));
        const HeatmapGrid &grid = view->heatmapPanel()->heatmap()->grid();
        QCOMPARE(grid.rows, 24);
        QCOMPARE(grid.columns, 73);
        QVERIFY(near(grid.at(5, 2), delta, 1e-6));
        QCOMPARE(grid.at(4, 2), 0.0f);
        QVERIFY(near(view->heatmapPanel()->heatmap()->colourLimit(), std::abs(delta), 1e-6));
    }

    void conversionRefusesToOverwriteWithoutConfirmation()
    {
        QTemporaryDir dir;
        const QString source = path(m_library, QStringLiteral("harris.weights"));
        const QString existing = path(dir, QStringLiteral("existing.weights"));
        {
            QFile f(existing);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("keep me");
        }
        ConversionDialog dialog;
        dialog.show();
        QSignalSpy converted(&dialog, &ConversionDialog::converted);
        dialog.setSource(source);
        dialog.setDestination(existing);
        QVERIFY(!dialog.convert());
        QCOMPARE(readAll(existing), QByteArray("keep me"));
        QVERIFY(dialog.errorText().contains(QStringLiteral("Replace existing destination")));
        QVERIFY(dialog.messageLabel()->isVisible());
        QCOMPARE(converted.count(), 0);

        dialog.setReplaceConfirmed(true);
        QVERIFY2(dialog.convert(), qPrintable(dialog.errorText()));
        QCOMPARE(readAll(existing), readAll(source));
        QCOMPARE(converted.count(), 1);

        // To the legacy directory form and back, bit for bit; a second write is refused.
        dialog.setReplaceConfirmed(false);
        const QString legacy = path(dir, QStringLiteral("legacy-out"));
        dialog.setDestination(legacy);
        QVERIFY2(dialog.convert(), qPrintable(dialog.errorText()));
        QVERIFY(isLegacyWeightsDirectory(legacy));
        const QByteArray member = readAll(QDir(legacy).filePath(QStringLiteral("head1_conv1_bias.data")));
        QVERIFY(!dialog.convert());
        QCOMPARE(readAll(QDir(legacy).filePath(QStringLiteral("head1_conv1_bias.data"))), member);
        dialog.setSource(legacy);
        const QString back = path(dir, QStringLiteral("back.weights"));
        dialog.setDestination(back);
        QVERIFY2(dialog.convert(), qPrintable(dialog.errorText()));
        QCOMPARE(readAll(back), readAll(source));

        // A broken source is reported and nothing is written.
        dialog.setSource(path(m_library, QStringLiteral("broken.weights")));
        dialog.setDestination(path(dir, QStringLiteral("never.weights")));
        QVERIFY(!dialog.convert());
        QVERIFY(dialog.errorText().contains(QStringLiteral("broken.weights")));
        QVERIFY(!QFileInfo::exists(path(dir, QStringLiteral("never.weights"))));
    }

    // Review, Weights 1 and Conversion 1-4: a legacy directory with one member
    // missing and one short opens as weights with both errors (the CLI's), is
    // never taken for a library folder, and the conversion dialog lists both
    // before Convert and writes nothing.
    void brokenLegacyDirectoryIsRefusedEverywhere()
    {
        QTemporaryDir dir;
        const QString bad = path(dir, QStringLiteral("legacy_bad"));
        const WriteResult written = wt::saveWeightsDirectory(syntheticWeights(5), bad.toStdString(), Overwrite::Refuse);
        QVERIFY2(written.ok, written.error.c_str());
        QVERIFY(QFile::remove(QDir(bad).filePath(QStringLiteral("trunk_conv1_bias.data"))));
        QVERIFY(QFile::resize(QDir(bad).filePath(QStringLiteral("head2_conv1_weight.data")), 100));
        QVERIFY(isLegacyWeightsDirectory(bad));
        const wt::LoadResult core = wt::loadWeights(bad.toStdString());
        QVERIFY(!core.ok());
        QStringList coreErrors;
        for (const wt::Diagnostic &d : core.diagnostics)
            if (d.severity == wt::Severity::Error)
                coreErrors.append(QString::fromStdString(d.format()));
        QVERIFY(coreErrors.size() >= 2);

        AppSettings settings;
        settings.setSessionFolders({m_empty.path()});
        WeightsWorkspace workspace(settings);
        workspace.show();
        QSignalSpy shown(&workspace, &WeightsWorkspace::weightsDisplayed);
        workspace.open(bad);
        QTRY_COMPARE(shown.count(), 1);
        QVERIFY(!settings.libraryFolders().contains(canonicalPath(bad)));
        QVERIFY(workspace.currentWeights());
        QVERIFY(!workspace.currentWeights()->ok());
        for (const QString &e : coreErrors)
            QVERIFY2(workspace.currentWeights()->errorText().contains(e), qPrintable(e));

        // A library folder that holds it lists it as invalid weights.
        LibraryScanRequest request;
        request.folders = {dir.path()};
        const LibraryScanResult scan = scanLibrary(request);
        QCOMPARE(scan.entries.size(), size_t(1));
        QVERIFY(!scan.entries.front().valid);

        ConversionDialog dialog;
        dialog.show();
        dialog.setSource(bad);
        for (const QString &e : coreErrors)
            QVERIFY2(dialog.sourceInfoText().contains(e.toHtmlEscaped()), qPrintable(dialog.sourceInfoText()));
        const QString out = path(dir, QStringLiteral("out.weights"));
        dialog.setDestination(out);
        QVERIFY(!dialog.convert());
        for (const QString &e : coreErrors)
            QVERIFY2(dialog.errorText().contains(e), qPrintable(dialog.errorText()));
        QVERIFY(!QFileInfo::exists(out));
        // A new source clears the old error; a member file stands for its directory.
        dialog.setSource(path(m_library, QStringLiteral("harris.weights")));
        QVERIFY(dialog.errorText().isEmpty());
        QVERIFY(!dialog.messageLabel()->isVisible());
        QVERIFY(dialog.sourceInfoText().contains(QStringLiteral("anderson2021 .weights file")));
        QCOMPARE(sourceForChosenPath(QDir(bad).filePath(QStringLiteral("head1_conv1_bias.data"))), bad);
    }

    void emptyLibraryShowsTheStartPage()
    {
        AppSettings settings;
        settings.setSessionFolders({m_empty.path()});
        WeightsWorkspace workspace(settings);
        workspace.show();
        QSignalSpy scanned(&workspace, &WeightsWorkspace::libraryScanned);
        QTRY_COMPARE(scanned.count(), 1);
        QVERIFY(workspace.startPageShown());
        QVERIFY(!workspace.currentWeights());

        // A folder added later fills the library and opens its baseline.
        workspace.open(m_library.path());
        QTRY_VERIFY(workspace.currentWeights());
        QVERIFY(!workspace.startPageShown());
        QVERIFY(settings.libraryFolders().contains(canonicalPath(m_library.path())));
        QVERIFY(AppSettings().libraryFolders().contains(canonicalPath(m_library.path())));

        // Removing the folder empties the library again; what is open stays open.
        settings.removeLibraryFolder(m_library.path());
        QVERIFY(AppSettings().libraryFolders().isEmpty());
        QSignalSpy rescanned(&workspace, &WeightsWorkspace::libraryScanned);
        workspace.rescanLibrary();
        QTRY_COMPARE(rescanned.count(), 1);
        QVERIFY(workspace.currentWeights());
        // Only the open baseline remains, listed as an opened file.
        QCOMPARE(workspace.libraryModel()->entryCount(), 1);
    }

    // Help › Keyboard shortcuts names the keys the explorer answers to.
    void helpListsTheKeyboardShortcuts()
    {
        AppSettings settings;
        MainWindow window(settings);
        QMenu *help = nullptr;
        for (QAction *a : window.menuBar()->actions())
            if (a->menu() && a->text().remove(QLatin1Char('&')) == QStringLiteral("Help"))
                help = a->menu();
        QVERIFY(help);
        bool listed = false;
        for (QAction *a : help->actions())
            listed = listed || a->text().remove(QLatin1Char('&')) == QStringLiteral("Keyboard shortcuts");
        QVERIFY(listed);
        const QString html = window.keyboardShortcutsHtml();
        for (const char *key : {"Ctrl+O", "Ctrl+G", "Up / Down", "Shift+Left", "Ctrl+click"})
            QVERIFY2(html.contains(QLatin1String(key)), key);
        QVERIFY(html.contains(QStringLiteral("Ctrl+%1").arg(std::min<qsizetype>(9, window.workspaceIds().size()))));
    }

    void mainWindowRoutesFilesAndRemembersItsLayout()
    {
        QList<int> sizes;
        const QString harris = path(m_library, QStringLiteral("harris.weights"));
        {
            AppSettings settings;
            settings.setSessionFolders({m_library.path()});
            MainWindow window(settings);
            QVERIFY(window.workspaceIds().contains(QStringLiteral("weights")));
            window.resize(1300, 850);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            auto *weights = qobject_cast<WeightsWorkspace *>(window.workspace(QStringLiteral("weights")));
            QVERIFY(weights);
            QTRY_VERIFY(weights->currentWeights());

            // Dropping a .weights file opens it.
            QMimeData mime;
            mime.setUrls({QUrl::fromLocalFile(harris)});
            QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
            QCoreApplication::sendEvent(&window, &enter);
            QVERIFY(enter.isAccepted());
            QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
            QCoreApplication::sendEvent(&window, &drop);
            QTRY_COMPARE(weights->currentWeights()->path, canonicalPath(harris));
            QVERIFY(!window.openPath(path(m_library, QStringLiteral("missing.weights"))));

            QSplitter *main = weights->splitters().first();
            main->setSizes({411, 800});
            sizes = main->sizes();
            window.close(); // saves
        }
        AppSettings settings;
        QVERIFY(settings.recentFiles().contains(canonicalPath(harris)));
        MainWindow window(settings);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *weights = qobject_cast<WeightsWorkspace *>(window.workspace(QStringLiteral("weights")));
        QCOMPARE(weights->splitters().first()->sizes(), sizes);
        QCOMPARE(window.size(), QSize(1300, 850));
        // The recent file is part of the library even without its folder.
        QTRY_VERIFY(weights->libraryModel()->indexOfPath(canonicalPath(harris)).isValid());

        // Whatever a workspace opened joins File › Recent (a generator library, say), and the
        // weights library takes only the weights among them.
        const QString library = path(m_library, QStringLiteral("libuser_generators.so"));
        QFile so(library);
        QVERIFY(so.open(QIODevice::WriteOnly));
        so.close();
        Q_EMIT weights->fileOpened(library);
        QCOMPARE(settings.recentFiles().first(), canonicalPath(library));
        QCOMPARE(recentWeightsFiles(settings.recentFiles()), QStringList{canonicalPath(harris)});

        // With "Remember the window layout" off, nothing is written back.
        settings.setRememberLayout(false);
        weights->splitters().first()->setSizes({200, 1000});
        window.close();
        AppSettings again;
        QCOMPARE(again.rememberLayout(), false);
        MainWindow third(again);
        QCOMPARE(third.size().width() > 0, true);
    }

    void shippedWeightsAreGroupedAndShown()
    {
        BEAMSCOPE_REQUIRE_DATA(shipped, "weights/anderson2021");
        AppSettings settings;
        settings.setSessionFolders({QString::fromStdString(shipped.string())});
        WeightsWorkspace workspace(settings);
        workspace.show();
        QTRY_VERIFY(workspace.currentWeights());
        QTRY_VERIFY(!workspace.isBusy());
        LibraryModel *model = workspace.libraryModel();
        QCOMPARE(model->rowCount(model->groupIndex(LibraryGroup::Baseline)), 1);
        QCOMPARE(model->rowCount(model->groupIndex(LibraryGroup::PerApp)), 16);
        QCOMPARE(model->rowCount(model->groupIndex(LibraryGroup::General)), 1);
        QVERIFY(workspace.currentWeights()->path.endsWith(QStringLiteral("/baseline.weights")));
        // Listed in weights/README.md.
        QCOMPARE(workspace.summary()->field(QStringLiteral("sha256")),
                 QStringLiteral("e2704ffdbe06aa10146f8eabeb913c72a57c10530980223c9361cb06330e585f"));
        const wt::LoadResult direct = wt::loadWeights(shipped / "baseline.weights");
        QVERIFY(direct.ok());
        TensorTableModel *table = workspace.tensorModel();
        for (int row = 0; row < wt::kTensorCount; ++row) {
            const Figures f = figuresOf(direct.weights->tensors[row].data);
            QVERIFY(near(table->index(row, TensorTableModel::Mean).data(TensorTableModel::RawRole).toDouble(), f.mean));
            QVERIFY(near(table->index(row, TensorTableModel::L2).data(TensorTableModel::RawRole).toDouble(), f.l2));
        }
    }
};

QTEST_MAIN(TestUiWeights)
#include "tst_ui_weights.moc"
