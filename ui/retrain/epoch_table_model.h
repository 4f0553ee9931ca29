#pragma once
// The per-epoch record of a training run as a table: losses and the validation
// ranking figures (Spearman, Kendall, pairwise accuracy), one row per epoch
// (epoch 0 = the initial weights).

#include "core/samples/epoch_record.h"

#include <QAbstractTableModel>

#include <unordered_map>
#include <vector>

namespace beamscope::ui {

class EpochTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        EpochColumn,
        TrainingLossColumn,
        ValidationLossColumn,
        SpearmanColumn,
        KendallColumn,
        PairwiseColumn,
        ColumnCount
    };
    // The unformatted number behind a cell (NaN where undefined).
    enum Role { ValueRole = Qt::UserRole + 1 };

    explicit EpochTableModel(QObject *parent = nullptr);

    void clear();
    // Replaces the record of the same epoch (a resumed run repeats its history) or appends.
    void addEpoch(const samples::EpochRecord &record);
    // Many records at once (one row insertion for the new ones).
    void addEpochs(const std::vector<samples::EpochRecord> &records);
    const std::vector<samples::EpochRecord> &records() const { return m_records; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<samples::EpochRecord> m_records;
    std::unordered_map<int, size_t> m_rowOfEpoch;
};

} // namespace beamscope::ui
