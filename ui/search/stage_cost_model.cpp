#include "ui/search/stage_cost_model.h"

#include "ui/common/number_format.h"

#include <QBrush>
#include <QColor>

#include <algorithm>
#include <cmath>

namespace beamscope::ui {

StageCostModel::StageCostModel(QObject *parent) : QAbstractTableModel(parent) {}

void StageCostModel::setCosts(const QStringList &stages, const std::vector<float> &a,
                              std::optional<std::vector<float>> b)
{
    beginResetModel();
    m_stages = stages;
    m_a = a;
    m_b = std::move(b);
    endResetModel();
}

int StageCostModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    size_t n = m_a.size();
    if (m_b)
        n = std::max(n, m_b->size());
    return static_cast<int>(n);
}

int StageCostModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : (m_b ? 4 : 2); }

QVariant StageCostModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const auto r = static_cast<size_t>(index.row());
    const auto cost = [](const std::vector<float> &v, size_t i) -> QVariant {
        return i < v.size() ? QVariant(double(v[i])) : QVariant();
    };
    QVariant v;
    switch (index.column()) {
    case Stage:
        v = r < static_cast<size_t>(m_stages.size()) ? m_stages[static_cast<qsizetype>(r)] : QString::number(r);
        break;
    case CostA: v = cost(m_a, r); break;
    case CostB: v = cost(*m_b, r); break;
    case Delta: {
        const QVariant a = cost(m_a, r), b = cost(*m_b, r);
        if (a.isValid() && b.isValid())
            v = b.toDouble() - a.toDouble();
        break;
    }
    default: break;
    }
    if (role == Qt::EditRole || role == Qt::UserRole)
        return v;
    if (role == Qt::DisplayRole) {
        if (index.column() == Stage || !v.isValid())
            return v;
        // A stage that costs nothing comes out of the model as float noise (-9.8e-12); it reads as 0.
        const double x = std::abs(v.toDouble()) < 1e-9 ? 0.0 : v.toDouble();
        return QVariant(formatNumber(x, 5));
    }
    if (role == Qt::TextAlignmentRole && index.column() != Stage)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && index.column() == Delta && v.isValid() && v.toDouble() != 0)
        return QBrush(v.toDouble() > 0 ? QColor(180, 40, 30) : QColor(20, 120, 60));
    return {};
}

QVariant StageCostModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole || orientation != Qt::Horizontal)
        return {};
    switch (section) {
    case Stage: return tr("Stage");
    case CostA: return m_b ? tr("A cost") : tr("Predicted cost");
    case CostB: return tr("B cost");
    case Delta: return tr("B − A");
    default: return {};
    }
}

} // namespace beamscope::ui
