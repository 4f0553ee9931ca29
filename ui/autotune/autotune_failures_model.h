#pragma once
// The failed schedules of an autotune run, one row each: pipeline, batch,
// schedule id, status and what happened (the whole message as a tool tip).

#include "ui/autotune/autotune_run_data.h"

#include <QAbstractTableModel>

namespace beamscope::ui {

class AutotuneFailuresModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Pipeline, Batch, Schedule, Status, Message, ColumnCount };
    using QAbstractTableModel::QAbstractTableModel;

    void setData(const AutotuneRunData &data);
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<samples::ScheduleRecord> m_rows;
};

} // namespace beamscope::ui
