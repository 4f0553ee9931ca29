#pragma once
// Draws a HeatmapGrid with a diverging colour map centred on 0 (blue negative,
// white zero, red positive), axis ticks, and a legend. Hovering a cell reports
// its tensor index and value (signal, tool tip).

#include "ui/weights/heatmap_grid.h"

#include <QRect>
#include <QWidget>

#include <optional>

namespace beamscope::ui {

struct HeatmapHover {
    int row = -1, column = -1;
    std::vector<uint32_t> index; // tensor index, dimension 0 first
    float value = 0;
    QString text; // "head2_filter(3, 12) = 0.0123 · schedule feature 12: ..."
};

class HeatmapWidget : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapWidget(QWidget *parent = nullptr);

    void setGrid(HeatmapGrid grid);
    const HeatmapGrid &grid() const { return m_grid; }
    // The colour scale spans [-limit, +limit]; 0 (the default) means the grid's
    // largest finite |value|. Cells beyond the limit take the end colours.
    void setSymmetricLimit(double limit);
    double colourLimit() const { return m_limit; }
    bool colourClipped() const { return m_clipped; } // some cells lie beyond the scale
    void setLegendTitle(const QString &title);
    void setEmptyText(const QString &text);
    // Put before "tensor(i, j) = v" in the hover text (the diff view says "b − a at ").
    void setHoverPrefix(const QString &prefix) { m_hoverPrefix = prefix; }

    // Geometry for the current size: the area holding the cells, and one cell.
    QRect plotRect() const;
    QRect cellRect(int row, int column) const;
    std::optional<HeatmapHover> hoverAt(const QPoint &position) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    // Empty text when the pointer leaves the cells.
    void hovered(const QString &text);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;

private:
    void updateLimit();
    QString axisTickLabel(int dim, int index) const;
    int tickStep(int count, int pixels, int labelPixels) const;
    void drawLegend(QPainter &painter, const QRect &plot) const;

    HeatmapGrid m_grid;
    double m_requestedLimit = 0;
    double m_limit = 1;
    bool m_clipped = false;
    QString m_legendTitle;
    QString m_emptyText;
    QString m_hoverPrefix;
    int m_hoverRow = -1, m_hoverColumn = -1;
};

} // namespace beamscope::ui
