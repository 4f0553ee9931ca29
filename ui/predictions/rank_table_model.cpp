#include "ui/predictions/rank_table_model.h"

#include <QFont>

#include <cmath>

namespace beamscope::ui {

namespace {
double pick(const samples::RankMetrics &m, RankTableModel::Metric metric)
{
    switch (metric) {
    case RankTableModel::Spearman: return m.spearman;
    case RankTableModel::Kendall: return m.kendall;
    case RankTableModel::Pairwise: return m.pairwiseAccuracy;
    default: return std::nan("");
    }
}

double pick(const samples::RankSummary &s, RankTableModel::Metric metric)
{
    switch (metric) {
    case RankTableModel::Spearman: return s.spearman;
    case RankTableModel::Kendall: return s.kendall;
    case RankTableModel::Pairwise: return s.pairwiseAccuracy;
    default: return std::nan("");
    }
}
} // namespace

RankTableModel::RankTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void RankTableModel::setResult(const PredictionResult &result)
{
    beginResetModel();
    m_pipelines = result.pipelines;
    m_weights.clear();
    for (const auto &w : result.weights)
        if (w.error.isEmpty() && w.pipelines.size() == result.pipelines.size())
            m_weights.push_back(w);
    if (m_weights.empty())
        m_pipelines.clear();
    endResetModel();
}

int RankTableModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() || m_pipelines.empty())
        return 0;
    return pipelineCount() + 1;
}

int RankTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : FixedColumnCount + weightsCount() * MetricCount;
}

double RankTableModel::metricValue(int row, int weightsIndex, Metric metric) const
{
    const auto &w = m_weights[static_cast<size_t>(weightsIndex)];
    if (isSummaryRow(row))
        return pick(w.summary, metric);
    return pick(w.pipelines[static_cast<size_t>(row)].metrics, metric);
}

QVariant RankTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row();
    const int column = index.column();
    const bool summary = isSummaryRow(row);
    if (role == Qt::FontRole && summary) {
        QFont font;
        font.setBold(true);
        return font;
    }
    if (column < FixedColumnCount) {
        if (role != Qt::DisplayRole && role != ValueRole && role != Qt::TextAlignmentRole)
            return {};
        if (role == Qt::TextAlignmentRole)
            return column == AppColumn ? QVariant() : QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        if (summary) {
            if (column == PipelineColumn)
                return tr("mean");
            if (column == SchedulesColumn) {
                qulonglong total = 0;
                for (const auto &p : m_pipelines)
                    total += p.runtimesMs.size();
                return total;
            }
            return {};
        }
        const auto &p = m_pipelines[static_cast<size_t>(row)];
        switch (column) {
        case PipelineColumn: return p.pipelineId;
        case AppColumn: return p.app.isEmpty() ? QStringLiteral("–") : p.app;
        case SchedulesColumn: return static_cast<qulonglong>(p.runtimesMs.size());
        default: return {};
        }
    }
    const int k = (column - FixedColumnCount) / MetricCount;
    const auto metric = static_cast<Metric>((column - FixedColumnCount) % MetricCount);
    const double value = metricValue(row, k, metric);
    switch (role) {
    case ValueRole: return value;
    case Qt::DisplayRole: return std::isnan(value) ? QStringLiteral("–") : QString::number(value, 'f', 3);
    case Qt::TextAlignmentRole: return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        return std::isnan(value) ? tr("Undefined: fewer than two schedules, or one side constant") : QVariant();
    default: return {};
    }
}

QVariant RankTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return {};
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    if (section < FixedColumnCount) {
        if (role == Qt::ToolTipRole)
            return {};
        switch (section) {
        case PipelineColumn: return tr("Pipeline");
        case AppColumn: return tr("App");
        case SchedulesColumn: return tr("Schedules");
        default: return {};
        }
    }
    const int k = (section - FixedColumnCount) / MetricCount;
    const auto metric = static_cast<Metric>((section - FixedColumnCount) % MetricCount);
    const QString name = metric == Spearman ? tr("Spearman") : metric == Kendall ? tr("Kendall τ") : tr("Pairwise");
    const QString &weights = m_weights[static_cast<size_t>(k)].name;
    if (role == Qt::ToolTipRole)
        return tr("%1 of %2's predictions against the measured runtimes")
            .arg(name, m_weights[static_cast<size_t>(k)].path);
    return weightsCount() > 1 ? QStringLiteral("%1\n%2").arg(name, weights) : name;
}

} // namespace beamscope::ui
