#pragma once
// The pipeline registry as a two-level tree for the app picker: origin groups
// ("Apps", "Golden pipelines", ...) with their pipelines as children; columns
// name, stages (cost-model stages), description.

#include "core/pipelines/pipeline_summary.h"

#include <QStandardItemModel>

#include <vector>

namespace beamscope::ui {

class PipelineListModel : public QStandardItemModel {
    Q_OBJECT
public:
    enum Role {
        NameRole = Qt::UserRole + 1, // QString registry name (children only)
        GpuScheduleRole,             // bool
        StageCountRole,              // int
    };
    enum Column { NameColumn, StagesColumn, DescriptionColumn, ColumnCount };

    explicit PipelineListModel(QObject *parent = nullptr);

    void setListings(const std::vector<pipelines::PipelineListing> &listings);
    const std::vector<pipelines::PipelineListing> &listings() const { return m_listings; }
    // The name column's index of a pipeline, invalid when absent.
    QModelIndex indexOf(const QString &name) const;

private:
    std::vector<pipelines::PipelineListing> m_listings;
};

} // namespace beamscope::ui
