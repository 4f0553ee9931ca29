#include "ui/autotune/autotune_charts.h"

#include "ui/common/fresh_chart.h"

#include "ui/predictions/prediction_scatter.h"

#include <QBarCategoryAxis>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace beamscope::ui {

namespace {

// The value at fraction q of sorted values, linearly interpolated.
double quantile(const std::vector<double> &sorted, double q)
{
    const double at = q * static_cast<double>(sorted.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(at));
    const size_t hi = std::min(sorted.size() - 1, lo + 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - static_cast<double>(lo));
}

// A y axis for positive values from low to high: logarithmic when they span
// well over a decade, else linear with rounded ticks (a log axis over 1..3 would
// show a single label, "1", and no way to read the spread).
QAbstractAxis *readableRatioAxis(double low, double high)
{
    if (high / low >= 30) {
        auto *log = new QLogValueAxis;
        log->setBase(10);
        log->setRange(low, high);
        log->setLabelFormat(QStringLiteral("%g"));
        log->setMinorTickCount(-1);
        return log;
    }
    auto *linear = new QValueAxis;
    linear->setRange(low, high);
    linear->setTickCount(5);
    linear->applyNiceNumbers();
    linear->setLabelFormat(QStringLiteral("%.3g"));
    return linear;
}

} // namespace

RuntimeDistributionChart::RuntimeDistributionChart(QWidget *parent) : QChartView(parent)
{
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(180);
    setData({}, tr("ms"));
}

void RuntimeDistributionChart::setData(const AutotuneRunData &data, const QString &timeLabel)
{
    // Relative to each pipeline's best, on a log axis: pipelines differ by
    // orders of magnitude, and the spread is what tells how much tuning buys.
    QChart *chart = freshChart(this, tr("Measured runtimes per pipeline, relative to its best"));
    chart->legend()->hide();
    Q_UNUSED(timeLabel);
    m_series = new QBoxPlotSeries;
    QStringList categories;
    double top = 0;
    const QStringList pipelines = data.pipelines();
    for (int i = 0; i < pipelines.size(); i++) {
        std::vector<double> ms = data.runtimesMs(pipelines[i]);
        if (ms.empty() || !(ms.front() > 0))
            continue;
        const double best = ms.front();
        for (double &v : ms)
            v /= best;
        auto *set = new QBoxSet(pipelines[i]);
        set->setValue(QBoxSet::LowerExtreme, ms.front());
        set->setValue(QBoxSet::LowerQuartile, quantile(ms, 0.25));
        set->setValue(QBoxSet::Median, quantile(ms, 0.5));
        set->setValue(QBoxSet::UpperQuartile, quantile(ms, 0.75));
        set->setValue(QBoxSet::UpperExtreme, ms.back());
        set->setBrush(PredictionScatter::pipelineColor(i).lighter(130));
        set->setPen(QPen(PredictionScatter::pipelineColor(i).darker(120)));
        m_series->append(set);
        categories << pipelines[i];
        top = std::max(top, ms.back());
    }
    chart->addSeries(m_series);
    auto *x = new QBarCategoryAxis;
    x->append(categories.isEmpty() ? QStringList{tr("(nothing measured yet)")} : categories);
    x->setLabelsAngle(categories.size() > 4 ? -30 : 0);
    x->setTruncateLabels(false); // "conv_r…" names no pipeline
    chart->addAxis(x, Qt::AlignBottom);
    QAbstractAxis *y = readableRatioAxis(1.0, std::max(2.0, top * 1.1));
    y->setTitleText(tr("runtime / best runtime"));
    chart->addAxis(y, Qt::AlignLeft);
    m_series->attachAxis(x);
    m_series->attachAxis(y);
}

BestSoFarChart::BestSoFarChart(QWidget *parent) : QChartView(parent)
{
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(180);
    setData({}, tr("ms"));
}

void BestSoFarChart::setData(const AutotuneRunData &data, const QString &timeLabel)
{
    QChart *chart = freshChart(this, tr("Best runtime so far, per batch"));
    m_lines.clear();
    auto *x = new QValueAxis;
    x->setTitleText(tr("batch"));
    x->setLabelFormat(QStringLiteral("%d"));
    chart->addAxis(x, Qt::AlignBottom);
    int lastBatch = 0;
    double top = 0, bottom = INFINITY;
    const QStringList pipelines = data.pipelines();
    for (const QString &pipeline : pipelines)
        for (const auto &[batch, ms] : data.bestSoFar(pipeline)) {
            lastBatch = std::max(lastBatch, batch);
            top = std::max(top, ms);
            bottom = std::min(bottom, ms);
        }
    QAbstractAxis *y = top > 0 ? readableRatioAxis(bottom / 1.2, top * 1.2) : readableRatioAxis(0.1, 10);
    y->setTitleText(timeLabel);
    chart->addAxis(y, Qt::AlignLeft);
    for (int i = 0; i < pipelines.size(); i++) {
        auto *line = new QLineSeries;
        line->setName(pipelines[i]);
        line->setPointsVisible(true);
        line->setMarkerSize(9);
        line->setColor(PredictionScatter::pipelineColor(i));
        for (const auto &[batch, ms] : data.bestSoFar(pipelines[i]))
            line->append(batch, ms);
        chart->addSeries(line);
        line->attachAxis(x);
        line->attachAxis(y);
        m_lines << line;
    }
    // Half a batch of room each side: one batch's points sit in the middle, not on the y axis.
    x->setRange(-0.5, lastBatch + 0.5);
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0);
    x->setTickInterval(std::max(1, (lastBatch + 9) / 10));
}

} // namespace beamscope::ui
