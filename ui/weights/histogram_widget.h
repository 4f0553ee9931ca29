#pragma once
// Distribution of a tensor's values as a Qt Charts area under a step line.

#include "ui/weights/histogram.h"

#include <QChartView>
#include <QString>

#include <span>

class QAreaSeries;
class QLineSeries;
class QValueAxis;

namespace beamscope::ui {

class HistogramWidget : public QChartView {
    Q_OBJECT
public:
    explicit HistogramWidget(QWidget *parent = nullptr);

    void setValues(const QString &title, std::span<const float> values);
    void clear();
    void setBinCount(int bins); // recomputes from the last values
    int binCount() const { return m_bins; }
    const Histogram &histogram() const { return m_histogram; }

    QSize sizeHint() const override;

private:
    void rebuild();

    int m_bins = 40;
    QString m_title;
    std::vector<float> m_values;
    Histogram m_histogram;
    QLineSeries *m_upper = nullptr;
    QLineSeries *m_lower = nullptr;
    QAreaSeries *m_area = nullptr;
    QValueAxis *m_x = nullptr;
    QValueAxis *m_y = nullptr;
};

} // namespace beamscope::ui
