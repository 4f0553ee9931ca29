#pragma once
// Predicted cost against measured runtime for one weights file, log-log, one
// QScatterSeries per pipeline (the same colour for a pipeline in every
// chart, so two files side by side read together). Points a log axis cannot
// show (non-positive values) are counted in the subtitle, not dropped silently.

#include "ui/predictions/prediction_job.h"

#include <QChartView>

class QScatterSeries;
class QLogValueAxis;

namespace beamscope::ui {

class PredictionScatter : public QChartView {
    Q_OBJECT
public:
    explicit PredictionScatter(QWidget *parent = nullptr);

    // Shows weights k of the result (clears the chart when it is unusable).
    void setResult(const PredictionResult &result, int weightsIndex);
    void clear(const QString &message = {});

    const QList<QScatterSeries *> &pipelineSeries() const { return m_series; }
    int hiddenPoints() const { return m_hidden; }
    QLogValueAxis *xAxis() const { return m_x; }
    QLogValueAxis *yAxis() const { return m_y; }

    static QColor pipelineColor(int index);

private:
    QList<QScatterSeries *> m_series;
    QLogValueAxis *m_x = nullptr;
    QLogValueAxis *m_y = nullptr;
    int m_hidden = 0;
};

} // namespace beamscope::ui
