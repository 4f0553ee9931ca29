#pragma once
// Item models over core's WeightsDiff: one row per tensor with the figures of
// statistics.h, and the largest element changes of one tensor.

#include "core/weights/statistics.h"

#include <QAbstractTableModel>

namespace beamscope::ui {

class DiffSummaryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Shape, Changed, MaxAbsDiff, RelativeL2, Cosine, ColumnCount };
    static constexpr int RawRole = Qt::UserRole + 1;

    explicit DiffSummaryModel(QObject *parent = nullptr);
    void setDiff(const weights::WeightsDiff *diff); // the diff must outlive the model's use of it

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    const weights::WeightsDiff *m_diff = nullptr;
};

class LargestChangesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Meaning: what the index weighs, where the tensor's axes are named
    // ("schedule feature idle_lane_wastage"), as the heatmap's hover says.
    enum Column { Index, Meaning, A, B, Difference, ColumnCount };
    static constexpr int RawRole = Qt::UserRole + 1;

    explicit LargestChangesModel(QObject *parent = nullptr);
    void setTensorDiff(const weights::TensorDiff *diff);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    const weights::TensorDiff *m_diff = nullptr;
};

} // namespace beamscope::ui
