#include "ui/search/stage_cost_model.h"

#include "ui/common/number_format.h"

#include <QBrush>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace beamscope::ui {

StageCostModel::StageCostModel(QObject *parent) : QAbstractTableModel(parent) {}

void StageCostModel::setCosts(const QStringList &stages, const std::vector<float> &a,
                              std::optional<std::vector<float>> b)
{
    beginResetModel();
    m_stages = stages;
    m_a = a;
    m_b = std::move(b);
    m_segmentNames.clear();
    m_segmentColors.clear();
    m_segA.clear();
    m_segB.clear();
    m_scale = 0;
    sortRows();
    endResetModel();
}

void StageCostModel::setTermSegments(const QStringList &names, const QList<QColor> &colors,
                                     std::vector<std::vector<double>> a, std::vector<std::vector<double>> b)
{
    m_segmentNames = names;
    m_segmentColors = colors;
    m_segA = std::move(a);
    m_segB = std::move(b);
    m_scale = 0;
    for (const auto *side : {&m_segA, &m_segB})
        for (const std::vector<double> &stage : *side) {
            double positive = 0;
            for (double v : stage)
                positive += std::max(0.0, v);
            m_scale = std::max(m_scale, positive);
        }
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, MainTerm), index(rowCount() - 1, Terms));
}

const std::vector<double> &StageCostModel::segments(int row, int state) const
{
    static const std::vector<double> none;
    const auto &side = state == 0 ? m_segA : m_segB;
    const int stage = stageOfRow(row);
    return stage >= 0 && static_cast<size_t>(stage) < side.size() ? side[static_cast<size_t>(stage)] : none;
}

void StageCostModel::sortRows()
{
    const int n = rowCount();
    m_order.resize(static_cast<size_t>(n));
    std::iota(m_order.begin(), m_order.end(), 0);
    if (!m_b)
        return;
    // Largest |B − A| first; a stage only one of them has (no difference to rank) last.
    const auto key = [this](int stage) {
        const QVariant d = value(static_cast<size_t>(stage), Delta);
        return d.isValid() ? std::abs(d.toDouble()) : -1.0;
    };
    std::stable_sort(m_order.begin(), m_order.end(), [&](int x, int y) { return key(x) > key(y); });
}

int StageCostModel::stageOfRow(int row) const
{
    return row >= 0 && static_cast<size_t>(row) < m_order.size() ? m_order[static_cast<size_t>(row)] : -1;
}

int StageCostModel::rowOfStage(int stage) const
{
    const auto it = std::find(m_order.begin(), m_order.end(), stage);
    return it == m_order.end() ? -1 : static_cast<int>(it - m_order.begin());
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

int StageCostModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant StageCostModel::value(size_t stage, int column) const
{
    const auto cost = [](const std::vector<float> &v, size_t i) -> QVariant {
        return i < v.size() ? QVariant(double(v[i])) : QVariant();
    };
    switch (column) {
    case Stage:
        return stage < static_cast<size_t>(m_stages.size()) ? m_stages[static_cast<qsizetype>(stage)]
                                                            : QString::number(stage);
    case CostA: return cost(m_a, stage);
    case CostB: return m_b ? cost(*m_b, stage) : QVariant();
    case Delta: {
        if (!m_b)
            return {};
        const QVariant a = cost(m_a, stage), b = cost(*m_b, stage);
        return a.isValid() && b.isValid() ? QVariant(b.toDouble() - a.toDouble()) : QVariant();
    }
    default: return {};
    }
}

std::optional<std::pair<int, double>> StageCostModel::mainTerm(size_t stage) const
{
    const std::vector<double> none;
    const std::vector<double> &a = stage < m_segA.size() ? m_segA[stage] : none;
    const std::vector<double> &b = stage < m_segB.size() ? m_segB[stage] : none;
    const bool compared = m_b.has_value() && !b.empty();
    std::optional<std::pair<int, double>> best;
    for (size_t t = 0; t < std::max(a.size(), b.size()); ++t) {
        const double at = t < a.size() ? a[t] : 0.0, bt = t < b.size() ? b[t] : 0.0;
        const double v = compared ? bt - at : at;
        if (!best || std::abs(v) > std::abs(best->second))
            best = std::pair<int, double>(static_cast<int>(t), v);
    }
    return best;
}

QVariant StageCostModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const int stage = stageOfRow(index.row());
    if (role == StageIndexRole)
        return stage;
    if (index.column() == MainTerm) {
        const auto term = mainTerm(static_cast<size_t>(stage));
        if (!term || term->first >= m_segmentNames.size())
            return {};
        const QString &name = m_segmentNames[term->first];
        if (role == Qt::EditRole || role == Qt::UserRole)
            return term->second;
        if (role == Qt::DisplayRole) {
            const bool compared = m_b.has_value() && !segments(index.row(), 1).empty();
            const QString number = formatNumber(term->second, 3);
            // The number first: in a narrow panel the name is what gets elided.
            return QStringLiteral("%1 %2").arg(compared && term->second > 0 ? QStringLiteral("+") + number : number,
                                               name);
        }
        if (role == Qt::ToolTipRole)
            return m_b ? tr("the term whose B − A is largest in this stage: %1").arg(name)
                       : tr("the term that costs this stage most: %1").arg(name);
        if (role == Qt::ForegroundRole && m_b && term->second != 0)
            return QBrush(term->second > 0 ? QColor(180, 40, 30) : QColor(20, 120, 60));
        return {};
    }
    const QVariant v = value(static_cast<size_t>(stage), index.column());
    if (role == Qt::EditRole || role == Qt::UserRole)
        return v;
    if (role == Qt::DisplayRole) {
        if (index.column() == Terms)
            return {};
        if (index.column() == Stage || !v.isValid())
            return v;
        // A stage that costs nothing comes out of the model as float noise (-9.8e-12); it reads as 0.
        const double x = std::abs(v.toDouble()) < 1e-9 ? 0.0 : v.toDouble();
        return QVariant(formatNumber(x, 5));
    }
    if (role == Qt::ToolTipRole) {
        QString tip = tr("stage %1: %2").arg(stage).arg(value(static_cast<size_t>(stage), Stage).toString());
        for (const int column : {int(CostA), int(CostB)})
            if (const QVariant cost = value(static_cast<size_t>(stage), column); cost.isValid())
                tip += QStringLiteral("\n%1 %2").arg(headerData(column, Qt::Horizontal).toString(),
                                                     formatNumber(cost.toDouble(), 6));
        for (int state = 0; state < (m_b ? 2 : 1); ++state) {
            const std::vector<double> &seg = segments(index.row(), state);
            for (qsizetype t = 0; t < m_segmentNames.size() && static_cast<size_t>(t) < seg.size(); ++t)
                tip += QStringLiteral("\n%1%2: %3")
                           .arg(m_b ? (state == 0 ? QStringLiteral("A ") : QStringLiteral("B ")) : QString(),
                                m_segmentNames[t], formatNumber(seg[static_cast<size_t>(t)], 4));
        }
        return tip;
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
    case Stage: return m_b ? tr("Stage, by |B − A|") : tr("Stage");
    case CostA: return m_b ? tr("A cost") : tr("Predicted cost");
    case CostB: return tr("B cost");
    case Delta: return tr("B − A");
    case MainTerm: return m_b ? tr("Term that differs most") : tr("Largest term");
    case Terms: return m_b ? tr("Terms: A above B") : tr("Cost terms");
    default: return {};
    }
}

} // namespace beamscope::ui
