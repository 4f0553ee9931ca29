#include "ui/search/feature_table_model.h"

#include "core/model/schedule_feature_names.h"

#include "core/search/schedule_features.h"
#include "ui/common/number_format.h"

#include <QBrush>
#include <QColor>

#include <cmath>

namespace beamscope::ui {

FeatureTableModel::FeatureTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void FeatureTableModel::setValues(std::optional<Row73> a, std::optional<Row73> b)
{
    beginResetModel();
    m_a = a;
    m_b = a ? b : std::nullopt;
    endResetModel();
}

double FeatureTableModel::normalized(double raw)
{
    // Halide's network reads log(1 + x) of every schedule feature.
    return std::log1p(raw);
}

int FeatureTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_a ? 0 : search::kScheduleFeatureCount;
}

int FeatureTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : (m_b ? 6 : 3); }

QVariant FeatureTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_a || index.row() >= search::kScheduleFeatureCount || index.column() >= columnCount())
        return {};
    const auto r = static_cast<size_t>(index.row());
    const double a = (*m_a)[r], b = m_b ? double((*m_b)[r]) : 0.0;
    const auto value = [&](int column) -> double {
        switch (column) {
        case RawA: return a;
        case LogA: return normalized(a);
        case RawB: return b;
        case LogB: return normalized(b);
        case DeltaLog: return normalized(b) - normalized(a);
        default: return 0;
        }
    };
    if (role == Qt::DisplayRole) {
        if (index.column() == Name)
            return QString::fromLatin1(search::featureName(index.row()));
        return QString::number(value(index.column()), 'g', 6);
    }
    if (role == Qt::EditRole || role == Qt::UserRole) {
        if (index.column() == Name)
            return QString::fromLatin1(search::featureName(index.row()));
        return value(index.column());
    }
    if (role == Qt::TextAlignmentRole && index.column() != Name)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && index.column() == DeltaLog) {
        const double d = value(DeltaLog);
        if (std::abs(d) > 1e-6)
            return QBrush(d > 0 ? QColor(180, 40, 30) : QColor(20, 120, 60));
    }
    if (role == Qt::ToolTipRole && index.column() == Name)
        return tr("%1: %2 (schedule feature %3 of 73)")
            .arg(QString::fromLatin1(search::featureName(index.row())),
                 QString::fromLatin1(model::scheduleFeatureMeaning(index.row())))
            .arg(index.row());
    // Compared, the raw columns give way to the logs the network sees: the raw values are here.
    if (role == Qt::ToolTipRole && (index.column() == LogA || index.column() == LogB || index.column() == DeltaLog))
        return m_b ? tr("raw: A %1, B %2").arg(a, 0, 'g', 9).arg(b, 0, 'g', 9) : tr("raw: %1").arg(a, 0, 'g', 9);
    return {};
}

QVariant FeatureTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section;
    switch (section) {
    case Name: return tr("Feature");
    case RawA: return m_b ? tr("A raw") : tr("Raw");
    case LogA: return m_b ? tr("A log(1+x)") : tr("log(1+x)");
    case RawB: return tr("B raw");
    case LogB: return tr("B log(1+x)");
    case DeltaLog: return tr("Δ log (B − A)");
    default: return {};
    }
}

FeatureDiffProxy::FeatureDiffProxy(QObject *parent) : QSortFilterProxyModel(parent) { setSortRole(Qt::UserRole); }

void FeatureDiffProxy::setDifferingOnly(bool on)
{
    if (on == m_differingOnly)
        return;
    m_differingOnly = on;
    invalidateFilter();
}

bool FeatureDiffProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const auto *features = static_cast<const FeatureTableModel *>(sourceModel());
    if (!m_differingOnly || !features || !features->hasB())
        return true;
    const QModelIndex raw = features->index(sourceRow, FeatureTableModel::RawA, sourceParent);
    const QModelIndex rawB = features->index(sourceRow, FeatureTableModel::RawB, sourceParent);
    return raw.data(Qt::UserRole).toDouble() != rawB.data(Qt::UserRole).toDouble();
}

bool FeatureDiffProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    if (left.column() == FeatureTableModel::DeltaLog)
        return std::abs(left.data(Qt::UserRole).toDouble()) < std::abs(right.data(Qt::UserRole).toDouble());
    return QSortFilterProxyModel::lessThan(left, right);
}

} // namespace beamscope::ui
