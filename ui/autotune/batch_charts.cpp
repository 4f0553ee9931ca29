#include "ui/autotune/batch_charts.h"

#include "ui/common/fresh_chart.h"

#include "core/samples/bootstrap_interval.h"
#include "ui/predictions/prediction_scatter.h"

#include <QChart>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QSplitter>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace beamscope::ui {

namespace {

QLogValueAxis *logAxis(double low, double high, const QString &title)
{
    auto *axis = new QLogValueAxis;
    axis->setBase(10);
    // A decade around the values at least, so that a single point still has an axis to stand on.
    low = std::pow(10.0, std::floor(std::log10(low)));
    high = std::pow(10.0, std::ceil(std::log10(high)));
    if (high <= low)
        high = low * 10;
    axis->setRange(low, high);
    axis->setLabelFormat(QStringLiteral("%g"));
    axis->setMinorTickCount(-1);
    axis->setTitleText(title);
    return axis;
}

QString spearmanText(double v) { return std::isfinite(v) ? QString::number(v, 'f', 2) : QStringLiteral("–"); }

} // namespace

BatchScatterChart::BatchScatterChart(QWidget *parent) : QChartView(parent)
{
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(180);
    setData({}, -1, tr("ms"));
}

void BatchScatterChart::setData(const AutotuneRunData &data, int batch, const QString &timeLabel)
{
    m_series.clear();
    std::vector<double> spearmans;
    size_t points = 0;
    double xLow = INFINITY, xHigh = 0, yLow = INFINITY, yHigh = 0;
    const QStringList pipelines = data.pipelines();
    std::vector<std::pair<QString, study::LoopBatch>> shown;
    for (const QString &p : pipelines)
        for (const study::LoopBatch &b : data.loopBatches(p))
            if (b.batch == batch && !b.measuredMs.empty())
                shown.emplace_back(p, b);
    for (const auto &[pipeline, b] : shown) {
        spearmans.push_back(b.outOfSample.spearman);
        for (size_t i = 0; i < b.predicted.size(); i++)
            if (b.predicted[i] > 0 && b.measuredMs[i] > 0) {
                xLow = std::min(xLow, b.predicted[i]);
                xHigh = std::max(xHigh, b.predicted[i]);
                yLow = std::min(yLow, b.measuredMs[i]);
                yHigh = std::max(yHigh, b.measuredMs[i]);
                ++points;
            }
    }
    const QString title = batch < 0 ? tr("Predicted against measured, per batch")
                                    : tr("Batch %1: predicted vs measured, ρ %3 (%2 schedules)")
                                          .arg(batch)
                                          .arg(points)
                                          .arg(spearmanText(samples::finiteMean(spearmans)));
    QChart *chart = freshChart(this, title);
    if (points == 0) {
        chart->legend()->hide();
        return;
    }
    auto *x = logAxis(xLow, xHigh, tr("predicted cost"));
    auto *y = logAxis(yLow, yHigh, tr("measured, ms"));
    setToolTip(tr("Each point a schedule of the batch: the cost its weights (trained on earlier batches only) "
                  "predicted, and its runtime (%1). ρ: Spearman, the mean over pipelines.")
                   .arg(timeLabel));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (const auto &[pipeline, b] : shown) {
        auto *series = new QScatterSeries;
        series->setName(QStringLiteral("%1 (ρ %2)").arg(pipeline, spearmanText(b.outOfSample.spearman)));
        series->setMarkerSize(8);
        series->setColor(PredictionScatter::pipelineColor(static_cast<int>(pipelines.indexOf(pipeline))));
        for (size_t i = 0; i < b.predicted.size(); i++)
            if (b.predicted[i] > 0 && b.measuredMs[i] > 0)
                series->append(b.predicted[i], b.measuredMs[i]);
        chart->addSeries(series);
        series->attachAxis(x);
        series->attachAxis(y);
        m_series << series;
    }
    chart->legend()->setVisible(shown.size() <= 8);
}

LearningCurveChart::LearningCurveChart(QWidget *parent) : QChartView(parent)
{
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(180);
    setData({});
}

void LearningCurveChart::setData(const AutotuneRunData &data)
{
    QChart *chart = freshChart(this, tr("Learning curve: the pick per batch, and ρ"));
    m_picks.clear();
    m_spearman = nullptr;
    const QStringList pipelines = data.pipelines();
    const std::vector<int> batches = data.batches();
    if (batches.empty())
        return;
    auto *x = new QValueAxis;
    x->setRange(batches.front() - 0.2, batches.back() + 0.2);
    x->setTickCount(std::min<int>(static_cast<int>(batches.size()), 10) + (batches.size() == 1 ? 1 : 0));
    x->setLabelFormat(QStringLiteral("%d"));
    x->setTitleText(tr("batch"));
    double low = 0.9, high = 1.1;
    std::map<int, std::vector<double>> spearmanByBatch;
    std::vector<std::pair<int, QLineSeries *>> lines;
    for (int i = 0; i < pipelines.size(); i++) {
        const std::vector<study::LoopBatch> loop = data.loopBatches(pipelines[i]);
        double first = NAN;
        auto *line = new QLineSeries;
        line->setName(pipelines[i]);
        line->setColor(PredictionScatter::pipelineColor(i));
        line->setPointsVisible(true);
        for (const study::LoopBatch &b : loop) {
            spearmanByBatch[b.batch].push_back(b.outOfSample.spearman);
            if (!std::isfinite(b.pickMs) || b.pickMs <= 0)
                continue;
            if (!std::isfinite(first))
                first = b.pickMs;
            const double relative = b.pickMs / first;
            low = std::min(low, relative);
            high = std::max(high, relative);
            line->append(b.batch, relative);
        }
        lines.emplace_back(i, line);
    }
    auto *y = new QValueAxis;
    y->setRange(std::max(0.0, low - 0.1 * (high - low)), high + 0.1 * (high - low));
    y->setTickCount(5);
    y->applyNiceNumbers();
    y->setLabelFormat(QStringLiteral("%.2g"));
    y->setTitleText(tr("pick / batch 0's pick"));
    setToolTip(tr("Each pipeline's pick (sample 0, the beam search with the batch's weights) over its batch-0 pick; "
                  "dashed: Spearman of each batch's weights on that batch's schedules, the mean over pipelines"));
    auto *rho = new QValueAxis;
    rho->setRange(-1, 1);
    rho->setTickCount(5);
    rho->setTitleText(tr("ρ (dashed)"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    chart->addAxis(rho, Qt::AlignRight);
    for (auto &[i, line] : lines) {
        chart->addSeries(line);
        line->attachAxis(x);
        line->attachAxis(y);
        m_picks << line;
    }
    m_spearman = new QLineSeries;
    m_spearman->setName(tr("ρ out of sample"));
    m_spearman->setPen(QPen(Qt::darkGray, 2, Qt::DashLine));
    m_spearman->setPointsVisible(true);
    for (const auto &[batch, values] : spearmanByBatch)
        if (const double mean = samples::finiteMean(values); std::isfinite(mean))
            m_spearman->append(batch, mean);
    chart->addSeries(m_spearman);
    m_spearman->attachAxis(x);
    m_spearman->attachAxis(rho);
    chart->legend()->setVisible(pipelines.size() <= 8);
}

BatchLearningPanel::BatchLearningPanel(QWidget *parent) : QWidget(parent)
{
    m_batch = new QComboBox;
    m_batch->setObjectName(QStringLiteral("batchChoice"));
    m_batch->setToolTip(tr("The batch whose schedules the scatter shows"));
    m_scatter = new BatchScatterChart;
    m_curve = new LearningCurveChart;
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Batch")));
    top->addWidget(m_batch);
    top->addStretch(1);
    auto *split = new QSplitter(Qt::Horizontal);
    split->addWidget(m_scatter);
    split->addWidget(m_curve);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    connect(m_batch, &QComboBox::currentIndexChanged, this, [this] { redrawScatter(); });
}

void BatchLearningPanel::setData(const AutotuneRunData &data, const QString &timeLabel)
{
    m_data = &data;
    m_timeLabel = timeLabel;
    const int previous = m_batch->currentData().isValid() ? m_batch->currentData().toInt() : -1;
    const bool wasLatest = m_batch->currentIndex() < 0 || m_batch->currentIndex() == m_batch->count() - 1;
    {
        const QSignalBlocker block(m_batch);
        m_batch->clear();
        for (int b : data.batches())
            m_batch->addItem(QString::number(b), b);
        // Follow the run while it goes on; keep a batch the user chose.
        const int at = wasLatest ? m_batch->count() - 1 : m_batch->findData(previous);
        m_batch->setCurrentIndex(at >= 0 ? at : m_batch->count() - 1);
    }
    redrawScatter();
    m_curve->setData(data);
}

void BatchLearningPanel::setBatch(int batch)
{
    const int at = m_batch->findData(batch);
    if (at >= 0)
        m_batch->setCurrentIndex(at);
}

void BatchLearningPanel::redrawScatter()
{
    if (!m_data)
        return;
    m_scatter->setData(*m_data, m_batch->currentData().isValid() ? m_batch->currentData().toInt() : -1, m_timeLabel);
}

} // namespace beamscope::ui
