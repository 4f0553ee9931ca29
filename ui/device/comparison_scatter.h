#pragma once
// Predicted cost against measured runtime for one weights choice, log-log,
// one series per app (each app with the file that judged it), in the
// Predictions workspace's colours so side-by-side charts read together.

#include "core/samples/weights_comparison.h"

#include <QChartView>

class QScatterSeries;

namespace beamscope::ui {

class ComparisonScatter : public QChartView {
    Q_OBJECT
public:
    explicit ComparisonScatter(QWidget *parent = nullptr);
    // timeLabel says what the runtimes are (e.g. OpenCL-device milliseconds).
    void setScore(const samples::ChoiceScore &score, const QString &timeLabel);
    const QList<QScatterSeries *> &appSeries() const { return m_series; }

private:
    QList<QScatterSeries *> m_series;
};

} // namespace beamscope::ui
