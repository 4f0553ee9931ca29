#include "ui/weights/histogram_widget.h"

#include "ui/common/number_format.h"

#include <QAreaSeries>
#include <QChart>
#include <QLineSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace beamscope::ui {

namespace {
// 1, 2, 2.5 or 5 times a power of ten, giving about `ticks` intervals over span.
double niceStep(double span, int ticks)
{
    if (!(span > 0))
        return 1;
    const double rough = span / ticks;
    const double power = std::pow(10.0, std::floor(std::log10(rough)));
    for (double factor : {1.0, 2.0, 2.5, 5.0})
        if (factor * power >= rough)
            return factor * power;
    return 10.0 * power;
}
} // namespace

HistogramWidget::HistogramWidget(QWidget *parent) : QChartView(parent)
{
    auto *chart = new QChart;
    chart->legend()->hide();
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->setBackgroundRoundness(0);
    m_upper = new QLineSeries(chart);
    m_lower = new QLineSeries(chart);
    m_area = new QAreaSeries(m_upper, m_lower);
    m_area->setName(tr("count"));
    m_area->setColor(QColor(0x4a, 0x6f, 0xa5, 170));
    m_area->setBorderColor(QColor(0x2b, 0x44, 0x6e));
    chart->addSeries(m_area);
    m_x = new QValueAxis;
    m_y = new QValueAxis;
    m_x->setLabelsFont(monospaceFont());
    m_y->setLabelsFont(monospaceFont());
    m_x->setTitleText(tr("value"));
    m_y->setTitleText(tr("elements"));
    // Numbers line up in a fixed-width font; the axis titles are words and take the interface's.
    m_x->setTitleFont(font());
    m_y->setTitleFont(font());
    m_y->setLabelFormat(QStringLiteral("%d"));
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    m_area->attachAxis(m_x);
    m_area->attachAxis(m_y);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setToolTip(tr("Distribution of the selected tensor's finite values"));
    rebuild();
}

QSize HistogramWidget::sizeHint() const { return {380, 300}; }

void HistogramWidget::setValues(const QString &title, std::span<const float> values)
{
    m_title = title;
    m_values.assign(values.begin(), values.end());
    rebuild();
}

void HistogramWidget::clear()
{
    m_title.clear();
    m_values.clear();
    rebuild();
}

void HistogramWidget::setBinCount(int bins)
{
    m_bins = std::max(1, bins);
    rebuild();
}

void HistogramWidget::rebuild()
{
    m_histogram = computeHistogram(m_values, m_bins);
    QList<QPointF> upper, lower;
    const double width = m_histogram.binWidth();
    long highest = 0;
    if (!m_values.empty() && width > 0) {
        for (size_t i = 0; i < m_histogram.counts.size(); ++i) {
            const double x0 = m_histogram.low + width * static_cast<double>(i);
            const double count = static_cast<double>(m_histogram.counts[i]);
            upper << QPointF(x0, count) << QPointF(x0 + width, count);
            lower << QPointF(x0, 0) << QPointF(x0 + width, 0);
            highest = std::max(highest, m_histogram.counts[i]);
        }
    }
    m_upper->replace(upper);
    m_lower->replace(lower);
    double yStep = 1;
    if (upper.isEmpty()) {
        m_x->setRange(-1, 1);
        m_y->setRange(0, 1);
    } else {
        m_x->setRange(m_histogram.low, m_histogram.high);
        // The top of the axis is a tick, a little above the tallest bin.
        yStep = std::max(1.0, niceStep(static_cast<double>(highest) * 1.05, 4));
        m_y->setRange(0, std::ceil(static_cast<double>(highest) * 1.05 / yStep) * yStep);
    }
    // Ticks at multiples of a round step, about four of them, so labels fit a narrow chart.
    const double step = niceStep(m_x->max() - m_x->min(), 4);
    m_x->setTickType(QValueAxis::TicksDynamic);
    m_x->setTickAnchor(0.0);
    m_x->setTickInterval(step);
    m_x->setLabelFormat(QStringLiteral("%.3g"));
    m_y->setTickType(QValueAxis::TicksDynamic);
    m_y->setTickAnchor(0.0);
    m_y->setTickInterval(yStep);
    QString title = m_title.isEmpty() ? tr("Histogram") : tr("Histogram of %1").arg(m_title);
    if (m_histogram.nonFinite > 0)
        title += tr(" (%n non-finite left out)", nullptr, static_cast<int>(m_histogram.nonFinite));
    chart()->setTitle(title);
}

} // namespace beamscope::ui
