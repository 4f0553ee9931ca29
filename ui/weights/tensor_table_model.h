#pragma once
// The six tensors of one weights file with their statistics (core's computeStats).

#include "ui/weights/loaded_weights.h"

#include <QAbstractTableModel>

namespace beamscope::ui {

class TensorTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Shape, Min, Max, Mean, Std, L2, NaNs, Infs, Zeros, ColumnCount };
    // The unformatted figure (double or qulonglong) of a cell, for sorting and tests.
    static constexpr int RawRole = Qt::UserRole + 1;

    explicit TensorTableModel(QObject *parent = nullptr);

    void setWeights(LoadedWeightsPtr weights); // nullptr clears
    const LoadedWeightsPtr &weights() const { return m_weights; }
    int rowOfTensor(const QString &name) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant raw(int row, int column) const;
    LoadedWeightsPtr m_weights;
};

} // namespace beamscope::ui
