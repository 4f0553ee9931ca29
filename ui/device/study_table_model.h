#pragma once
// A device study's per-app table (core/study/study_report.h): both picks'
// runtimes with their 95% intervals, the speedup, the loop's best, and the
// rank figures of Halide's V100 file and of the fine-tuned one on the app's
// own samples, which neither was trained on. ValueRole holds the bare figure
// (NaN when undefined) for sorting, tests and export.

#include "core/study/study_report.h"

#include <QAbstractTableModel>

namespace beamscope::ui {

class StudyTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        App,
        V100Ms,
        TunedMs,
        Speedup,
        LoopBestMs,
        Schedules,
        V100Spearman,
        TunedSpearman,
        V100Kendall,
        TunedKendall,
        Top1,
        Top5,
        Note,
        ColumnCount
    };
    enum Role { ValueRole = Qt::UserRole + 1 };
    using QAbstractTableModel::QAbstractTableModel;

    void setReport(study::StudyReport report);
    const study::StudyReport &report() const { return m_report; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    study::StudyReport m_report;
};

} // namespace beamscope::ui
