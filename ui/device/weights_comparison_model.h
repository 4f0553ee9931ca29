#pragma once
// compare-weights as a table (core/samples/weights_comparison.h): one row per
// app and weights choice, then one "mean" row per choice; columns as the
// CLI prints them, each of Spearman, Kendall and top-k with its 95% bootstrap
// interval beside it ("0.566 [0.21, 0.83]"; ValueRole holds the figure), and a last
// column of caveats (in-sample, too few schedules, not told apart from another
// choice, or why a choice has no figures). Figures from fewer than
// kFewSchedules schedules are greyed. Undefined figures (NaN) show as "–".

#include "core/samples/weights_comparison.h"

#include <QAbstractTableModel>

namespace beamscope::ui {

class WeightsComparisonModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { App, Weights, Schedules, Spearman, Kendall, Pairwise, Top1, Top5, Caveats, ColumnCount };
    enum Role { ValueRole = Qt::UserRole + 1 }; // the figure alone (NaN when undefined)
    using QAbstractTableModel::QAbstractTableModel;

    void setScores(std::vector<samples::ChoiceScore> scores);
    const std::vector<samples::ChoiceScore> &scores() const { return m_scores; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // The choice as the user named it, "(untrained)" added for an untrained initialisation.
    static QString labelOf(const samples::ChoiceScore &choice);
    // "0.566 [0.21, 0.83]", "0.566" without an interval, "–" when undefined.
    static QString figureWithInterval(double value, const samples::Interval &interval);

private:
    struct Row {
        size_t choice = 0;
        int app = -1; // -1: the overall row
    };
    QString caveatsOf(const Row &row) const;

    std::vector<samples::ChoiceScore> m_scores;
    std::vector<QString> m_labels; // labelOf each choice, made once: it reads the weights file
    std::vector<Row> m_rows;
};

} // namespace beamscope::ui
