#pragma once
// Per-pipeline ranking quality of one or two weights files on the same
// samples: pipeline, app, schedule count, then Spearman / Kendall τ-b /
// pairwise accuracy for each weights file; a last row holds the means over
// pipelines (core's summarizeRanks).

#include "ui/predictions/prediction_job.h"

#include <QAbstractTableModel>

namespace beamscope::ui {

class RankTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum FixedColumn { PipelineColumn, AppColumn, SchedulesColumn, FixedColumnCount };
    enum Metric { Spearman, Kendall, Pairwise, MetricCount };
    enum Role { ValueRole = Qt::UserRole + 1 }; // the unformatted number (NaN when undefined)

    explicit RankTableModel(QObject *parent = nullptr);

    void setResult(const PredictionResult &result);
    int weightsCount() const { return static_cast<int>(m_weights.size()); }
    int pipelineCount() const { return static_cast<int>(m_pipelines.size()); }
    // Column of a metric of the k-th weights file.
    static int metricColumn(int weightsIndex, Metric metric)
    {
        return FixedColumnCount + weightsIndex * MetricCount + metric;
    }
    bool isSummaryRow(int row) const { return row == pipelineCount(); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    double metricValue(int row, int weightsIndex, Metric metric) const;

    std::vector<MeasuredPipeline> m_pipelines;
    std::vector<WeightsPredictions> m_weights; // only the usable ones
};

} // namespace beamscope::ui
