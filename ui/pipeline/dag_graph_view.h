#pragma once
// A pipeline's stages as a graph: one node per stage, laid out in layers by
// depth (inputs first, the output last; left to right, or top to bottom when
// that fits the view better), producer -> consumer
// edges as arrows (dashed from a definition to its Func's next update), input
// wrappers drawn apart. Wheel zooms, dragging pans, fitAll() shows everything.
// Items are plain QGraphicsItems (no widgets in the scene), so large apps stay cheap.

#include "core/pipelines/pipeline_summary.h"

#include <QGraphicsView>

#include <vector>

namespace beamscope::ui {

class StageNodeItem;

class DagGraphView : public QGraphicsView {
    Q_OBJECT
public:
    explicit DagGraphView(QWidget *parent = nullptr);

    void setSummary(const pipelines::PipelineSummary &summary);
    void clear();

    int nodeCount() const { return static_cast<int>(m_nodes.size()); }
    int edgeCount() const { return m_edgeCount; }
    // Scene position of a stage's node (for tests and screenshots).
    QPointF nodeCentre(int stage) const;
    int selectedStage() const { return m_selected; }
    // Layers top to bottom (true) or left to right, chosen per graph to fit the view.
    bool isVertical() const { return m_vertical; }

    void zoomBy(double factor);
    double zoom() const;

public Q_SLOTS:
    void selectStage(int stage); // -1 clears; emits stageSelected when it changes
    void fitAll();

Q_SIGNALS:
    void stageSelected(int stage);

protected:
    void wheelEvent(QWheelEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void onSceneSelectionChanged();

    QGraphicsScene *m_scene = nullptr;
    std::vector<StageNodeItem *> m_nodes; // by stage index
    int m_edgeCount = 0;
    int m_selected = -1;
    bool m_userZoomed = false;
    bool m_vertical = false;
};

} // namespace beamscope::ui
