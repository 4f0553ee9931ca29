#pragma once
// One stage's PipelineFeatures v3 as a 40 x 7 table: rows are the op histogram
// (24 rows) then the access patterns (4 groups of 4 access types), named with
// core's featureRowName; columns are the seven scalar types. Cells carry the
// count (DisplayRole: empty for zero, so non-zero counts stand out; ValueRole:
// the integer) and a sequential colour (BackgroundRole) on a log scale.

#include "core/dag/pipeline_features.h"

#include <QAbstractTableModel>
#include <QColor>

namespace beamscope::ui {

class FeatureMatrixModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role {
        ValueRole = Qt::UserRole + 1, // int: the count
        GroupRole,                    // QString on the vertical header: "op histogram", "pointwise", ...
        GroupStartRole,               // bool on the vertical header: first row of its group
    };

    explicit FeatureMatrixModel(QObject *parent = nullptr);

    // hasStage false: an empty table (no stage selected, or an input).
    void setFeatures(const dag::PipelineFeatures &features, const QString &stage);
    void clear();
    bool hasStage() const { return m_hasStage; }
    const QString &stage() const { return m_stage; }
    const dag::PipelineFeatures &features() const { return m_features; }
    int maxCount() const { return m_max; }

    // Colour of a count against the largest count (white for 0).
    static QColor cellColour(int count, int maxCount);
    static QString groupName(int row);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    dag::PipelineFeatures m_features{};
    QString m_stage;
    bool m_hasStage = false;
    int m_max = 0;
};

} // namespace beamscope::ui
