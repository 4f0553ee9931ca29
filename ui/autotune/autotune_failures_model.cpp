#include "ui/autotune/autotune_failures_model.h"

namespace beamscope::ui {

void AutotuneFailuresModel::setData(const AutotuneRunData &data)
{
    beginResetModel();
    m_rows.clear();
    for (const samples::ScheduleRecord *r : data.failures())
        m_rows.push_back(*r);
    endResetModel();
}

int AutotuneFailuresModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int AutotuneFailuresModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant AutotuneFailuresModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const samples::ScheduleRecord &r = m_rows[static_cast<size_t>(index.row())];
    if (role == Qt::ToolTipRole)
        return QString::fromStdString(r.message);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Pipeline: return QString::fromStdString(r.pipeline);
    case Batch: return r.batch;
    case Schedule: return r.scheduleId;
    case Status: return QString::fromUtf8(samples::statusName(r.status)).replace(QLatin1Char('_'), QLatin1Char(' '));
    case Message: return QString::fromStdString(r.message).left(200);
    default: return {};
    }
}

QVariant AutotuneFailuresModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Pipeline: return tr("Pipeline");
    case Batch: return tr("Batch");
    case Schedule: return tr("Schedule");
    case Status: return tr("Status");
    case Message: return tr("What happened");
    default: return {};
    }
}

} // namespace beamscope::ui
