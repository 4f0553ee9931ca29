#pragma once
// The local GPU beside a reference profile as a table: one row per device
// fact (or per search parameter each implies), columns property / local /
// reference. The local column reads "—" throughout when there is no device;
// the status line says why (DeviceWorkspace shows it above the table).

#include "core/gpu/device_facts.h"
#include "core/gpu/opencl_query.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <optional>

namespace beamscope::ui {

class DeviceComparisonModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum class Kind { Facts, SearchParameters };
    enum Column { PropertyColumn, LocalColumn, ReferenceColumn, ColumnCount };

    explicit DeviceComparisonModel(Kind kind, QObject *parent = nullptr);

    void setDevices(const std::optional<gpu::DeviceFacts> &local, const gpu::DeviceFacts &reference,
                    const QString &referenceName);

    // Without a CUDA device, the OpenCL device measurements run on fills what OpenCL reports of the
    // local column (name, compute units); the rest reads "—".
    void setOpenClDevice(const gpu::OpenClQuery &device);

    // A row's cells by property name ("SMs", "search: parallelism"), for tests.
    int rowOf(const QString &property) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    static QStringList factNames();
    static QStringList searchParameterNames();
    static QStringList factValues(const gpu::DeviceFacts &device);
    static QStringList searchParameterValues(const gpu::DeviceFacts &device);

private:
    Kind m_kind;
    QStringList m_names, m_local, m_reference;
    QString m_referenceName;
    bool m_hasLocal = false;
    bool m_openCl = false;
};

} // namespace beamscope::ui
