#pragma once
// A chart view's chart replaced by an empty one with a title, its legend at the
// bottom and thin margins: how the explorer's charts that are redrawn from new
// data start over (the old chart and its series are deleted with it).

#include <QString>

class QChart;
class QChartView;

namespace beamscope::ui {

QChart *freshChart(QChartView *view, const QString &title);

} // namespace beamscope::ui
