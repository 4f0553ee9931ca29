#include "ui/retrain/epoch_table_model.h"

#include <cmath>
#include <iterator>

namespace beamscope::ui {

EpochTableModel::EpochTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void EpochTableModel::clear()
{
    if (m_records.empty())
        return;
    beginResetModel();
    m_records.clear();
    m_rowOfEpoch.clear();
    endResetModel();
}

void EpochTableModel::addEpoch(const samples::EpochRecord &record) { addEpochs({record}); }

void EpochTableModel::addEpochs(const std::vector<samples::EpochRecord> &records)
{
    // Rows at or past `first` are this batch's new ones, inserted together at the end.
    const size_t first = m_records.size();
    std::vector<samples::EpochRecord> added;
    for (const samples::EpochRecord &record : records) {
        const auto [at, isNew] = m_rowOfEpoch.try_emplace(record.epoch, first + added.size());
        if (isNew) {
            added.push_back(record);
        } else if (at->second >= first) {
            added[at->second - first] = record; // twice in this batch: the later one wins
        } else {
            m_records[at->second] = record; // a resumed run repeats its history
            const int row = static_cast<int>(at->second);
            Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
        }
    }
    if (added.empty())
        return;
    beginInsertRows({}, static_cast<int>(first), static_cast<int>(first + added.size()) - 1);
    m_records.insert(m_records.end(), std::make_move_iterator(added.begin()), std::make_move_iterator(added.end()));
    endInsertRows();
}

int EpochTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_records.size());
}

int EpochTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant EpochTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto &r = m_records[static_cast<size_t>(index.row())];
    double value = 0;
    switch (index.column()) {
    case EpochColumn: value = r.epoch; break;
    case TrainingLossColumn: value = r.trainingLoss; break;
    case ValidationLossColumn: value = r.validationLoss; break;
    case SpearmanColumn: value = r.validation.spearman; break;
    case KendallColumn: value = r.validation.kendall; break;
    case PairwiseColumn: value = r.validation.pairwiseAccuracy; break;
    default: return {};
    }
    switch (role) {
    case ValueRole: return value;
    case Qt::DisplayRole:
        if (index.column() == EpochColumn)
            return r.epoch;
        if (std::isnan(value))
            return QStringLiteral("–");
        if (index.column() == TrainingLossColumn || index.column() == ValidationLossColumn)
            return QString::number(value, 'g', 5);
        return QString::number(value, 'f', 4);
    case Qt::TextAlignmentRole: return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (index.column() == TrainingLossColumn && r.epoch == 0)
            return tr("Loss of the initial weights");
        return {};
    default: return {};
    }
}

QVariant EpochTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case EpochColumn: return tr("Epoch");
        case TrainingLossColumn: return tr("Training loss");
        case ValidationLossColumn: return tr("Validation loss");
        case SpearmanColumn: return tr("Spearman");
        case KendallColumn: return tr("Kendall τ");
        case PairwiseColumn: return tr("Pairwise acc.");
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole && section >= SpearmanColumn && section < ColumnCount)
        return tr("Mean over validation pipelines of how well the predictions order their schedules");
    return {};
}

} // namespace beamscope::ui
