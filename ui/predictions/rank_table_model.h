#pragma once
// Per-pipeline ranking quality of one or two weights files on the same
// samples: pipeline, app, n (schedules), then Spearman / Kendall τ-b /
// pairwise accuracy / top-1 for each weights file, Spearman, Kendall and top-1
// with their 95% bootstrap intervals beside them ("0.566 [0.21, 0.83]"); a last
// column of caveats (in-sample, too few schedules, two files not told apart);
// a last row holds the means over pipelines (core's summarizeRanks).

#include "ui/predictions/prediction_job.h"

#include <QAbstractTableModel>

namespace beamscope::ui {

class RankTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum FixedColumn { PipelineColumn, AppColumn, SchedulesColumn, FixedColumnCount };
    enum Metric { Spearman, Kendall, Pairwise, Top1, MetricCount };
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
    int caveatsColumn() const { return FixedColumnCount + weightsCount() * MetricCount; }
    // What to know before trusting a row's figures ("" when nothing).
    QString caveats(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    double metricValue(int row, int weightsIndex, Metric metric) const;
    samples::Interval metricInterval(int row, int weightsIndex, Metric metric) const;

    std::vector<MeasuredPipeline> m_pipelines;
    std::vector<WeightsPredictions> m_weights; // only the usable ones
};

} // namespace beamscope::ui
