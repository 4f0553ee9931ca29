#include "ui/weights/diff_models.h"

#include "ui/weights/feature_names.h"

#include "ui/common/number_format.h"

#include <QColor>
#include <QStringList>

namespace beamscope::ui {

DiffSummaryModel::DiffSummaryModel(QObject *parent) : QAbstractTableModel(parent) {}

void DiffSummaryModel::setDiff(const weights::WeightsDiff *diff)
{
    beginResetModel();
    m_diff = diff;
    endResetModel();
}

int DiffSummaryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_diff ? 0 : static_cast<int>(m_diff->tensors.size());
}

int DiffSummaryModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DiffSummaryModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_diff || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const auto &t = m_diff->tensors[index.row()];
    const int column = index.column();
    QVariant raw;
    switch (column) {
    case Name: raw = QString::fromStdString(t.name); break;
    case Shape: raw = formatShape(t.shape); break;
    case Changed: raw = qulonglong(t.changedCount); break;
    case MaxAbsDiff: raw = t.maxAbsDiff; break;
    case RelativeL2: raw = t.relativeL2; break;
    case Cosine: raw = t.cosineSimilarity; break;
    default: break;
    }
    switch (role) {
    case Qt::DisplayRole:
        if (column == Changed) {
            const qulonglong total = t.difference.size();
            return QStringLiteral("%1 / %2").arg(raw.toULongLong()).arg(total);
        }
        return raw.typeId() == QMetaType::Double ? formatNumber(raw.toDouble()) : raw.toString();
    case RawRole: return raw;
    case Qt::FontRole: return column >= Changed ? QVariant(monospaceFont()) : QVariant();
    case Qt::TextAlignmentRole:
        return column >= Changed ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                 : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (t.changedCount == 0)
            return QColor(0x80, 0x80, 0x80);
        return {};
    default: return {};
    }
}

QVariant DiffSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Changed: return tr("Elements whose bits differ");
        case MaxAbsDiff: return tr("Largest |b − a|");
        case RelativeL2: return tr("‖b − a‖ / ‖a‖");
        case Cosine: return tr("a·b / (‖a‖ ‖b‖): 1 means the same direction");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name: return tr("Tensor");
    case Shape: return tr("Shape");
    case Changed: return tr("Changed");
    case MaxAbsDiff: return tr("Max |Δ|");
    case RelativeL2: return tr("Relative L2");
    case Cosine: return tr("Cosine");
    default: return {};
    }
}

LargestChangesModel::LargestChangesModel(QObject *parent) : QAbstractTableModel(parent) {}

void LargestChangesModel::setTensorDiff(const weights::TensorDiff *diff)
{
    beginResetModel();
    m_diff = diff;
    endResetModel();
}

int LargestChangesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_diff ? 0 : static_cast<int>(m_diff->largest.size());
}

int LargestChangesModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant LargestChangesModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_diff || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const auto &change = m_diff->largest[index.row()];
    QVariant raw;
    switch (index.column()) {
    case Index: {
        QStringList parts;
        for (uint32_t i : change.index)
            parts.append(QString::number(i));
        raw = QStringLiteral("(%1)").arg(parts.join(QStringLiteral(", ")));
        break;
    }
    case Meaning: {
        QStringList names;
        const QString tensor = QString::fromStdString(m_diff->name);
        for (size_t d = 0; d < change.index.size(); ++d) {
            const QString label = dimensionLabel(tensor, m_diff->shape, static_cast<int>(d), change.index[d]);
            if (!label.isEmpty())
                names.append(label);
        }
        raw = names.join(QStringLiteral(" · "));
        break;
    }
    case A: raw = static_cast<double>(change.a); break;
    case B: raw = static_cast<double>(change.b); break;
    case Difference: raw = static_cast<double>(change.b) - static_cast<double>(change.a); break;
    default: break;
    }
    switch (role) {
    case Qt::DisplayRole: return raw.typeId() == QMetaType::Double ? formatNumber(raw.toDouble(), 7) : raw.toString();
    case RawRole: return index.column() == Index ? QVariant(qulonglong(change.flatIndex)) : raw;
    case Qt::FontRole: return monospaceFont();
    case Qt::TextAlignmentRole:
        return index.column() <= Meaning ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                         : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole: return tr("flat index %1").arg(change.flatIndex);
    default: return {};
    }
}

QVariant LargestChangesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Index: return tr("Index");
    case Meaning: return tr("Meaning");
    case A: return tr("a");
    case B: return tr("b");
    case Difference: return tr("b − a");
    default: return {};
    }
}

} // namespace beamscope::ui
