#include "ui/common/fresh_chart.h"

#include <QChart>
#include <QChartView>

namespace beamscope::ui {

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

} // namespace beamscope::ui
