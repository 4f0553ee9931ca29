#pragma once
// The stages of the shown pipeline as a list beside the graph: stage name,
// its Func, the cost model's stage index (blank for inputs) and depth.

#include "core/pipelines/pipeline_summary.h"

#include <QAbstractTableModel>

namespace beamscope::ui {

class StageTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { StageColumn, CostModelColumn, DepthColumn, ColumnCount };

    explicit StageTableModel(QObject *parent = nullptr);

    void setSummary(const pipelines::PipelineSummary &summary);
    void clear();

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<pipelines::StageSummary> m_stages;
};

} // namespace beamscope::ui
