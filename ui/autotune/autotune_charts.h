#pragma once
// The Autotune workspace's two charts: the distribution of measured runtimes
// per pipeline relative to its best (a box plot on a log axis: min, quartiles,
// median, max), and each pipeline's best runtime so far after every batch (log) (one line per pipeline, in the same
// colours as the Predictions scatter).

#include "ui/autotune/autotune_run_data.h"

#include <QChartView>

class QBoxPlotSeries;
class QLineSeries;

namespace beamscope::ui {

class RuntimeDistributionChart : public QChartView {
    Q_OBJECT
public:
    explicit RuntimeDistributionChart(QWidget *parent = nullptr);
    void setData(const AutotuneRunData &data, const QString &timeLabel);
    QBoxPlotSeries *series() const { return m_series; }

private:
    QBoxPlotSeries *m_series = nullptr;
};

class BestSoFarChart : public QChartView {
    Q_OBJECT
public:
    explicit BestSoFarChart(QWidget *parent = nullptr);
    void setData(const AutotuneRunData &data, const QString &timeLabel);
    const QList<QLineSeries *> &lines() const { return m_lines; }

private:
    QList<QLineSeries *> m_lines;
};

} // namespace beamscope::ui
