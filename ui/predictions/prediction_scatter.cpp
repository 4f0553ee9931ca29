#include "ui/predictions/prediction_scatter.h"

#include <QChart>
#include <QCursor>
#include <QFileInfo>
#include <QLegendMarker>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

namespace beamscope::ui {

namespace {
// Whole decades around [low, high], at least one decade wide.
void setDecades(QLogValueAxis *axis, double low, double high)
{
    if (!(low > 0) || !std::isfinite(low) || !std::isfinite(high)) {
        axis->setRange(0.1, 10);
        return;
    }
    double a = std::pow(10.0, std::floor(std::log10(low)));
    double b = std::pow(10.0, std::ceil(std::log10(high)));
    if (b <= a)
        b = a * 10;
    // A hair of slack keeps the labels of the end decades (rounding drops them otherwise).
    axis->setRange(a * 0.999, b * 1.001);
}

QString figure(double v) { return std::isnan(v) ? QStringLiteral("–") : QString::number(v, 'f', 3); }
} // namespace

QColor PredictionScatter::pipelineColor(int index)
{
    // Tableau 10: distinguishable, and readable on white.
    static const QColor colors[] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0xe1, 0x57, 0x59),
                                    QColor(0x76, 0xb7, 0xb2), QColor(0x59, 0xa1, 0x4f), QColor(0xed, 0xc9, 0x48),
                                    QColor(0xb0, 0x7a, 0xa1), QColor(0xff, 0x9d, 0xa7), QColor(0x9c, 0x75, 0x5f),
                                    QColor(0xba, 0xb0, 0xac)};
    return colors[index % 10];
}

PredictionScatter::PredictionScatter(QWidget *parent) : QChartView(parent)
{
    auto *chart = new QChart;
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    m_x = new QLogValueAxis(chart);
    m_x->setTitleText(tr("Measured runtime (ms, log)"));
    m_x->setLabelFormat(QStringLiteral("%.3g"));
    m_x->setMinorTickCount(-1);
    m_y = new QLogValueAxis(chart);
    m_y->setTitleText(tr("Predicted cost (log)"));
    m_y->setLabelFormat(QStringLiteral("%.3g"));
    m_y->setMinorTickCount(-1);
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(320, 260);
    clear(tr("No predictions yet"));
}

void PredictionScatter::clear(const QString &message)
{
    for (auto *series : m_series) {
        chart()->removeSeries(series);
        delete series;
    }
    m_series.clear();
    m_hidden = 0;
    chart()->setTitle(message);
    setDecades(m_x, 0.1, 10);
    setDecades(m_y, 0.1, 10);
}

void PredictionScatter::setResult(const PredictionResult &result, int weightsIndex)
{
    if (weightsIndex < 0 || weightsIndex >= static_cast<int>(result.weights.size())) {
        clear();
        return;
    }
    const auto &w = result.weights[static_cast<size_t>(weightsIndex)];
    if (!w.error.isEmpty() || w.pipelines.size() != result.pipelines.size()) {
        clear(w.error.isEmpty() ? tr("%1: no predictions").arg(w.name) : w.error);
        return;
    }
    clear();
    double xLow = std::numeric_limits<double>::infinity(), xHigh = 0, yLow = xLow, yHigh = 0;
    for (size_t p = 0; p < result.pipelines.size(); ++p) {
        const auto &measured = result.pipelines[p];
        const auto &predicted = w.pipelines[p];
        auto *series = new QScatterSeries(chart());
        series->setName(measured.app.isEmpty() ? tr("pipeline %1").arg(measured.pipelineId)
                                               : tr("%1 (%2)").arg(measured.app).arg(measured.pipelineId));
        series->setColor(pipelineColor(static_cast<int>(p)));
        series->setBorderColor(pipelineColor(static_cast<int>(p)).darker(130));
        series->setMarkerSize(9);
        QList<QPointF> points;
        for (size_t i = 0; i < measured.runtimesMs.size(); ++i) {
            const double x = measured.runtimesMs[i], y = predicted.predictions[i];
            if (!(x > 0) || !(y > 0) || !std::isfinite(x) || !std::isfinite(y)) {
                ++m_hidden;
                continue;
            }
            points.append(QPointF(x, y));
            xLow = std::min(xLow, x);
            xHigh = std::max(xHigh, x);
            yLow = std::min(yLow, y);
            yHigh = std::max(yHigh, y);
        }
        series->replace(points);
        // Hovering a point names its schedule: file, runtime and prediction.
        connect(series, &QScatterSeries::hovered, this,
                [this, name = series->name(), files = measured.files, runtimes = measured.runtimesMs,
                 predictions = predicted.predictions](const QPointF &point, bool entered) {
                    if (!entered) {
                        QToolTip::hideText();
                        return;
                    }
                    for (size_t i = 0; i < runtimes.size(); ++i)
                        if (qFuzzyCompare(double(runtimes[i]), point.x()) &&
                            qFuzzyCompare(double(predictions[i]), point.y())) {
                            QToolTip::showText(
                                QCursor::pos(),
                                tr("%1\n%2\nmeasured %3 ms, predicted %4")
                                    .arg(name, QFileInfo(files.value(static_cast<qsizetype>(i))).fileName())
                                    .arg(double(runtimes[i]), 0, 'g', 4)
                                    .arg(double(predictions[i]), 0, 'g', 4),
                                this);
                            return;
                        }
                });
        chart()->addSeries(series);
        series->attachAxis(m_x);
        series->attachAxis(m_y);
        m_series.append(series);
    }
    setDecades(m_x, xLow, xHigh);
    setDecades(m_y, yLow, yHigh);
    QString title =
        tr("<p align=\"center\">predicted by <b>%1</b><br>mean over pipelines: Spearman %2, Kendall τ %3, pairwise "
           "%4")
            .arg(w.name, figure(w.summary.spearman), figure(w.summary.kendall), figure(w.summary.pairwiseAccuracy));
    // The caveats stand beside the headline, not only in the table (E2).
    if (const QStringList caveats = meanCaveats(w, result.pipelines); !caveats.isEmpty())
        title += QStringLiteral("<br><span style=\"color:#965a00\">%1</span>")
                     .arg(caveats.join(QStringLiteral("; ")).toHtmlEscaped());
    if (m_hidden > 0)
        title += tr("<br>%n point(s) with a non-positive value are not drawn (log axes)", nullptr, m_hidden);
    chart()->setTitle(title + QStringLiteral("</p>"));
    chart()->legend()->setVisible(true);
}

} // namespace beamscope::ui
