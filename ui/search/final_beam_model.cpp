#include "ui/search/final_beam_model.h"

#include "ui/search/search_tree_data.h"
#include "ui/search/tree_navigation.h"

#include <QColor>

#include <algorithm>

namespace beamscope::ui {

FinalBeamModel::FinalBeamModel(QObject *parent) : QAbstractTableModel(parent) {}

void FinalBeamModel::refresh(const SearchTreeData *data)
{
    beginResetModel();
    m_data = data;
    m_ids = data ? navigation::finalBeam(*data) : std::vector<int64_t>{};
    endResetModel();
}

int64_t FinalBeamModel::stateAt(int row) const
{
    return row >= 0 && row < static_cast<int>(m_ids.size()) ? m_ids[static_cast<size_t>(row)] : -1;
}

int FinalBeamModel::rowOfState(int64_t id) const
{
    const auto it = std::find(m_ids.begin(), m_ids.end(), id);
    return it == m_ids.end() ? -1 : static_cast<int>(it - m_ids.begin());
}

int FinalBeamModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_ids.size());
}

int FinalBeamModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant FinalBeamModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_data)
        return {};
    const int64_t id = stateAt(index.row());
    if (id < 0)
        return {};
    if (role == StateIdRole)
        return QVariant::fromValue<qint64>(id);
    if (role == Qt::TextAlignmentRole)
        return index.column() == Rank ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    const double cost = navigation::effectiveCost(*m_data, id);
    const double first = navigation::effectiveCost(*m_data, m_ids.front());
    if (role == Qt::ToolTipRole)
        return index.column() == Measured && !m_data->measurementFailure(id).isEmpty() ? m_data->measurementFailure(id)
                                                                                       : m_data->describe(id);
    if (role == Qt::ForegroundRole && index.column() == Measured && !m_data->measurementFailure(id).isEmpty())
        return QColor(176, 0, 32);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Rank:
        return id == m_data->winner() ? tr("%1 (winner)").arg(index.row() + 1) : QString::number(index.row() + 1);
    case State: return QStringLiteral("#%1").arg(id);
    // One unit and one precision for costs across the explorer: the model's units, 6 significant digits.
    case Cost: return QString::number(cost, 'g', 6);
    case VersusFirst:
        if (index.row() == 0 || first <= 0)
            return QString();
        // Three significant digits: near ties (+0.00106%) stay told apart.
        return QStringLiteral("%1%2%")
            .arg(cost >= first ? "+" : "")
            .arg(QString::number((cost / first - 1) * 100, 'g', 3));
    case Measured:
        if (m_data->isMeasured(id))
            return tr("%1 ms").arg(m_data->measuredMs(id), 0, 'f', 3);
        return m_data->measurementFailure(id).isEmpty() ? QString()
                                                        : tr("not measured: %1").arg(m_data->measurementFailure(id));
    default: return {};
    }
}

QVariant FinalBeamModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole && section == VersusFirst)
        return tr("Predicted cost relative to the first row's (the winner's once the search has finished)");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Rank: return tr("Rank");
    case State: return tr("State");
    case Cost: return tr("Predicted cost");
    case VersusFirst: return tr("vs first");
    case Measured: return tr("Measured");
    default: return {};
    }
}

} // namespace beamscope::ui
