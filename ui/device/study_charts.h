#pragma once
// A device study's two charts: each app's speedup of the fine-tuned pick over
// the V100 pick, a bar with its 95% interval as whiskers and 1x marked; and
// each app's Spearman on its own samples, Halide's V100 file beside the
// fine-tuned one.

#include "core/study/study_report.h"

#include <QChartView>

class QBarSeries;
class QBoxPlotSeries;

namespace beamscope::ui {

class StudySpeedupChart : public QChartView {
    Q_OBJECT
public:
    explicit StudySpeedupChart(QWidget *parent = nullptr);
    void setReport(const study::StudyReport &report);
    QBarSeries *bars() const { return m_bars; }
    QBoxPlotSeries *intervals() const { return m_intervals; }

private:
    QBarSeries *m_bars = nullptr;
    QBoxPlotSeries *m_intervals = nullptr;
};

class StudyRankChart : public QChartView {
    Q_OBJECT
public:
    explicit StudyRankChart(QWidget *parent = nullptr);
    void setReport(const study::StudyReport &report);
    QBarSeries *bars() const { return m_bars; }

private:
    QBarSeries *m_bars = nullptr;
};

} // namespace beamscope::ui
