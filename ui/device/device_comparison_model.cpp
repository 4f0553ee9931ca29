#include "ui/device/device_comparison_model.h"

#include "core/gpu/search_parameters.h"
#include "ui/common/number_format.h"

#include <QBrush>
#include <QColor>
#include <QFont>

namespace beamscope::ui {

namespace {
QString kib(long long bytes) { return QStringLiteral("%1 KiB").arg(bytes / 1024); }
QString fixed(double v, const char *unit) { return QStringLiteral("%1 %2").arg(v, 0, 'f', 1).arg(QLatin1String(unit)); }
} // namespace

DeviceComparisonModel::DeviceComparisonModel(Kind kind, QObject *parent) : QAbstractTableModel(parent), m_kind(kind)
{
    m_names = kind == Kind::Facts ? factNames() : searchParameterNames();
}

QStringList DeviceComparisonModel::factNames()
{
    return {tr("name"),
            tr("compute capability"),
            tr("SMs"),
            tr("shared memory / block"),
            tr("shared memory / block (opt-in)"),
            tr("shared memory / SM"),
            tr("registers / block"),
            tr("registers / SM"),
            tr("warp size"),
            tr("max threads / block"),
            tr("max threads / SM"),
            tr("max blocks / SM"),
            tr("SM clock"),
            tr("memory clock"),
            tr("memory bus"),
            tr("memory bandwidth"),
            tr("L2 cache"),
            tr("global memory")};
}

QStringList DeviceComparisonModel::factValues(const gpu::DeviceFacts &d)
{
    return {QString::fromStdString(d.name),
            QStringLiteral("%1.%2").arg(d.computeMajor).arg(d.computeMinor),
            QString::number(d.smCount),
            kib(d.sharedMemoryPerBlockBytes),
            kib(d.sharedMemoryPerBlockOptinBytes),
            kib(d.sharedMemoryPerSmBytes),
            QString::number(d.registersPerBlock),
            QString::number(d.registersPerSm),
            QString::number(d.warpSize),
            QString::number(d.maxThreadsPerBlock),
            QString::number(d.maxThreadsPerSm),
            QString::number(d.maxBlocksPerSm),
            fixed(d.clockKHz / 1000.0, "MHz"),
            fixed(d.memoryClockKHz / 1000.0, "MHz"),
            QStringLiteral("%1 bit").arg(d.memoryBusWidthBits),
            fixed(d.memoryBandwidthGBps(), "GB/s"),
            QStringLiteral("%1 MiB").arg(d.l2CacheBytes / 1024 / 1024),
            QStringLiteral("%1 MiB").arg(d.globalMemoryBytes / 1024 / 1024)};
}

QStringList DeviceComparisonModel::searchParameterNames()
{
    return {QStringLiteral("parallelism"), QStringLiteral("shared_memory_limit_kb"),
            QStringLiteral("shared_memory_sm_limit_kb"), QStringLiteral("active_block_limit"),
            QStringLiteral("active_warp_limit")};
}

QStringList DeviceComparisonModel::searchParameterValues(const gpu::DeviceFacts &d)
{
    const gpu::DeviceSearchParameters p = gpu::searchParametersFor(d);
    return {QString::number(p.parallelism), QString::number(p.sharedMemoryLimitKb),
            QString::number(p.sharedMemorySmLimitKb), QString::number(p.activeBlockLimit),
            QString::number(p.activeWarpLimit)};
}

void DeviceComparisonModel::setDevices(const std::optional<gpu::DeviceFacts> &local, const gpu::DeviceFacts &reference,
                                       const QString &referenceName)
{
    beginResetModel();
    const bool facts = m_kind == Kind::Facts;
    m_hasLocal = local.has_value();
    m_openCl = false;
    m_local = local ? (facts ? factValues(*local) : searchParameterValues(*local)) : QStringList();
    if (!local)
        for (int i = 0; i < m_names.size(); ++i)
            m_local.append(QStringLiteral("—"));
    m_reference = facts ? factValues(reference) : searchParameterValues(reference);
    m_referenceName = referenceName;
    endResetModel();
}

void DeviceComparisonModel::setOpenClDevice(const gpu::OpenClQuery &device)
{
    if (m_hasLocal || m_kind != Kind::Facts || !device.ok || m_local.size() != m_names.size())
        return;
    beginResetModel();
    m_openCl = true;
    m_local[rowOf(tr("name"))] =
        QStringLiteral("%1 (OpenCL: %2)")
            .arg(QString::fromStdString(device.device), QString::fromStdString(device.platform));
    m_local[rowOf(tr("SMs"))] = tr("%1 compute units").arg(device.computeUnits);
    endResetModel();
}

int DeviceComparisonModel::rowOf(const QString &property) const { return static_cast<int>(m_names.indexOf(property)); }

int DeviceComparisonModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || m_reference.isEmpty() ? 0 : static_cast<int>(m_names.size());
}

int DeviceComparisonModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DeviceComparisonModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const int r = index.row();
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case PropertyColumn: return m_names[r];
        case LocalColumn: return m_local[r];
        case ReferenceColumn: return m_reference[r];
        default: return {};
        }
    }
    if (role == Qt::FontRole && index.column() != PropertyColumn)
        return monospaceFont();
    if (role == Qt::ForegroundRole && index.column() == LocalColumn && !m_hasLocal)
        return QBrush(QColor(140, 140, 140));
    // Where the local device differs from the reference, the local cell is tinted:
    // those are the figures behind a different search.
    if (role == Qt::BackgroundRole && index.column() == LocalColumn && m_hasLocal && m_local[r] != m_reference[r])
        return QBrush(QColor(255, 243, 205));
    return {};
}

QVariant DeviceComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case PropertyColumn: return m_kind == Kind::Facts ? tr("Property") : tr("Search parameter");
    case LocalColumn: return m_openCl ? tr("Local device (OpenCL)") : tr("Local device");
    case ReferenceColumn: return tr("%1 (reference)").arg(m_referenceName);
    default: return {};
    }
}

} // namespace beamscope::ui
