#pragma once
// Two weights files side by side: per-tensor figures (max |Δ|, relative L2,
// cosine, changed count), a heatmap of b − a for the selected tensor, and its
// largest changes.

#include "core/weights/statistics.h"
#include "ui/weights/loaded_weights.h"

#include <QWidget>

class QLabel;
class QSplitter;
class QTableView;

namespace beamscope::ui {

class DiffSummaryModel;
class HeatmapPanel;
class LargestChangesModel;

class DiffView : public QWidget {
    Q_OBJECT
public:
    explicit DiffView(QWidget *parent = nullptr);

    // Either may be null (still loading, or cleared).
    void setPair(LoadedWeightsPtr a, LoadedWeightsPtr b);
    void clear();
    bool hasDiff() const { return m_hasDiff; }
    const weights::WeightsDiff &diff() const { return m_diff; }
    const LoadedWeightsPtr &a() const { return m_a; }
    const LoadedWeightsPtr &b() const { return m_b; }

    void selectTensor(int row);
    int selectedTensor() const { return m_selected; }

    DiffSummaryModel *summaryModel() const { return m_summaryModel; }
    LargestChangesModel *changesModel() const { return m_changesModel; }
    HeatmapPanel *heatmapPanel() const { return m_heatmap; }
    QLabel *messageLabel() const { return m_message; }
    QList<QSplitter *> splitters() const;

private:
    void showSelected();

    LoadedWeightsPtr m_a, m_b;
    weights::WeightsDiff m_diff;
    bool m_hasDiff = false;
    int m_selected = -1;
    QLabel *m_header = nullptr;
    QLabel *m_message = nullptr;
    DiffSummaryModel *m_summaryModel = nullptr;
    LargestChangesModel *m_changesModel = nullptr;
    QTableView *m_summary = nullptr;
    QTableView *m_changes = nullptr;
    HeatmapPanel *m_heatmap = nullptr;
    QSplitter *m_vertical = nullptr;
    QSplitter *m_horizontal = nullptr;
};

} // namespace beamscope::ui
