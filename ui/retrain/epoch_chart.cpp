#include "ui/retrain/epoch_chart.h"

#include <QChart>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace beamscope::ui {

namespace {
const QColor kColors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xd6, 0x27, 0x28), QColor(0x2c, 0xa0, 0x2c),
                          QColor(0x94, 0x67, 0xbd)};
}

EpochChart::EpochChart(const QString &title, const QString &yTitle, const QStringList &seriesNames, QWidget *parent)
    : QChartView(parent), m_yTitle(yTitle)
{
    auto *chart = new QChart;
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    for (int k = 0; k < seriesNames.size(); ++k) {
        auto *series = new QLineSeries(chart);
        series->setName(seriesNames[k]);
        QPen pen(kColors[k % 4]);
        pen.setWidthF(2.0);
        series->setPen(pen);
        series->setPointsVisible(true); // until a run grows past kMaxMarkedPoints
        chart->addSeries(series);
        m_series.push_back(series);
    }
    m_x = new QValueAxis(chart);
    m_x->setTitleText(tr("Epoch"));
    m_x->setLabelFormat(QStringLiteral("%d"));
    chart->addAxis(m_x, Qt::AlignBottom);
    for (auto *series : m_series)
        series->attachAxis(m_x);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(200);
    setLogScale(false);
}

void EpochChart::clear()
{
    m_epochs.clear();
    m_values.clear();
    m_indexOfEpoch.clear();
    rebuild();
}

void EpochChart::store(int epoch, const std::vector<double> &values)
{
    if (const auto at = m_indexOfEpoch.find(epoch); at != m_indexOfEpoch.end()) {
        m_values[at->second] = values; // a resumed run repeats its history
        return;
    }
    m_indexOfEpoch.emplace(epoch, m_epochs.size());
    m_epochs.push_back(epoch);
    m_values.push_back(values);
}

void EpochChart::addEpoch(int epoch, const std::vector<double> &values)
{
    store(epoch, values);
    rebuild();
}

void EpochChart::addEpochs(const std::vector<std::pair<int, std::vector<double>>> &epochs)
{
    if (epochs.empty())
        return;
    for (const auto &[epoch, values] : epochs)
        store(epoch, values);
    rebuild();
}

void EpochChart::setFixedYRange(double low, double high)
{
    m_fixedRange = true;
    m_low = low;
    m_high = high;
    fitAxes();
}

void EpochChart::setLogScale(bool logScale)
{
    m_log = logScale;
    if (m_y) {
        for (auto *series : m_series)
            series->detachAxis(m_y);
        chart()->removeAxis(m_y);
        delete m_y;
    }
    if (logScale) {
        auto *axis = new QLogValueAxis(chart());
        axis->setBase(10);
        axis->setLabelFormat(QStringLiteral("%g")); // 1000, not 1e+03 beside 100
        axis->setMinorTickCount(-1);
        m_y = axis;
    } else {
        auto *axis = new QValueAxis(chart());
        axis->setLabelFormat(QStringLiteral("%.3g"));
        m_y = axis;
    }
    m_y->setTitleText(m_yTitle + (logScale ? tr(" (log)") : QString()));
    chart()->addAxis(m_y, Qt::AlignLeft);
    for (auto *series : m_series)
        series->attachAxis(m_y);
    rebuild();
}

void EpochChart::rebuild()
{
    // Thousands of epochs are no more readable than 800 points, and cost far more to draw.
    const size_t n = m_epochs.size();
    const size_t stride = n > kMaxPlottedPoints ? (n + kMaxPlottedPoints - 1) / kMaxPlottedPoints : 1;
    for (size_t k = 0; k < m_series.size(); ++k) {
        QList<QPointF> points;
        points.reserve(static_cast<qsizetype>(n / stride + 1));
        for (size_t e = 0; e < n; ++e) {
            if (e % stride != 0 && e + 1 != n)
                continue;
            const double v = k < m_values[e].size() ? m_values[e][k] : std::numeric_limits<double>::quiet_NaN();
            if (std::isfinite(v) && (!m_log || v > 0))
                points.append(QPointF(m_epochs[e], v));
        }
        m_series[k]->setPointsVisible(points.size() <= static_cast<qsizetype>(kMaxMarkedPoints));
        m_series[k]->replace(points);
    }
    fitAxes();
}

void EpochChart::fitAxes()
{
    int maxEpoch = 1;
    for (int e : m_epochs)
        maxEpoch = std::max(maxEpoch, e);
    m_x->setRange(0, maxEpoch);
    m_x->setTickCount(std::min(maxEpoch, 10) + 1);
    if (maxEpoch > 10)
        m_x->applyNiceNumbers();
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (auto *series : m_series)
        for (const QPointF &p : series->points()) {
            low = std::min(low, p.y());
            high = std::max(high, p.y());
        }
    if (m_fixedRange && !m_log) {
        low = std::min(m_low, low);
        high = std::max(m_high, high);
    } else if (!std::isfinite(low)) {
        low = m_log ? 0.1 : 0;
        high = 1;
    }
    if (m_log) {
        // Whole decades keep the labels readable.
        const double bottom = std::pow(10.0, std::floor(std::log10(low)));
        const double top = std::pow(10.0, std::ceil(std::log10(high)));
        // A hair of slack keeps the labels of the end decades (rounding drops them otherwise).
        m_y->setRange(bottom * 0.999, (top > bottom ? top : bottom * 10) * 1.001);
    } else {
        const double pad = high > low ? 0.05 * (high - low) : std::max(1e-6, std::abs(high) * 0.1);
        m_y->setRange(m_fixedRange ? low : low - pad, m_fixedRange ? high : high + pad);
        if (m_fixedRange && low == m_low && high == m_high)
            static_cast<QValueAxis *>(m_y)->setTickCount(5); // e.g. -1, -0.5, 0, 0.5, 1
    }
}

} // namespace beamscope::ui
