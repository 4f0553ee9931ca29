#include "ui/device/study_table_model.h"

#include <QColor>

#include <cmath>

namespace beamscope::ui {

namespace {

QString figure(double v, int digits = 2)
{
    return std::isfinite(v) ? QString::number(v, 'f', digits) : QStringLiteral("–");
}

QString runtimeWithInterval(const study::RuntimeEstimate &r)
{
    if (!std::isfinite(r.medianMs))
        return QStringLiteral("–");
    QString text = QString::number(r.medianMs, 'g', 4);
    if (r.interval.defined())
        text += QStringLiteral(" [%1, %2]")
                    .arg(QString::number(r.interval.low, 'g', 3), QString::number(r.interval.high, 'g', 3));
    return text;
}

QString hits(double v100, double tuned)
{
    const auto one = [](double v) {
        return std::isfinite(v) ? (v > 0.5 ? QStringLiteral("yes") : QStringLiteral("no")) : QStringLiteral("–");
    };
    return one(v100) + QStringLiteral(" / ") + one(tuned);
}

} // namespace

void StudyTableModel::setReport(study::StudyReport report)
{
    beginResetModel();
    m_report = std::move(report);
    endResetModel();
}

int StudyTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_report.apps.size());
}

int StudyTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant StudyTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const study::AppResult &a = m_report.apps[static_cast<size_t>(index.row())];
    if (role == ValueRole) {
        switch (index.column()) {
        case V100Ms: return a.v100.runtime.medianMs;
        case TunedMs: return a.tuned.runtime.medianMs;
        case Speedup: return a.speedup.ratio;
        case LoopBestMs: return a.loopBestMs;
        case Schedules: return static_cast<qulonglong>(a.v100Ranks.schedules);
        case V100Spearman: return a.v100Ranks.spearman;
        case TunedSpearman: return a.tunedRanks.spearman;
        case V100Kendall: return a.v100Ranks.kendall;
        case TunedKendall: return a.tunedRanks.kendall;
        case Top1: return a.tunedRanks.top1;
        case Top5: return a.tunedRanks.top5;
        default: return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case App: return QString::fromStdString(a.app);
        case V100Ms: return runtimeWithInterval(a.v100.runtime);
        case TunedMs: return runtimeWithInterval(a.tuned.runtime);
        case Speedup:
            if (!std::isfinite(a.speedup.ratio))
                return QStringLiteral("–");
            return QStringLiteral("%1x").arg(figure(a.speedup.ratio)) +
                   (a.speedup.interval.defined()
                        ? QStringLiteral(" [%1, %2]")
                              .arg(figure(a.speedup.interval.low), figure(a.speedup.interval.high))
                        : QString());
        case LoopBestMs:
            return std::isfinite(a.loopBestMs) ? QString::number(a.loopBestMs, 'g', 4) : QStringLiteral("–");
        case Schedules: return static_cast<qulonglong>(a.v100Ranks.schedules);
        case V100Spearman: return figure(a.v100Ranks.spearman);
        case TunedSpearman: return figure(a.tunedRanks.spearman);
        case V100Kendall: return figure(a.v100Ranks.kendall);
        case TunedKendall: return figure(a.tunedRanks.kendall);
        case Top1: return hits(a.v100Ranks.top1, a.tunedRanks.top1);
        case Top5: return hits(a.v100Ranks.top5, a.tunedRanks.top5);
        case Note: {
            QStringList notes;
            if (!a.v100.error.empty())
                notes << QStringLiteral("V100 pick: ") + QString::fromStdString(a.v100.error);
            if (!a.tuned.error.empty())
                notes << QStringLiteral("fine-tuned pick: ") + QString::fromStdString(a.tuned.error);
            if (a.speedup.interval.defined() && a.speedup.interval.low <= 1 && a.speedup.interval.high >= 1)
                notes << tr("not told apart (the interval holds 1x)");
            return notes.join(QStringLiteral("; "));
        }
        default: return {};
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() != App && index.column() != Note)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && index.column() == Speedup && std::isfinite(a.speedup.ratio) &&
        a.speedup.interval.defined()) {
        if (a.speedup.interval.low > 1)
            return QColor(0x2e, 0x7d, 0x32); // faster, and the interval says so
        if (a.speedup.interval.high < 1)
            return QColor(0xb7, 0x1c, 0x1c);
    }
    if (role == Qt::ToolTipRole) {
        switch (index.column()) {
        case V100Ms:
            return tr("The pick of Halide's %1 (trained on a V100 without the app): median of %2 interleaved "
                      "rounds, 95% bootstrap interval")
                .arg(QString::fromStdString(a.v100.weights))
                .arg(a.v100.roundsMs.size());
        case TunedMs:
            return tr("The pick of %1 (Halide's file fine-tuned here on every other app's samples): median "
                      "of %2 rounds")
                .arg(QString::fromStdString(a.tuned.weights))
                .arg(a.tuned.roundsMs.size());
        case Speedup:
            return tr("V100 pick / fine-tuned pick: above 1, the fine-tuned weights picked the faster schedule");
        case LoopBestMs:
            return tr("The fastest schedule Halide's loop (retrained on this app after each batch) measured");
        case Top1: return tr("V100 / fine-tuned: is the fastest measured schedule the model's first?");
        case Top5: return tr("V100 / fine-tuned: is the fastest measured schedule among the model's first five?");
        default: break;
        }
    }
    return {};
}

QVariant StudyTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole) {
        switch (section) {
        case V100Spearman:
        case TunedSpearman: return tr("Spearman of predictions against measured runtimes on the app's own samples");
        case V100Kendall:
        case TunedKendall: return tr("Kendall tau-b on the app's own samples");
        default: return {};
        }
    }
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case App: return tr("App");
    case V100Ms: return tr("V100 pick ms [95%]");
    case TunedMs: return tr("Tuned pick ms [95%]");
    case Speedup: return tr("Speedup [95%]");
    case LoopBestMs: return tr("Loop best ms");
    case Schedules: return tr("Samples");
    case V100Spearman: return tr("ρ V100");
    case TunedSpearman: return tr("ρ tuned");
    case V100Kendall: return tr("τ V100");
    case TunedKendall: return tr("τ tuned");
    case Top1: return tr("Top-1");
    case Top5: return tr("Top-5");
    case Note: return tr("Note");
    default: return {};
    }
}

} // namespace beamscope::ui
