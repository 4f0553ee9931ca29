// The Predictions workspace, offscreen, on a generated sample set: one scatter
// series per pipeline with a point per distinct schedule, log-log axes, a
// second chart for a second weights file, the rank table equal to core's
// figures for the same data, skipped samples with their reasons, and a newer
// request superseding an older one.

#include "core/model/cost_model.h"
#include "core/samples/dataset.h"
#include "core/samples/prediction.h"
#include "core/samples/training_loop.h"
#include "core/weights/weights.h"
#include "tests/ui_retrain/synthetic_sample_set.h"
#include "ui/common/app_settings.h"
#include "ui/common/weights_combo_box.h"
#include "core/samples/bootstrap_interval.h"
#include "ui/predictions/prediction_scatter.h"
#include "ui/predictions/predictions_workspace.h"
#include "ui/predictions/rank_table_model.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <cmath>

using namespace beamscope;
using namespace beamscope::ui;

namespace {

constexpr int kTimeoutMs = 60000;

// What core says for the same data, computed here without the GUI.
struct CoreFigures {
    samples::Dataset dataset;
    std::vector<samples::RankMetrics> metrics;
    samples::RankSummary summary;
};

CoreFigures coreFigures(const QString &folder, const QString &weightsFile, int numCores)
{
    CoreFigures figures;
    figures.dataset = samples::loadSamples({folder.toStdString()}).dataset;
    const auto w = weights::loadWeights(weightsFile.toStdString());
    const model::CostModel costModel(*w.weights);
    for (const auto &pipeline : figures.dataset.pipelines)
        figures.metrics.push_back(samples::pipelineRankMetrics(
            pipeline, samples::predictPipeline(costModel, pipeline, numCores).predictions));
    figures.summary = samples::summarizeRanks(figures.metrics);
    return figures;
}

double cell(const RankTableModel &model, int row, int column)
{
    return model.index(row, column).data(RankTableModel::ValueRole).toDouble();
}

// NaN == NaN here: both sides say "undefined".
bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

} // namespace

class TestUiPredictions : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_settingsDir;
    QTemporaryDir m_dir;
    QString m_samples, m_library, m_baseline, m_hidden;

    void waitIdle(PredictionsWorkspace &workspace) { QTRY_VERIFY_WITH_TIMEOUT(workspace.isIdle(), kTimeoutMs); }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("BeamscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_ui_predictions"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
        QVERIFY(m_settingsDir.isValid() && m_dir.isValid());
        m_samples = m_dir.filePath(QStringLiteral("samples"));
        const auto hidden = samples::randomWeights(1234);
        test::SyntheticSetShape shape;
        shape.apps = {"blur", "conv", "hist"};
        shape.schedulesPerPipeline = 15;
        QCOMPARE(test::writeSyntheticSampleSet(m_samples.toStdString(), hidden, shape), 45);
        test::writeImplausibleSamples((m_samples + QStringLiteral("/bad")).toStdString());
        m_library = m_dir.filePath(QStringLiteral("library"));
        QVERIFY(QDir().mkpath(m_library));
        m_baseline = canonicalPath(m_library + QStringLiteral("/baseline.weights"));
        m_hidden = canonicalPath(m_library + QStringLiteral("/hidden.weights"));
        QVERIFY(weights::saveWeightsFile(samples::randomWeights(8), m_baseline.toStdString(), Overwrite::Refuse).ok);
        QVERIFY(weights::saveWeightsFile(hidden, m_hidden.toStdString(), Overwrite::Refuse).ok);
    }

    void oneWeightsFile()
    {
        AppSettings settings;
        settings.setSessionFolders({m_library});
        PredictionsWorkspace workspace(settings);
        QAbstractItemModelTester tester(workspace.rankModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        workspace.addSampleFolder(m_samples);
        waitIdle(workspace);
        // By default a file that is not Halide's (untrained) baseline: review, "untrained files are the silent default".
        QCOMPARE(workspace.weightsFiles(), QStringList{m_hidden});
        workspace.setWeights(m_baseline);
        waitIdle(workspace);
        QVERIFY(workspace.result().has_value());
        QCOMPARE(workspace.weightsFiles(), QStringList{m_baseline});
        const auto &result = *workspace.result();
        QCOMPARE(result.weights.size(), size_t(1));
        QVERIFY2(result.weights[0].error.isEmpty(), qPrintable(result.weights[0].error));

        const CoreFigures core = coreFigures(m_samples, m_baseline, 80);
        QCOMPARE(core.dataset.pipelines.size(), size_t(3));
        // One series per pipeline, one point per distinct schedule (none hidden: all positive).
        const auto *scatter = workspace.scatter(0);
        QCOMPARE(scatter->pipelineSeries().size(), 3);
        QCOMPARE(scatter->hiddenPoints(), 0);
        for (int p = 0; p < 3; ++p) {
            QCOMPARE(scatter->pipelineSeries()[p]->count(),
                     int(core.dataset.pipelines[static_cast<size_t>(p)].schedules.size()));
            QCOMPARE(scatter->pipelineSeries()[p]->color(), PredictionScatter::pipelineColor(p));
        }
        QVERIFY(scatter->pipelineSeries()[0]->name().contains(QStringLiteral("blur")));
        QCOMPARE(scatter->xAxis()->base(), 10.0);
        QVERIFY(scatter->xAxis()->min() <= core.dataset.pipelines[0].schedules[0].bestRuntimeMs());
        QVERIFY(scatter->xAxis()->max() >= core.dataset.pipelines[0].schedules[0].bestRuntimeMs());
        QVERIFY(!workspace.scatter(1)->isVisibleTo(&workspace));

        // The table holds core's figures, pipeline by pipeline, then their means.
        const auto &model = *workspace.rankModel();
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.columnCount(), int(RankTableModel::FixedColumnCount) + int(RankTableModel::MetricCount) + 1);
        for (int p = 0; p < 3; ++p) {
            const auto &m = core.metrics[static_cast<size_t>(p)];
            QCOMPARE(model.index(p, RankTableModel::PipelineColumn).data().toInt(),
                     core.dataset.pipelines[static_cast<size_t>(p)].pipelineId);
            QCOMPARE(model.index(p, RankTableModel::SchedulesColumn).data().toULongLong(), qulonglong(m.count));
            QVERIFY(same(cell(model, p, RankTableModel::metricColumn(0, RankTableModel::Spearman)), m.spearman));
            QVERIFY(same(cell(model, p, RankTableModel::metricColumn(0, RankTableModel::Kendall)), m.kendall));
            QVERIFY(
                same(cell(model, p, RankTableModel::metricColumn(0, RankTableModel::Pairwise)), m.pairwiseAccuracy));
        }
        QVERIFY(model.isSummaryRow(3));
        QVERIFY(same(cell(model, 3, RankTableModel::metricColumn(0, RankTableModel::Spearman)), core.summary.spearman));

        // Small samples read as what they are: n, each figure's 95% bootstrap interval (core's, over
        // the pipeline's schedules), and a caveat below 20 schedules.
        for (int p = 0; p < 3; ++p) {
            const auto &pipeline = result.pipelines[static_cast<size_t>(p)];
            const std::vector<double> predicted(result.weights[0].pipelines[static_cast<size_t>(p)].predictions.begin(),
                                                result.weights[0].pipelines[static_cast<size_t>(p)].predictions.end());
            const std::vector<double> measured(pipeline.runtimesMs.begin(), pipeline.runtimesMs.end());
            const samples::ScheduleRanking ranking{predicted, measured};
            const samples::RankIntervals expected = samples::bootstrapRankIntervals(std::span(&ranking, 1));
            const QString shown =
                model.index(p, RankTableModel::metricColumn(0, RankTableModel::Spearman)).data().toString();
            if (expected.spearman.defined())
                QVERIFY2(shown.endsWith(QStringLiteral("[%1, %2]")
                                            .arg(expected.spearman.low, 0, 'f', 2)
                                            .arg(expected.spearman.high, 0, 'f', 2)),
                         qPrintable(shown));
            QVERIFY(expected.spearman.low <= expected.spearman.high);
            const QString caveats = model.index(p, model.caveatsColumn()).data().toString();
            QCOMPARE(caveats.contains(QStringLiteral("a rough guess")),
                     pipeline.runtimesMs.size() < samples::kFewSchedules);
        }
        // E2: the bold mean and the chart's headline carry the caveats of the rows under them.
        int few = 0;
        for (const auto &pipeline : result.pipelines)
            few += pipeline.runtimesMs.size() < samples::kFewSchedules ? 1 : 0;
        QVERIFY(few > 0);
        const QString expectedCaveat = QStringLiteral("%1 of 3 with fewer than 20 schedules").arg(few);
        const QString meanCaveats = model.index(3, model.caveatsColumn()).data().toString();
        QVERIFY2(meanCaveats.contains(expectedCaveat), qPrintable(meanCaveats));
        QVERIFY2(scatter->chart()->title().contains(expectedCaveat), qPrintable(scatter->chart()->title()));

        // The two implausible files are listed with their reasons.
        QCOMPARE(workspace.skippedList()->topLevelItemCount(), 2);
        QCOMPARE(int(core.dataset.skipped.size()), 2);
        QStringList reasons;
        for (int i = 0; i < 2; ++i)
            reasons.append(workspace.skippedList()->topLevelItem(i)->text(0) + QStringLiteral(": ") +
                           workspace.skippedList()->topLevelItem(i)->text(1));
        for (const auto &skip : core.dataset.skipped)
            QVERIFY2(reasons.contains(QString::fromStdString(skip.file.filename().string() + ": " + skip.reason)),
                     qPrintable(reasons.join(QLatin1Char('\n'))));
        QCOMPARE(workspace.tabs()->tabText(1), QStringLiteral("Skipped (2)"));
    }

    void twoWeightsSideBySide()
    {
        AppSettings settings;
        settings.setSessionFolders({m_library});
        PredictionsWorkspace workspace(settings);
        QAbstractItemModelTester tester(workspace.rankModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        workspace.addSampleFolder(m_samples);
        workspace.setWeights(m_baseline);
        workspace.setComparisonWeights(m_hidden);
        waitIdle(workspace);
        QCOMPARE(workspace.weightsFiles(), QStringList({m_baseline, m_hidden}));
        const auto &result = *workspace.result();
        QCOMPARE(result.weights.size(), size_t(2));
        QVERIFY(workspace.scatter(1)->isVisibleTo(&workspace));
        QCOMPARE(workspace.scatter(1)->pipelineSeries().size(), 3);
        // Same pipelines, same colours, same point counts in both charts.
        for (int p = 0; p < 3; ++p) {
            QCOMPARE(workspace.scatter(1)->pipelineSeries()[p]->count(),
                     workspace.scatter(0)->pipelineSeries()[p]->count());
            QCOMPARE(workspace.scatter(1)->pipelineSeries()[p]->color(),
                     workspace.scatter(0)->pipelineSeries()[p]->color());
        }
        const auto &model = *workspace.rankModel();
        QCOMPARE(model.columnCount(), int(RankTableModel::FixedColumnCount) + 2 * int(RankTableModel::MetricCount) + 1);
        const CoreFigures hidden = coreFigures(m_samples, m_hidden, 80);
        for (int p = 0; p < 3; ++p) {
            const double spearman = cell(model, p, RankTableModel::metricColumn(1, RankTableModel::Spearman));
            QVERIFY(same(spearman, hidden.metrics[static_cast<size_t>(p)].spearman));
            // The runtimes are the hidden model's predictions, so it ranks them perfectly.
            QCOMPARE(spearman, 1.0);
            QCOMPARE(cell(model, p, RankTableModel::metricColumn(1, RankTableModel::Kendall)), 1.0);
        }
        QVERIFY(model.headerData(RankTableModel::metricColumn(1, RankTableModel::Spearman), Qt::Horizontal)
                    .toString()
                    .contains(QStringLiteral("hidden")));

        // Turning the comparison off goes back to one chart and three metric columns.
        workspace.setComparisonWeights(QString());
        waitIdle(workspace);
        QCOMPARE(workspace.result()->weights.size(), size_t(1));
        QVERIFY(!workspace.scatter(1)->isVisibleTo(&workspace));
        QCOMPARE(model.columnCount(), int(RankTableModel::FixedColumnCount) + int(RankTableModel::MetricCount) + 1);
    }

    void newerRequestSupersedesOlder()
    {
        AppSettings settings;
        settings.setSessionFolders({m_library});
        PredictionsWorkspace workspace(settings);
        workspace.addSampleFolder(m_samples);
        waitIdle(workspace);
        QSignalSpy evaluated(&workspace, &PredictionsWorkspace::evaluated);
        workspace.setNumCores(80);
        workspace.evaluate();           // baseline
        workspace.setWeights(m_hidden); // then another file before the first could deliver
        workspace.evaluate();
        waitIdle(workspace);
        QCOMPARE(evaluated.count(), 1);
        QCOMPARE(workspace.result()->weights.size(), size_t(1));
        QCOMPARE(workspace.result()->weights[0].path, m_hidden);
    }

    void unusableWeightsAreReported()
    {
        AppSettings settings;
        settings.setSessionFolders({m_library});
        PredictionsWorkspace workspace(settings);
        const QString broken = m_dir.filePath(QStringLiteral("broken.weights"));
        QFile file(broken);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("not weights");
        file.close();
        workspace.addSampleFolder(m_samples);
        workspace.setWeights(broken);
        waitIdle(workspace);
        QCOMPARE(workspace.result()->weights.size(), size_t(1));
        QVERIFY(!workspace.result()->weights[0].error.isEmpty());
        QVERIFY(workspace.statusLabel()->text().contains(QStringLiteral("broken.weights")));
        QCOMPARE(workspace.rankModel()->rowCount(), 0);
        QCOMPARE(workspace.scatter(0)->pipelineSeries().size(), 0);
    }
};

QTEST_MAIN(TestUiPredictions)
#include "tst_ui_predictions.moc"
