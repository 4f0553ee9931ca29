#include "ui/pipeline/stage_table_model.h"

#include <QBrush>
#include <QColor>

namespace beamscope::ui {

StageTableModel::StageTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void StageTableModel::setSummary(const pipelines::PipelineSummary &summary)
{
    beginResetModel();
    m_stages = summary.stages;
    endResetModel();
}

void StageTableModel::clear()
{
    beginResetModel();
    m_stages.clear();
    endResetModel();
}

int StageTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_stages.size());
}

int StageTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant StageTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const auto &s = m_stages[static_cast<size_t>(index.row())];
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case StageColumn:
            return QString::fromStdString(s.name) + (s.isInput    ? tr(" (input)")
                                                     : s.isOutput ? tr(" (output)")
                                                                  : QString());
        case CostModelColumn: return s.costModelIndex >= 0 ? QVariant(s.costModelIndex) : QVariant();
        case DepthColumn: return s.depth;
        default: return {};
        }
    }
    if (role == Qt::ForegroundRole && s.isInput)
        return QBrush(QColor(120, 120, 120));
    if (role == Qt::ToolTipRole)
        return QString::fromStdString(s.definitionText);
    if (role == Qt::TextAlignmentRole && index.column() != StageColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant StageTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case StageColumn: return tr("Stage");
    case CostModelColumn: return tr("#");
    case DepthColumn: return tr("Depth");
    default: return {};
    }
}

} // namespace beamscope::ui
