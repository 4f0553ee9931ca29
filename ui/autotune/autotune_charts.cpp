#include "ui/autotune/autotune_charts.h"

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

QChart *freshChart(QChartView *view, const QString &title)
{
    auto *chart = new QChart;
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    QChart *old = view->chart();
    view->setChart(chart);
    delete old;
    return chart;
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
    auto *y = new QLogValueAxis;
    y->setTitleText(tr("runtime / best runtime"));
    y->setBase(10);
    y->setRange(0.9, std::max(2.0, top * 1.2));
    y->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(x, Qt::AlignBottom);
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
    auto *y = new QLogValueAxis;
    y->setTitleText(timeLabel);
    y->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    int lastBatch = 0;
    double top = 0, bottom = INFINITY;
    const QStringList pipelines = data.pipelines();
    for (int i = 0; i < pipelines.size(); i++) {
        auto *line = new QLineSeries;
        line->setName(pipelines[i]);
        line->setPointsVisible(true);
        line->setColor(PredictionScatter::pipelineColor(i));
        for (const auto &[batch, ms] : data.bestSoFar(pipelines[i])) {
            line->append(batch, ms);
            lastBatch = std::max(lastBatch, batch);
            top = std::max(top, ms);
            bottom = std::min(bottom, ms);
        }
        chart->addSeries(line);
        line->attachAxis(x);
        line->attachAxis(y);
        m_lines << line;
    }
    x->setRange(0, std::max(1, lastBatch));
    x->setTickCount(std::min(lastBatch, 10) + 2 > 2 ? std::min(lastBatch + 1, 11) : 2);
    if (top > 0)
        y->setRange(bottom / 1.5, top * 1.5);
    else
        y->setRange(0.1, 10);
}

} // namespace beamscope::ui
