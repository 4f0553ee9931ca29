#include "ui/weights/tensor_table_model.h"

#include "ui/common/number_format.h"

#include <QColor>

namespace beamscope::ui {

TensorTableModel::TensorTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void TensorTableModel::setWeights(LoadedWeightsPtr weights)
{
    beginResetModel();
    m_weights = (weights && weights->ok()) ? std::move(weights) : nullptr;
    endResetModel();
}

int TensorTableModel::rowOfTensor(const QString &name) const
{
    if (!m_weights)
        return -1;
    const auto &tensors = m_weights->weights().tensors;
    for (int row = 0; row < static_cast<int>(tensors.size()); ++row)
        if (QString::fromStdString(tensors[row].name) == name)
            return row;
    return -1;
}

int TensorTableModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() || !m_weights)
        return 0;
    return static_cast<int>(m_weights->weights().tensors.size());
}

int TensorTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant TensorTableModel::raw(int row, int column) const
{
    const auto &tensor = m_weights->weights().tensors[row];
    const auto &s = m_weights->stats[row];
    switch (column) {
    case Name: return QString::fromStdString(tensor.name);
    case Shape: return formatShape(tensor.shape);
    case Min: return s.min;
    case Max: return s.max;
    case Mean: return s.mean;
    case Std: return s.stddev;
    case L2: return s.l2norm;
    case NaNs: return qulonglong(s.nanCount);
    case Infs: return qulonglong(s.infCount);
    case Zeros: return qulonglong(s.zeroCount);
    default: return {};
    }
}

QVariant TensorTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_weights || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole: {
        const QVariant value = raw(index.row(), column);
        if (value.typeId() == QMetaType::Double)
            return formatNumber(value.toDouble());
        return value.toString();
    }
    case RawRole: return raw(index.row(), column);
    case Qt::FontRole:
        if (column >= Min)
            return monospaceFont();
        return {};
    case Qt::TextAlignmentRole:
        if (column >= Min)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        // Non-finite values are worth noticing at a glance.
        if ((column == NaNs || column == Infs) && raw(index.row(), column).toULongLong() > 0)
            return QColor(0xb0, 0x00, 0x20);
        return {};
    case Qt::ToolTipRole:
        if (column == Shape)
            return tr("Halide order: dimension 0 varies fastest");
        if (column >= Min && column <= L2)
            return tr("over finite values");
        return {};
    default: return {};
    }
}

QVariant TensorTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case L2: return tr("Euclidean norm of the finite values");
        case Zeros: return tr("Elements exactly 0");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    static const char *const titles[ColumnCount] = {
        QT_TR_NOOP("Tensor"), QT_TR_NOOP("Shape"), QT_TR_NOOP("Min"), QT_TR_NOOP("Max"), QT_TR_NOOP("Mean"),
        QT_TR_NOOP("Std"),    QT_TR_NOOP("L2"),    QT_TR_NOOP("NaN"), QT_TR_NOOP("Inf"), QT_TR_NOOP("Zeros"),
    };
    return section >= 0 && section < ColumnCount ? tr(titles[section]) : QVariant();
}

} // namespace beamscope::ui
