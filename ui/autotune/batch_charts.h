#pragma once
// The Autotune workspace's view of each batch, as Halide's loop learns: the
// chosen batch's predicted cost against measured runtime (one colour per
// pipeline, log axes), its schedules ordered by weights that never saw them;
// and the learning curve: each pipeline's pick (sample 0, the beam search)
// per batch over its batch-0 pick, with the out-of-sample Spearman per batch
// on a second axis. Both read AutotuneRunData::loopBatches.

#include "ui/autotune/autotune_run_data.h"

#include <QChartView>
#include <QWidget>

class QComboBox;
class QLineSeries;
class QScatterSeries;

namespace beamscope::ui {

class BatchScatterChart : public QChartView {
    Q_OBJECT
public:
    explicit BatchScatterChart(QWidget *parent = nullptr);
    void setData(const AutotuneRunData &data, int batch, const QString &timeLabel);
    const QList<QScatterSeries *> &series() const { return m_series; }

private:
    QList<QScatterSeries *> m_series;
};

class LearningCurveChart : public QChartView {
    Q_OBJECT
public:
    explicit LearningCurveChart(QWidget *parent = nullptr);
    void setData(const AutotuneRunData &data);
    const QList<QLineSeries *> &pickLines() const { return m_picks; }
    QLineSeries *spearmanLine() const { return m_spearman; }

private:
    QList<QLineSeries *> m_picks;
    QLineSeries *m_spearman = nullptr;
};

// The two side by side, with the batch to show chosen above the scatter (the latest by default).
class BatchLearningPanel : public QWidget {
    Q_OBJECT
public:
    explicit BatchLearningPanel(QWidget *parent = nullptr);
    void setData(const AutotuneRunData &data, const QString &timeLabel);
    void setBatch(int batch);
    QComboBox *batchBox() const { return m_batch; }
    BatchScatterChart *scatter() const { return m_scatter; }
    LearningCurveChart *curve() const { return m_curve; }

private:
    void redrawScatter();

    const AutotuneRunData *m_data = nullptr;
    QString m_timeLabel;
    QComboBox *m_batch = nullptr;
    BatchScatterChart *m_scatter = nullptr;
    LearningCurveChart *m_curve = nullptr;
};

} // namespace beamscope::ui
