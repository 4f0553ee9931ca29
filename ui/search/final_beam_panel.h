#pragma once
// Below the tree: the final beam (FinalBeamModel) as a table with a title that
// counts it, and, once its states are measured, predicted cost against measured
// time with the rank correlations, their n and 95% intervals (is the model's
// order the device's?). A click or Enter on a row selects that state in the tree.

#include <QWidget>

#include <cstdint>

class QChartView;
class QLabel;
class QPushButton;
class QScatterSeries;
class QTabWidget;
class QTableView;

namespace beamscope::ui {

class FinalBeamModel;
class SearchTreeData;

class FinalBeamPanel : public QWidget {
    Q_OBJECT
public:
    explicit FinalBeamPanel(QWidget *parent = nullptr);

    void refresh(const SearchTreeData *data);
    // Highlights the state's row when it is in the beam (no signal).
    void showSelected(int64_t id);
    // While the beam is being measured the button cancels.
    void setMeasuring(bool measuring);

    FinalBeamModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QPushButton *measureButton() const { return m_measure; }
    QTabWidget *tabs() const { return m_tabs; }
    QScatterSeries *scatter() const { return m_points; }
    // "Spearman 0.71 [0.20, 0.95] · Kendall τ 0.55 [...] · n = 8", or why there is none yet.
    QString rankText() const;

Q_SIGNALS:
    void stateActivated(qint64 id);
    void measureRequested(const QList<qint64> &ids);
    void cancelRequested();

private:
    void refreshScatter(const SearchTreeData *data);

    FinalBeamModel *m_model = nullptr;
    QTableView *m_table = nullptr;
    QLabel *m_title = nullptr;
    QPushButton *m_measure = nullptr;
    QTabWidget *m_tabs = nullptr;
    QChartView *m_chart = nullptr;
    QScatterSeries *m_points = nullptr;
    QLabel *m_ranks = nullptr;
    bool m_measuring = false;
};

} // namespace beamscope::ui
