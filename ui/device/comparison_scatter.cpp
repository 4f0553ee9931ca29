#include "ui/device/comparison_scatter.h"

#include "ui/predictions/prediction_scatter.h"

#include <QChart>
#include <QLogValueAxis>
#include <QScatterSeries>

#include <algorithm>
#include <cmath>

namespace beamscope::ui {

ComparisonScatter::ComparisonScatter(QWidget *parent) : QChartView(parent)
{
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(260, 220);
    setChart(new QChart);
}

void ComparisonScatter::setScore(const samples::ChoiceScore &score, const QString &timeLabel)
{
    auto *chart = new QChart;
    chart->setTitle(QString::fromStdString(score.label));
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(2, 2, 2, 2));
    auto *x = new QLogValueAxis;
    x->setTitleText(timeLabel);
    x->setLabelFormat(QStringLiteral("%.3g"));
    auto *y = new QLogValueAxis;
    y->setTitleText(tr("predicted")); // a short chart elides a longer title to "predicted c…"
    y->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    m_series.clear();
    double xLow = INFINITY, xHigh = 0, yLow = INFINITY, yHigh = 0;
    for (size_t i = 0; i < score.apps.size(); i++) {
        const samples::AppScore &a = score.apps[i];
        if (!a.error.empty())
            continue;
        auto *series = new QScatterSeries;
        series->setName(QString::fromStdString(a.app));
        series->setColor(PredictionScatter::pipelineColor(static_cast<int>(i)));
        series->setBorderColor(PredictionScatter::pipelineColor(static_cast<int>(i)).darker(130));
        series->setMarkerSize(8);
        for (size_t k = 0; k < a.predicted.size(); k++) {
            const double mx = a.measuredMs[k], py = a.predicted[k];
            if (!(mx > 0) || !(py > 0))
                continue; // a log axis cannot show them
            series->append(mx, py);
            xLow = std::min(xLow, mx);
            xHigh = std::max(xHigh, mx);
            yLow = std::min(yLow, py);
            yHigh = std::max(yHigh, py);
        }
        chart->addSeries(series);
        series->attachAxis(x);
        series->attachAxis(y);
        m_series << series;
    }
    if (xHigh > 0) {
        x->setRange(xLow / 1.5, xHigh * 1.5);
        y->setRange(yLow / 1.5, yHigh * 1.5);
    }
    QChart *old = this->chart();
    setChart(chart);
    delete old;
}

} // namespace beamscope::ui
