#include "ui/device/weights_comparison_model.h"

#include "core/weights/shipped_weights.h"

#include <QBrush>
#include <QFileInfo>
#include <QFont>

#include <cmath>

namespace beamscope::ui {

namespace {
QVariant figure(double v)
{
    return std::isfinite(v) ? QVariant(QString::number(v, 'f', 3)) : QVariant(QStringLiteral("–"));
}
} // namespace

void WeightsComparisonModel::setScores(std::vector<samples::ChoiceScore> scores)
{
    beginResetModel();
    m_scores = std::move(scores);
    m_labels.clear();
    for (const samples::ChoiceScore &choice : m_scores)
        m_labels.push_back(labelOf(choice));
    m_rows.clear();
    for (size_t c = 0; c < m_scores.size(); c++)
        for (size_t a = 0; a < m_scores[c].apps.size(); a++)
            m_rows.push_back({c, static_cast<int>(a)});
    for (size_t c = 0; c < m_scores.size(); c++)
        m_rows.push_back({c, -1});
    if (m_scores.size() > 1)
        for (size_t c = 0; c < m_scores.size(); c++)
            m_rows.push_back({c, -2});
    endResetModel();
}

int WeightsComparisonModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int WeightsComparisonModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant WeightsComparisonModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row &row = m_rows[static_cast<size_t>(index.row())];
    const samples::ChoiceScore &choice = m_scores[row.choice];
    if (role == Qt::FontRole && row.app < 0) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::TextAlignmentRole && index.column() >= Schedules)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (row.app >= 0) {
        const samples::AppScore &a = choice.apps[static_cast<size_t>(row.app)];
        const QString caveats = caveatsOf(row);
        if (role == Qt::ToolTipRole)
            return a.error.empty() ? QString::fromStdString(a.weights.string()) +
                                         (caveats.isEmpty() ? QString() : QStringLiteral("\n") + caveats)
                                   : QString::fromStdString(a.error);
        const bool scored = a.error.empty();
        // A handful of schedules makes every figure a guess: greyed, the Caveats column says why.
        if (role == Qt::ForegroundRole && scored && a.schedules < samples::kFewSchedules &&
            index.column() >= Spearman && index.column() <= Top5)
            return QBrush(QColor(130, 130, 130));
        if (role == Qt::ForegroundRole && index.column() == Caveats && !caveats.isEmpty())
            return QBrush(scored ? QColor(150, 90, 0) : QColor(170, 30, 30));
        if (role == ValueRole) {
            switch (index.column()) {
            case Spearman: return scored ? a.rank.spearman : NAN;
            case Kendall: return scored ? a.rank.kendall : NAN;
            case Pairwise: return scored ? a.rank.pairwiseAccuracy : NAN;
            case Top1: return scored ? a.top1 : NAN;
            case Top5: return scored ? a.top5 : NAN;
            default: return {};
            }
        }
        if (role != Qt::DisplayRole)
            return {};
        switch (index.column()) {
        case App: return QString::fromStdString(a.app);
        case Weights: return m_labels[row.choice];
        case Schedules: return static_cast<qulonglong>(a.schedules);
        case Spearman: return scored ? figureWithInterval(a.rank.spearman, a.intervals.spearman) : QStringLiteral("–");
        case Caveats: return caveats;
        case Kendall: return scored ? figureWithInterval(a.rank.kendall, a.intervals.kendall) : QStringLiteral("–");
        case Pairwise: return scored ? figure(a.rank.pairwiseAccuracy) : QStringLiteral("–");
        case Top1: return scored ? figureWithInterval(a.top1, a.intervals.top1) : QStringLiteral("–");
        case Top5: return scored ? figureWithInterval(a.top5, a.intervals.top5) : QStringLiteral("–");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    if (row.app == -2) {
        const auto &m = choice.common;
        switch (index.column()) {
        case App:
            return m.apps == 0 ? tr("no app every choice scored")
                               : tr("mean over the %n app(s) every choice scored", nullptr, static_cast<int>(m.apps));
        case Weights: return m_labels[row.choice];
        case Schedules: return QString();
        case Spearman: return figure(m.spearman);
        case Kendall: return figure(m.kendall);
        case Pairwise: return figure(m.pairwiseAccuracy);
        case Top1: return figure(m.top1);
        case Top5: return figure(m.top5);
        default: return {};
        }
    }
    switch (index.column()) {
    case App:
        return choice.appsScored == 0 ? tr("no app scored")
                                      : tr("mean over %n app(s)", nullptr, static_cast<int>(choice.appsScored));
    case Weights: return m_labels[row.choice];
    case Schedules: return QString();
    case Spearman: return figure(choice.spearman);
    case Kendall: return figure(choice.kendall);
    case Pairwise: return figure(choice.pairwiseAccuracy);
    case Top1: return figure(choice.top1);
    case Top5: return figure(choice.top5);
    default: return {};
    }
}

QString WeightsComparisonModel::caveatsOf(const Row &row) const
{
    QStringList out;
    for (const std::string &c : samples::rowCaveats(m_scores, row.choice, static_cast<size_t>(row.app)))
        out << QString::fromStdString(c);
    return out.join(QStringLiteral("; "));
}

QString WeightsComparisonModel::figureWithInterval(double value, const samples::Interval &interval)
{
    if (!std::isfinite(value))
        return QStringLiteral("–");
    const QString figure = QString::number(value, 'f', 3);
    return interval.defined()
               ? QStringLiteral("%1 [%2, %3]").arg(figure).arg(interval.low, 0, 'f', 2).arg(interval.high, 0, 'f', 2)
               : figure;
}

QString WeightsComparisonModel::labelOf(const samples::ChoiceScore &choice)
{
    // A file by its name (the whole path is the row's tooltip): repeated paths pushed the figures out of view.
    const QString label = QFileInfo::exists(QString::fromStdString(choice.label))
                              ? QFileInfo(QString::fromStdString(choice.label)).fileName()
                              : QString::fromStdString(choice.label);
    // An untrained initialisation ranks by chance; its row must not read as one more model.
    for (const samples::AppScore &a : choice.apps)
        if (!a.weights.empty())
            return weights::isUntrainedShippedWeights(a.weights) ? tr("%1 (untrained)").arg(label) : label;
    return label;
}

QVariant WeightsComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole && (section == Spearman || section == Kendall))
        return tr("The figure, then its 95% percentile bootstrap interval: the app's schedules drawn again with "
                  "replacement 1000 times. Two choices whose Spearman intervals overlap cannot be told apart on "
                  "these samples.");
    if (role == Qt::ToolTipRole && section == Schedules)
        return tr("n: the distinct schedules measured for the app");
    if (role == Qt::ToolTipRole && (section == Top1 || section == Top5))
        return tr("Best measured runtime among the model's k best-ranked schedules, divided by the best measured "
                  "runtime (1 is perfect)");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case App: return tr("App");
    case Weights: return tr("Weights");
    case Schedules: return tr("n");
    case Spearman: return tr("Spearman");
    case Caveats: return tr("Caveats");
    case Kendall: return tr("Kendall τ");
    case Pairwise: return tr("Pairwise");
    case Top1: return tr("Top-1");
    case Top5: return tr("Top-5");
    default: return {};
    }
}

} // namespace beamscope::ui
