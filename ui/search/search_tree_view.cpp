#include "ui/search/search_tree_view.h"

#include "ui/search/search_tree_data.h"
#include "ui/search/tree_navigation.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QToolTip>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <vector>

namespace beamscope::ui {

namespace {
// kRight leaves room for a marker at the band's right end, its selection ring and "winner" label.
constexpr int kLeft = 150, kTop = 26, kBottom = 70, kRight = 52;
constexpr double kMarkerMinSpacing = 4.0; // screen pixels between states before rows become strips
const QColor kMatchColor(200, 0, 200);
const QColor kSelectedColor(0, 90, 255);
const QColor kComparedColor(255, 120, 0);
} // namespace

QColor relativeCostColor(double relative)
{
    // 1x green, 4x amber, >= 16x red, on a log scale.
    const double t = std::isfinite(relative) ? std::clamp(std::log2(std::max(1.0, relative)) / 4.0, 0.0, 1.0) : 1.0;
    const auto mix = [](QColor a, QColor b, double u) {
        return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * u),
                                float(a.greenF() + (b.greenF() - a.greenF()) * u),
                                float(a.blueF() + (b.blueF() - a.blueF()) * u));
    };
    const QColor good(26, 152, 80), mid(254, 196, 79), bad(215, 48, 39);
    return t < 0.5 ? mix(good, mid, t * 2) : mix(mid, bad, (t - 0.5) * 2);
}

SearchTreeView::SearchTreeView(QWidget *parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    setMinimumSize(320, 240);
    setAutoFillBackground(false);
    // The tool tip names the state under the pointer (event()); elsewhere it says how to drive the view.
}

void SearchTreeView::setData(const SearchTreeData *data)
{
    m_data = data;
    m_selected = m_compared = -1;
    m_fitted = false;
    fit();
}

void SearchTreeView::dataChanged()
{
    if (!m_fitted)
        fit();
    update();
}

void SearchTreeView::fit()
{
    const QRectF b = m_data ? m_data->bounds() : QRectF(0, 0, 1000, 40);
    const double w = std::max(1, width() - kLeft - kRight), h = std::max(1, height() - kTop - kBottom);
    m_sx = w / std::max(1.0, b.width());
    m_sy = h / std::max(1.0, b.height());
    // Rows no taller than 60 px when the tree is shallow.
    m_sy = std::min(m_sy, 60.0 / SearchTreeData::kRowHeight);
    m_origin = b.topLeft();
    m_fitted = false;
    update();
}

void SearchTreeView::zoomBy(double factor, QPointF anchor)
{
    const QPointF world = screenToWorld(anchor);
    m_sx = std::clamp(m_sx * factor, 1e-4, 400.0);
    m_sy = std::clamp(m_sy * factor, 1e-4, 400.0);
    m_origin = QPointF(world.x() - (anchor.x() - kLeft) / m_sx, world.y() - (anchor.y() - kTop) / m_sy);
    m_fitted = true;
    update();
}

void SearchTreeView::setPathOnly(bool on)
{
    m_pathOnly = on;
    update();
}

void SearchTreeView::setHideUnmatched(bool on)
{
    m_hideUnmatched = on;
    update();
}

bool SearchTreeView::isShown(int64_t id) const
{
    const auto i = static_cast<size_t>(id);
    if (m_pathOnly && !m_data->onWinnerPath()[i])
        return false;
    // The filter hides the rest, but never the path to the winner: it keeps the matches in context.
    if (m_hideUnmatched && m_data->hasFuncFilter() && !m_data->funcMatches()[i] && !m_data->onWinnerPath()[i])
        return false;
    return true;
}

void SearchTreeView::ensureVisible(int64_t id)
{
    if (!m_data || !m_data->node(id))
        return;
    const QPointF at = worldToScreen(m_data->position(id));
    const QRectF plot(kLeft, kTop, width() - kLeft - kRight, height() - kTop - kBottom);
    if (plot.adjusted(8, 8, -8, -8).contains(at))
        return;
    // Keep the zoom; move the state to the middle of the plot.
    const QPointF world = m_data->position(id);
    m_origin = QPointF(world.x() - (plot.width() / 2) / m_sx, world.y() - (plot.height() / 2) / m_sy);
    m_fitted = true;
    update();
}

void SearchTreeView::setSelected(int64_t id)
{
    m_selected = id;
    update();
}

void SearchTreeView::setCompared(int64_t id)
{
    m_compared = id;
    update();
}

QPointF SearchTreeView::worldToScreen(QPointF w) const
{
    return {kLeft + (w.x() - m_origin.x()) * m_sx, kTop + (w.y() - m_origin.y()) * m_sy};
}

QPointF SearchTreeView::screenToWorld(QPointF s) const
{
    return {m_origin.x() + (s.x() - kLeft) / m_sx, m_origin.y() + (s.y() - kTop) / m_sy};
}

bool SearchTreeView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        const int64_t id = nodeAt(help->pos());
        QToolTip::showText(help->globalPos(),
                           id >= 0 && m_data ? m_data->describe(id)
                                             : tr("Wheel: zoom · drag: pan · click: select · ctrl-click: compare · F: "
                                                  "fit"),
                           this);
        return true;
    }
    return QWidget::event(event);
}

int64_t SearchTreeView::nodeAt(QPointF screen) const
{
    if (!m_data)
        return -1;
    const int64_t id = m_data->hitTest(screenToWorld(screen), 6.0 / m_sx);
    if (id < 0)
        return -1;
    // Only states actually drawn can be picked.
    if (!isShown(id))
        return -1;
    const QPointF p = worldToScreen(m_data->position(id));
    return std::abs(p.y() - screen.y()) <= std::max(6.0, SearchTreeData::kRowHeight * m_sy * 0.35) ? id : -1;
}

void SearchTreeView::paintEvent(QPaintEvent *)
{
    QElapsedTimer timer;
    timer.start();
    QPainter p(this);
    p.fillRect(rect(), QColor(250, 250, 252));
    m_lastMarkers = 0;
    if (!m_data || m_data->nodes().empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Start a search or open a trace file (.jsonl) to see its beam tree."));
        m_lastPaintMs = double(timer.nsecsElapsed()) / 1e6;
        return;
    }
    const QRect plot(kLeft, kTop, width() - kLeft - kRight, height() - kTop - kBottom);
    const double rowPx = SearchTreeData::kRowHeight * m_sy;
    paintBands(p, plot, rowPx);
    p.setClipRect(plot);
    const std::vector<Marker> markers = paintRowsAndCollectMarkers(p, plot, rowPx);
    const bool smooth = paintBeamEdges(p, markers);
    const double markerR = std::clamp(rowPx * 0.18, 1.5, 5.0);
    paintMarkers(p, markers, markerR, smooth);
    m_lastMarkers = static_cast<int64_t>(markers.size());
    paintRings(p, markerR);
    p.setClipping(false);
    paintLegend(p);
    m_lastPaintMs = double(timer.nsecsElapsed()) / 1e6;
}

// Pass bands with their labels, and the depth labels.
void SearchTreeView::paintBands(QPainter &p, const QRect &plot, double rowPx) const
{
    const SearchTreeData &d = *m_data;
    // Band backgrounds and labels.
    p.setRenderHint(QPainter::Antialiasing, false);
    for (int pass = 0; pass < d.passCount(); ++pass) {
        const double x0 = worldToScreen({SearchTreeData::bandLeft(pass), 0}).x();
        const double x1 = worldToScreen({SearchTreeData::bandLeft(pass) + SearchTreeData::kBandWidth, 0}).x();
        if (x1 < plot.left() || x0 > plot.right())
            continue;
        const QRectF band(x0, plot.top(), x1 - x0, plot.height());
        p.fillRect(band.intersected(plot), pass % 2 ? QColor(241, 243, 248) : QColor(246, 247, 251));
        p.setPen(QColor(60, 60, 70));
        p.drawText(QRectF(x0, 2, x1 - x0, kTop - 4), Qt::AlignCenter, tr("pass %1").arg(pass + 1));
    }
    // Depth labels (every row while they fit).
    p.setPen(QColor(90, 90, 100));
    const int labelEvery = std::max(1, int(std::ceil(16.0 / std::max(1e-6, rowPx))));
    for (int depth = 1; depth <= d.maxDepth(); depth += labelEvery) {
        const double y = worldToScreen({0, SearchTreeData::rowTop(depth) + SearchTreeData::kRowHeight / 2}).y();
        if (y >= plot.top() && y <= plot.bottom()) {
            // "7 blur_x · tile": what the row decides, elided to the margin.
            const QString label = QStringLiteral("%1 %2").arg(depth).arg(d.depthLabel(depth));
            p.drawText(QRectF(0, y - 8, kLeft - 6, 16), Qt::AlignRight | Qt::AlignVCenter,
                       fontMetrics().elidedText(label, Qt::ElideMiddle, kLeft - 8));
        }
    }
}

// Each visible row: a marker per state where they fit, else a strip of the
// cheapest state per pixel column (beam survivors still become markers).
std::vector<SearchTreeView::Marker> SearchTreeView::paintRowsAndCollectMarkers(QPainter &p, const QRect &plot,
                                                                               double rowPx)
{
    const SearchTreeData &d = *m_data;
    const bool filtering = d.hasFuncFilter();
    const auto &match = d.funcMatches();
    // Strip image for dense rows (one pixel column per screen column).
    if (m_strip.size() != size())
        m_strip = QImage(size(), QImage::Format_ARGB32_Premultiplied);
    m_strip.fill(Qt::transparent);
    bool stripUsed = false;
    std::vector<double> best; // per screen column: lowest relative cost
    std::vector<uint8_t> columnMatch;
    std::vector<QRgb> colours;
    std::vector<Marker> markers;
    for (const SearchTreeData::Row &row : d.rows()) {
        const double yTop = worldToScreen({0, SearchTreeData::rowTop(row.depth)}).y();
        if (yTop > plot.bottom() || yTop + rowPx < plot.top() || row.nodes.empty())
            continue;
        const double slotPx = d.slotWidth(row) * m_sx;
        const double bandX = worldToScreen({SearchTreeData::bandLeft(row.pass), 0}).x();
        // Visible slot range of this row.
        const auto n = static_cast<int64_t>(row.nodes.size());
        const int64_t i0 = std::clamp<int64_t>(int64_t(std::floor((plot.left() - bandX) / slotPx)) - 1, 0, n);
        const int64_t i1 = std::clamp<int64_t>(int64_t(std::ceil((plot.right() - bandX) / slotPx)) + 1, 0, n);
        if (i0 >= i1)
            continue;
        const double yMid = yTop + rowPx / 2;
        if (slotPx >= kMarkerMinSpacing) {
            for (int64_t i = i0; i < i1; ++i) {
                const int64_t id = row.nodes[static_cast<size_t>(i)];
                if (!isShown(id))
                    continue;
                const auto &node = d.nodes()[static_cast<size_t>(id)];
                markers.push_back({QPointF(bandX + (double(i) + 0.5) * slotPx, yMid), d.relativeCost(id), node.inBeam,
                                   filtering && match[static_cast<size_t>(id)], id});
            }
            continue;
        }
        // Strip: the cheapest state per pixel column; beam survivors still become markers.
        const int c0 = std::max(plot.left(), int(bandX + double(i0) * slotPx));
        const int c1 = std::min(plot.right(), int(bandX + double(i1) * slotPx) + 1);
        if (c1 < c0)
            continue;
        best.assign(static_cast<size_t>(c1 - c0 + 1), -1.0);
        columnMatch.assign(best.size(), 0);
        for (int64_t i = i0; i < i1; ++i) {
            const int64_t id = row.nodes[static_cast<size_t>(i)];
            const int c = int(bandX + (double(i) + 0.5) * slotPx) - c0;
            if (c < 0 || c >= static_cast<int>(best.size()))
                continue;
            const auto &node = d.nodes()[static_cast<size_t>(id)];
            if (!isShown(id))
                continue;
            if (node.inBeam)
                markers.push_back({QPointF(bandX + (double(i) + 0.5) * slotPx, yMid), d.relativeCost(id), true,
                                   filtering && match[static_cast<size_t>(id)], id});
            const double rel = d.relativeCost(id);
            double &b = best[static_cast<size_t>(c)];
            if (b < 0 || rel < b)
                b = rel;
            if (filtering && match[static_cast<size_t>(id)])
                columnMatch[static_cast<size_t>(c)] = 1;
        }
        colours.resize(best.size());
        for (size_t c = 0; c < best.size(); ++c)
            colours[c] = best[c] < 0 ? 0 : relativeCostColor(best[c]).rgb();
        const int y0 = std::max(plot.top(), int(yTop + rowPx * 0.3));
        const int y1 = std::min(plot.bottom(), int(yTop + rowPx * 0.7));
        for (int y = y0; y <= y1; ++y) {
            auto *line = reinterpret_cast<QRgb *>(m_strip.scanLine(y));
            const bool matchBand = (y - y0) < 2 + (y1 - y0) / 3; // Func matches mark the strip's top third
            for (size_t c = 0; c < best.size(); ++c) {
                if (best[c] < 0)
                    continue;
                line[c0 + int(c)] = matchBand && columnMatch[c] ? kMatchColor.rgb() : colours[c];
            }
        }
        stripUsed = true;
    }
    if (stripUsed)
        p.drawImage(0, 0, m_strip);
    return markers;
}

// Beam edges; returns whether the markers are few enough to draw antialiased.
bool SearchTreeView::paintBeamEdges(QPainter &p, const std::vector<Marker> &markers) const
{
    const SearchTreeData &d = *m_data;
    const auto &onPath = d.onWinnerPath();
    // Beam edges: each drawn survivor to its parent (line lists, not a path: a
    // path of thousands of segments is slow to stroke).
    std::vector<QLineF> edges, pathEdges;
    for (const Marker &m : markers) {
        if (!m.beam)
            continue;
        const auto &node = d.nodes()[static_cast<size_t>(m.id)];
        if (node.parent < 0)
            continue;
        (onPath[static_cast<size_t>(m.id)] ? pathEdges : edges)
            .emplace_back(worldToScreen(d.position(node.parent)), m.at);
    }
    // Antialiasing only while the markers are few enough to stay quick.
    const bool smooth = markers.size() < 1500;
    p.setRenderHint(QPainter::Antialiasing, smooth);
    p.setPen(QPen(QColor(120, 120, 140, 110), 1));
    p.drawLines(edges.data(), static_cast<int>(edges.size()));
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(QPen(QColor(20, 20, 20), 2.5));
    p.drawLines(pathEdges.data(), static_cast<int>(pathEdges.size()));
    p.setRenderHint(QPainter::Antialiasing, smooth);
    return smooth;
}

void SearchTreeView::paintMarkers(QPainter &p, const std::vector<Marker> &markers, double markerR, bool smooth) const
{
    const SearchTreeData &d = *m_data;
    const auto &onPath = d.onWinnerPath();
    // Pruned markers first (small, translucent), then survivors (outlined, larger).
    p.setPen(Qt::NoPen);
    for (const Marker &m : markers) {
        if (m.beam)
            continue;
        QColor c = relativeCostColor(m.rel);
        c.setAlpha(170);
        p.setBrush(c);
        p.drawEllipse(m.at, markerR * 0.8, markerR * 0.8);
    }
    for (const Marker &m : markers) {
        if (!m.beam)
            continue;
        const QColor outline = onPath[static_cast<size_t>(m.id)] ? QColor(0, 0, 0) : QColor(40, 40, 50);
        if (!smooth) {
            // Many survivors: outlined squares (two fills each), far cheaper than ellipses.
            const double r = markerR * 1.5;
            p.fillRect(QRectF(m.at.x() - r, m.at.y() - r, 2 * r, 2 * r), outline);
            p.fillRect(QRectF(m.at.x() - r + 1, m.at.y() - r + 1, 2 * r - 2, 2 * r - 2), relativeCostColor(m.rel));
            continue;
        }
        p.setBrush(relativeCostColor(m.rel));
        p.setPen(QPen(outline, 1.4));
        p.drawEllipse(m.at, markerR * 1.5, markerR * 1.5);
    }
    // A continued search's fixed prefix (decisions taken from its start state): a dashed square around each.
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QColor(90, 90, 110), 1.2, Qt::DashLine));
    for (const Marker &m : markers)
        if (d.nodes()[static_cast<size_t>(m.id)].fixed) {
            const double r = markerR * 2.2 + 1;
            p.drawRect(QRectF(m.at.x() - r, m.at.y() - r, 2 * r, 2 * r));
        }
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(kMatchColor, 2));
    for (const Marker &m : markers)
        if (m.match)
            p.drawEllipse(m.at, markerR * 2.2, markerR * 2.2);
}

// The winner, the selection (A) and the comparison (B).
void SearchTreeView::paintRings(QPainter &p, double markerR) const
{
    const SearchTreeData &d = *m_data;
    // Winner, selection, comparison.
    const auto ring = [&](int64_t id, QColor color, const QString &label) {
        if (!d.node(id))
            return;
        const QPointF at = worldToScreen(d.position(id));
        p.setPen(QPen(color, 3));
        p.drawEllipse(at, markerR * 2.8 + 2, markerR * 2.8 + 2);
        p.drawText(at + QPointF(markerR * 2.8 + 5, -4), label);
    };
    // Measured states: a dashed teal ring, outside the selection rings, so the state just measured
    // (the selected one) shows it too.
    for (int64_t id : d.measured()) {
        if (!d.node(id))
            continue;
        p.setPen(QPen(QColor(0, 130, 140), 2, Qt::DashLine));
        p.drawEllipse(worldToScreen(d.position(id)), markerR * 3.6 + 4, markerR * 3.6 + 4);
    }
    ring(d.winner(), QColor(0, 0, 0), tr("winner"));
    ring(m_compared, kComparedColor, tr("B"));
    ring(m_selected, kSelectedColor, tr("A"));
}

void SearchTreeView::paintLegend(QPainter &p)
{
    p.setRenderHint(QPainter::Antialiasing, true);
    int y = height() - kBottom + 8;
    int x = 8; // under the depth labels too
    p.setPen(QColor(50, 50, 60));
    const QString title = tr("cost ÷ row best:");
    p.drawText(QPoint(x, y + 11), title);
    x += p.fontMetrics().horizontalAdvance(title) + 8;
    const int w = 160;
    for (int i = 0; i < w; ++i)
        p.fillRect(x + i, y, 1, 14, relativeCostColor(std::exp2(4.0 * i / (w - 1))));
    p.setPen(QColor(50, 50, 60));
    p.drawText(QPoint(x, y + 26), QStringLiteral("1×"));
    p.drawText(QPoint(x + w / 2 - 6, y + 26), QStringLiteral("4×"));
    p.drawText(QPoint(x + w - 22, y + 26), QStringLiteral("≥16×"));
    x += w + 24;
    // The marks, left to right; one that does not fit the width goes to the line below.
    const auto place = [&](int markWidth, const QString &label) {
        const int width = markWidth + p.fontMetrics().horizontalAdvance(label) + 18;
        if (x + width > this->width() - 4) {
            x = 8;
            y += 30;
        }
        const int at = x;
        x += width;
        return at;
    };
    int at = place(16, tr("survivor"));
    p.setBrush(relativeCostColor(1));
    p.setPen(QPen(QColor(40, 40, 50), 1.4));
    p.drawEllipse(QPointF(at + 6, y + 7), 6, 6);
    p.setPen(QColor(50, 50, 60));
    p.drawText(QPoint(at + 16, y + 12), tr("survivor"));
    at = place(12, tr("pruned"));
    p.setPen(Qt::NoPen);
    p.setBrush(relativeCostColor(3));
    p.drawEllipse(QPointF(at + 4, y + 7), 3, 3);
    p.setPen(QColor(50, 50, 60));
    p.drawText(QPoint(at + 12, y + 12), tr("pruned"));
    at = place(16, tr("Func match"));
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(kMatchColor, 2));
    p.drawEllipse(QPointF(at + 6, y + 7), 6, 6);
    p.setPen(QColor(50, 50, 60));
    p.drawText(QPoint(at + 16, y + 12), tr("Func match"));
    at = place(24, tr("path to winner"));
    p.setPen(QPen(QColor(20, 20, 20), 2.5));
    p.drawLine(at, y + 7, at + 18, y + 7);
    p.setPen(QColor(50, 50, 60));
    p.drawText(QPoint(at + 24, y + 12), tr("path to winner"));
    at = place(16, tr("measured"));
    p.setPen(QPen(QColor(0, 130, 140), 2, Qt::DashLine));
    p.drawEllipse(QPointF(at + 6, y + 7), 6, 6);
    p.setPen(QColor(50, 50, 60));
    p.drawText(QPoint(at + 16, y + 12), tr("measured"));
}

void SearchTreeView::wheelEvent(QWheelEvent *event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (steps != 0)
        zoomBy(std::pow(1.25, steps), event->position());
    event->accept();
}

void SearchTreeView::mousePressEvent(QMouseEvent *event)
{
    m_pressPos = event->position().toPoint();
    m_lastDrag = m_pressPos;
    m_dragging = false;
    setFocus();
}

void SearchTreeView::mouseMoveEvent(QMouseEvent *event)
{
    if (!(event->buttons() & Qt::LeftButton))
        return;
    const QPoint pos = event->position().toPoint();
    if (!m_dragging && (pos - m_pressPos).manhattanLength() < 4)
        return;
    m_dragging = true;
    const QPoint delta = pos - m_lastDrag;
    m_lastDrag = pos;
    m_origin -= QPointF(delta.x() / m_sx, delta.y() / m_sy);
    m_fitted = true;
    update();
}

void SearchTreeView::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_dragging || event->button() != Qt::LeftButton) {
        m_dragging = false;
        return;
    }
    const int64_t id = nodeAt(event->position());
    if (id < 0)
        return;
    if (event->modifiers() & Qt::ControlModifier) {
        setCompared(id);
        Q_EMIT compareSelected(id);
    } else {
        setSelected(id);
        Q_EMIT nodeSelected(id);
    }
}

void SearchTreeView::keyPressEvent(QKeyEvent *event)
{
    const QPointF centre(width() / 2.0, height() / 2.0);
    if (m_data && m_selected >= 0) {
        // Arrows walk the tree from the selected state; Shift+Left/Right skip to the
        // beam's pruned siblings (the states the search dropped beside this one).
        const bool pruned = event->modifiers() & Qt::ShiftModifier;
        int64_t to = -1;
        switch (event->key()) {
        case Qt::Key_Up: to = navigation::parent(*m_data, m_selected); break;
        case Qt::Key_Down: to = navigation::preferredChild(*m_data, m_selected); break;
        case Qt::Key_Left: to = navigation::sibling(*m_data, m_selected, -1, pruned); break;
        case Qt::Key_Right: to = navigation::sibling(*m_data, m_selected, 1, pruned); break;
        default: break;
        }
        if (to >= 0) {
            ensureVisible(to);
            Q_EMIT nodeSelected(to);
            event->accept();
            return;
        }
    }
    switch (event->key()) {
    case Qt::Key_F: fit(); break;
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomBy(1.25, centre); break;
    case Qt::Key_Minus: zoomBy(0.8, centre); break;
    default: QWidget::keyPressEvent(event);
    }
}

void SearchTreeView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    if (!m_fitted)
        fit();
}

} // namespace beamscope::ui
