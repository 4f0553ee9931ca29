#pragma once
// The beam tree, painted directly (no item per state, so 200,000 states stay
// fluid): passes are bands side by side, decision depths are rows
// (SearchTreeData's layout). Level of detail: where a row's states are closer
// than a few pixels on screen, the row is drawn as a strip with one pixel
// column per screen column (the cheapest state there decides its colour);
// otherwise each state is a marker. Beam survivors are always drawn as
// outlined markers joined to their parents. Colour: predicted cost relative to
// the cheapest state of the same row (the legend's scale), because a state's
// absolute cost grows with the stages it has scheduled.
//
// Mouse: wheel zooms about the cursor, drag pans, click selects, ctrl-click
// picks the state to compare with. Keys: F fits, +/- zoom; from the selected
// state Up goes to its parent, Down to a child (the winner's path first),
// Left/Right to its siblings, Shift+Left/Right to its pruned siblings
// (tree_navigation.h).

#include <QElapsedTimer>
#include <QImage>
#include <QPointF>
#include <QRect>
#include <QWidget>

#include <cstdint>
#include <vector>

namespace beamscope::ui {

class SearchTreeData;

class SearchTreeView : public QWidget {
    Q_OBJECT
public:
    explicit SearchTreeView(QWidget *parent = nullptr);

    // The data is owned by the caller and must outlive the view (or be reset with null).
    void setData(const SearchTreeData *data);
    // Call after the data grew or a filter changed.
    void dataChanged();

    void fit();
    void zoomBy(double factor, QPointF screenAnchor);
    void setPathOnly(bool on);
    bool pathOnly() const { return m_pathOnly; }
    // With a filter set (SearchTreeData::setFuncFilter), draw only its matches and the winner's path.
    void setHideUnmatched(bool on);
    bool hideUnmatched() const { return m_hideUnmatched; }
    // Whether a state is drawn (and can be picked) under the path-only and filter settings.
    bool isShown(int64_t id) const;
    // Pans, keeping the zoom, so that the state is inside the plot.
    void ensureVisible(int64_t id);

    void setSelected(int64_t id);
    void setCompared(int64_t id);
    int64_t selected() const { return m_selected; }
    int64_t compared() const { return m_compared; }

    QPointF worldToScreen(QPointF world) const;
    QPointF screenToWorld(QPointF screen) const;
    double scaleX() const { return m_sx; }

    // Milliseconds the last paintEvent took (the paint benchmark reads it).
    double lastPaintMs() const { return m_lastPaintMs; }
    // Markers drawn individually in the last paint (the rest went into strips).
    int64_t lastMarkerCount() const { return m_lastMarkers; }

    QSize sizeHint() const override { return {900, 600}; }

Q_SIGNALS:
    void nodeSelected(qint64 id);
    void compareSelected(qint64 id);

protected:
    bool event(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    struct Marker {
        QPointF at;
        double rel;
        bool beam, match;
        int64_t id;
    };
    void paintBands(class QPainter &p, const QRect &plot, double rowPx) const;
    std::vector<Marker> paintRowsAndCollectMarkers(class QPainter &p, const QRect &plot, double rowPx);
    bool paintBeamEdges(class QPainter &p, const std::vector<Marker> &markers) const;
    void paintMarkers(class QPainter &p, const std::vector<Marker> &markers, double markerR, bool smooth) const;
    void paintRings(class QPainter &p, double markerR) const;
    void paintLegend(class QPainter &p);
    int64_t nodeAt(QPointF screen) const;

    const SearchTreeData *m_data = nullptr;
    double m_sx = 1, m_sy = 1; // screen pixels per world unit
    QPointF m_origin;          // world point at the screen's top-left (after the margin)
    bool m_fitted = false;     // follow the data's growth until the user zooms or pans
    bool m_pathOnly = false;
    bool m_hideUnmatched = false;
    int64_t m_selected = -1, m_compared = -1;
    QPoint m_pressPos, m_lastDrag;
    bool m_dragging = false;
    double m_lastPaintMs = 0;
    int64_t m_lastMarkers = 0;
    QImage m_strip;
};

// Colour of a cost relative to its row's best (1 = best), shared with the legend.
QColor relativeCostColor(double relative);

} // namespace beamscope::ui
