#pragma once
// A live per-epoch line chart (Qt Charts): one QLineSeries per quantity, x =
// epoch, y linear or logarithmic. Values that a log axis cannot show (zero,
// negative, NaN) are kept and reappear when the axis goes back to linear.

#include <QChartView>
#include <QString>
#include <QStringList>

#include <unordered_map>
#include <utility>
#include <vector>

class QLineSeries;
class QAbstractAxis;
class QValueAxis;

namespace beamscope::ui {

class EpochChart : public QChartView {
    Q_OBJECT
public:
    EpochChart(const QString &title, const QString &yTitle, const QStringList &seriesNames, QWidget *parent = nullptr);

    void clear();
    // values[k] belongs to series k.
    void addEpoch(int epoch, const std::vector<double> &values);
    // Many epochs at once, drawn once: what a live run hands over a few times a second.
    void addEpochs(const std::vector<std::pair<int, std::vector<double>>> &epochs);
    // A long run is drawn with at most this many points per series (evenly
    // spaced epochs, the last always among them); markers only on short runs.
    static constexpr size_t kMaxPlottedPoints = 800;
    static constexpr size_t kMaxMarkedPoints = 60;
    void setLogScale(bool logScale);
    bool logScale() const { return m_log; }
    // Fixes the y range (e.g. [-1, 1] for correlations) instead of fitting the data.
    void setFixedYRange(double low, double high);

    QLineSeries *series(int k) const { return m_series[static_cast<size_t>(k)]; }
    int seriesCount() const { return static_cast<int>(m_series.size()); }
    int epochCount() const { return static_cast<int>(m_epochs.size()); }

private:
    void rebuild();
    void fitAxes();
    void store(int epoch, const std::vector<double> &values);

    std::vector<QLineSeries *> m_series;
    std::vector<int> m_epochs;
    std::vector<std::vector<double>> m_values; // [epoch][series]
    std::unordered_map<int, size_t> m_indexOfEpoch;
    QValueAxis *m_x = nullptr;
    QAbstractAxis *m_y = nullptr;
    QString m_yTitle;
    bool m_log = false;
    bool m_fixedRange = false;
    double m_low = 0, m_high = 1;
};

} // namespace beamscope::ui
