#include "ui/predictions/rank_table_model.h"

#include <QBrush>
#include <QColor>
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
    return parent.isValid() || m_weights.empty() ? 0 : FixedColumnCount + weightsCount() * MetricCount + 1;
}

double RankTableModel::metricValue(int row, int weightsIndex, Metric metric) const
{
    const auto &w = m_weights[static_cast<size_t>(weightsIndex)];
    if (metric == Top1) {
        if (!isSummaryRow(row))
            return w.pipelines[static_cast<size_t>(row)].top1;
        std::vector<double> top1;
        for (const auto &p : w.pipelines)
            top1.push_back(p.top1);
        return samples::finiteMean(top1);
    }
    if (isSummaryRow(row))
        return pick(w.summary, metric);
    return pick(w.pipelines[static_cast<size_t>(row)].metrics, metric);
}

samples::Interval RankTableModel::metricInterval(int row, int weightsIndex, Metric metric) const
{
    const auto &w = m_weights[static_cast<size_t>(weightsIndex)];
    const samples::RankIntervals &i =
        isSummaryRow(row) ? w.summaryIntervals : w.pipelines[static_cast<size_t>(row)].intervals;
    switch (metric) {
    case Spearman: return i.spearman;
    case Kendall: return i.kendall;
    case Top1: return i.top1;
    default: return {};
    }
}

QString RankTableModel::caveats(int row) const
{
    if (row < 0 || row >= rowCount())
        return {};
    QStringList out;
    const size_t schedules = isSummaryRow(row) ? 0 : m_pipelines[static_cast<size_t>(row)].runtimesMs.size();
    if (!isSummaryRow(row)) {
        for (const auto &w : m_weights)
            if (w.pipelines[static_cast<size_t>(row)].inSample)
                out << tr("in-sample: %1 was trained on %2").arg(w.name, m_pipelines[static_cast<size_t>(row)].app);
        if (schedules < samples::kFewSchedules)
            out << tr("%n schedule(s): a rough guess", nullptr, static_cast<int>(schedules));
    } else {
        // The mean carries its rows' caveats (E2): a bold mean over in-sample rows is no fair figure.
        for (const auto &w : m_weights)
            out << meanCaveats(w, m_pipelines);
        out.removeDuplicates();
    }
    if (weightsCount() == 2 && metricInterval(row, 0, Spearman).overlaps(metricInterval(row, 1, Spearman)))
        out << tr("%1 and %2 not told apart (Spearman intervals overlap)").arg(m_weights[0].name, m_weights[1].name);
    return out.join(QStringLiteral("; "));
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
        case AppColumn: {
            if (p.app.isEmpty())
                return QStringLiteral("–");
            // In-sample scores flatter the file: said where the row is read first, not only in Caveats.
            QStringList trainedOnIt;
            for (const auto &w : m_weights)
                if (w.pipelines[static_cast<size_t>(row)].inSample)
                    trainedOnIt << w.name;
            return trainedOnIt.isEmpty()
                       ? p.app
                       : tr("%1 · in-sample for %2").arg(p.app, trainedOnIt.join(QStringLiteral(", ")));
        }
        case SchedulesColumn: return static_cast<qulonglong>(p.runtimesMs.size());
        default: return {};
        }
    }
    if (column == caveatsColumn()) {
        if (role == Qt::DisplayRole || role == Qt::ToolTipRole)
            return caveats(row);
        if (role == Qt::ForegroundRole)
            return QBrush(QColor(150, 90, 0));
        return {};
    }
    const int k = (column - FixedColumnCount) / MetricCount;
    const auto metric = static_cast<Metric>((column - FixedColumnCount) % MetricCount);
    const double value = metricValue(row, k, metric);
    const samples::Interval interval = metricInterval(row, k, metric);
    // A handful of schedules makes every figure a guess: greyed, the caveats column says why.
    if (role == Qt::ForegroundRole && !summary &&
        m_pipelines[static_cast<size_t>(row)].runtimesMs.size() < samples::kFewSchedules)
        return QBrush(QColor(130, 130, 130));
    switch (role) {
    case ValueRole: return value;
    case Qt::DisplayRole:
        if (std::isnan(value))
            return QStringLiteral("–");
        return interval.defined() ? QStringLiteral("%1 [%2, %3]")
                                        .arg(value, 0, 'f', 3)
                                        .arg(interval.low, 0, 'f', 2)
                                        .arg(interval.high, 0, 'f', 2)
                                  : QString::number(value, 'f', 3);
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
            return section == SchedulesColumn ? tr("n: the distinct schedules measured for the pipeline") : QVariant();
        switch (section) {
        case PipelineColumn: return tr("Pipeline");
        case AppColumn: return tr("App");
        case SchedulesColumn: return tr("n");
        default: return {};
        }
    }
    if (section == caveatsColumn())
        return role == Qt::ToolTipRole ? tr("What to know before trusting the row's figures") : tr("Caveats");
    const int k = (section - FixedColumnCount) / MetricCount;
    const auto metric = static_cast<Metric>((section - FixedColumnCount) % MetricCount);
    const QString name = metric == Spearman  ? tr("Spearman")
                         : metric == Kendall ? tr("Kendall τ")
                         : metric == Top1    ? tr("Top-1")
                                             : tr("Pairwise");
    const QString &weights = m_weights[static_cast<size_t>(k)].name;
    if (role == Qt::ToolTipRole)
        return tr("%1 of %2's predictions against the measured runtimes%3")
            .arg(name, m_weights[static_cast<size_t>(k)].path,
                 metric == Pairwise ? QString()
                                    : tr(", then its 95% bootstrap interval (schedules drawn again with "
                                         "replacement 1000 times)"));
    return weightsCount() > 1 ? QStringLiteral("%1\n%2").arg(name, weights) : name;
}

} // namespace beamscope::ui
