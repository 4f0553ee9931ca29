#pragma once
// compare-weights as a table (core/samples/weights_comparison.h): one row per
// app and weights choice, then one "overall" row per choice; columns as the
// CLI prints them. Undefined figures (NaN) show as "–".

#include "core/samples/weights_comparison.h"

#include <QAbstractTableModel>

namespace beamscope::ui {

class WeightsComparisonModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { App, Weights, Schedules, Spearman, Kendall, Pairwise, Top1, Top5, ColumnCount };
    using QAbstractTableModel::QAbstractTableModel;

    void setScores(std::vector<samples::ChoiceScore> scores);
    const std::vector<samples::ChoiceScore> &scores() const { return m_scores; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // The choice as the user named it, "(untrained)" added for an untrained initialisation.
    static QString labelOf(const samples::ChoiceScore &choice);

private:
    struct Row {
        size_t choice = 0;
        int app = -1; // -1: the overall row
    };
    std::vector<samples::ChoiceScore> m_scores;
    std::vector<Row> m_rows;
};

} // namespace beamscope::ui
