#include "ui/pipeline/dag_graph_view.h"

#include "ui/common/number_format.h"

#include <QGraphicsItem>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QPainter>
#include <QPainterPath>
#include <QStyleOptionGraphicsItem>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace beamscope::ui {

namespace {
constexpr double kNodeWidth = 150;
constexpr double kNodeHeight = 40;
constexpr double kColumnGap = 70;
constexpr double kRowGap = 16;
constexpr double kMinFitZoom = 0.8;
constexpr double kLayerGapVertical = 34;
} // namespace

class StageNodeItem : public QGraphicsItem {
public:
    StageNodeItem(int index, const pipelines::StageSummary &stage) : m_index(index), m_stage(stage)
    {
        setFlag(ItemIsSelectable);
        setAcceptHoverEvents(true);
        setToolTip(QString::fromStdString(stage.definitionText));
        setZValue(1);
    }
    int index() const { return m_index; }

    QRectF boundingRect() const override
    {
        return {-kNodeWidth / 2 - 2, -kNodeHeight / 2 - 2, kNodeWidth + 4, kNodeHeight + 4};
    }

    void paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *) override
    {
        const QRectF box(-kNodeWidth / 2, -kNodeHeight / 2, kNodeWidth, kNodeHeight);
        QColor fill = m_stage.isInput    ? QColor(236, 236, 236)
                      : m_stage.isOutput ? QColor(255, 228, 196)
                                         : QColor(214, 230, 245);
        QPen border(m_stage.isInput ? QColor(130, 130, 130) : QColor(50, 80, 120), 1.2);
        if (m_stage.isInput)
            border.setStyle(Qt::DashLine);
        if (isSelected()) {
            fill = QColor(255, 214, 102);
            border = QPen(QColor(200, 90, 0), 2.5);
        }
        painter->setRenderHint(QPainter::Antialiasing);
        painter->setPen(border);
        painter->setBrush(fill);
        if (m_stage.isInput)
            painter->drawRect(box);
        else
            painter->drawRoundedRect(box, 8, 8);
        QFont f = painter->font();
        f.setBold(!m_stage.isInput);
        painter->setFont(f);
        painter->setPen(QColor(25, 25, 25));
        const QFontMetrics fm(f);
        const QString title =
            fm.elidedText(QString::fromStdString(m_stage.func), Qt::ElideMiddle, int(kNodeWidth) - 10);
        painter->drawText(box.adjusted(5, 3, -5, -kNodeHeight / 2), Qt::AlignCenter, title);
        f.setBold(false);
        f.setPointSizeF(f.pointSizeF() * 0.85);
        painter->setFont(f);
        painter->setPen(QColor(80, 80, 80));
        QString sub;
        if (m_stage.isInput)
            sub = QObject::tr("input");
        else if (m_stage.updateCount > 0)
            sub = m_stage.definition == 0 ? QObject::tr("pure definition")
                                          : QObject::tr("update %1").arg(m_stage.definition);
        else
            sub = QObject::tr("stage %1").arg(m_stage.costModelIndex);
        if (m_stage.isOutput)
            sub += QObject::tr(" · output");
        painter->drawText(box.adjusted(5, kNodeHeight / 2 - 2, -5, -3), Qt::AlignCenter, sub);
    }

private:
    int m_index;
    pipelines::StageSummary m_stage;
};

DagGraphView::DagGraphView(QWidget *parent) : QGraphicsView(parent), m_scene(new QGraphicsScene(this))
{
    setScene(m_scene);
    setRenderHint(QPainter::Antialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setViewportUpdateMode(QGraphicsView::BoundingRectViewportUpdate);
    setBackgroundBrush(QColor(252, 252, 252));
    connect(m_scene, &QGraphicsScene::selectionChanged, this, &DagGraphView::onSceneSelectionChanged);
}

void DagGraphView::clear()
{
    m_scene->clear();
    m_nodes.clear();
    m_edgeCount = 0;
    const bool had = m_selected >= 0;
    m_selected = -1;
    if (had)
        Q_EMIT stageSelected(-1);
}

void DagGraphView::setSummary(const pipelines::PipelineSummary &summary)
{
    QSignalBlocker block(m_scene);
    m_scene->clear();
    m_nodes.clear();
    m_edgeCount = 0;
    m_selected = -1;

    const int n = static_cast<int>(summary.stages.size());
    // Columns by depth; within a column, stages ordered by the mean row of their
    // producers (one barycentre pass from left to right keeps most edges short).
    std::vector<std::vector<int>> producers(static_cast<size_t>(n));
    for (const auto &e : summary.edges)
        producers[static_cast<size_t>(e.consumer)].push_back(e.producer);
    std::vector<std::vector<int>> columns(static_cast<size_t>(std::max(1, summary.depthCount)));
    for (int i = n - 1; i >= 0; --i) // inputs are last in DAG order: reversed reads sources first
        columns[static_cast<size_t>(summary.stages[static_cast<size_t>(i)].depth)].push_back(i);
    std::vector<double> rowOf(static_cast<size_t>(n), 0);
    size_t tallest = 0;
    for (const auto &c : columns)
        tallest = std::max(tallest, c.size());
    for (auto &column : columns) {
        std::vector<double> key(column.size());
        for (size_t k = 0; k < column.size(); ++k) {
            const auto &p = producers[static_cast<size_t>(column[k])];
            key[k] = p.empty() ? double(k) : std::accumulate(p.begin(), p.end(), 0.0, [&](double s, int q) {
                                                 return s + rowOf[static_cast<size_t>(q)];
                                             }) / double(p.size());
        }
        std::vector<size_t> order(column.size());
        std::iota(order.begin(), order.end(), size_t{0});
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key[a] < key[b]; });
        // Centre each column against the tallest one.
        const double offset = (double(tallest) - double(column.size())) / 2.0;
        std::vector<int> sorted;
        for (size_t k = 0; k < order.size(); ++k) {
            sorted.push_back(column[order[k]]);
            rowOf[static_cast<size_t>(column[order[k]])] = offset + double(k);
        }
        column = sorted;
    }

    // Layers run left to right or top to bottom, whichever lets the whole graph
    // show larger in this view: long chains (camera_pipe) read best top-down,
    // wide ones left to right.
    const double layers = double(columns.size()), across = double(std::max<size_t>(tallest, 1));
    const QSizeF view = viewport()->size().isEmpty() ? QSizeF(800, 600) : QSizeF(viewport()->size());
    const double horizontalFit = std::min(view.width() / (layers * (kNodeWidth + kColumnGap)),
                                          view.height() / (across * (kNodeHeight + kRowGap)));
    const double verticalFit = std::min(view.width() / (across * (kNodeWidth + kRowGap)),
                                        view.height() / (layers * (kNodeHeight + kLayerGapVertical)));
    m_vertical = verticalFit > horizontalFit;

    m_nodes.assign(static_cast<size_t>(n), nullptr);
    for (size_t c = 0; c < columns.size(); ++c)
        for (int s : columns[c]) {
            auto *item = new StageNodeItem(s, summary.stages[static_cast<size_t>(s)]);
            const double row = rowOf[static_cast<size_t>(s)];
            item->setPos(m_vertical
                             ? QPointF(row * (kNodeWidth + kRowGap), double(c) * (kNodeHeight + kLayerGapVertical))
                             : QPointF(double(c) * (kNodeWidth + kColumnGap), row * (kNodeHeight + kRowGap)));
            m_scene->addItem(item);
            m_nodes[static_cast<size_t>(s)] = item;
        }

    for (const auto &e : summary.edges) {
        const QPointF exit = m_vertical ? QPointF(0, kNodeHeight / 2) : QPointF(kNodeWidth / 2, 0);
        const QPointF from = m_nodes[static_cast<size_t>(e.producer)]->pos() + exit;
        const QPointF to = m_nodes[static_cast<size_t>(e.consumer)]->pos() - exit;
        QPainterPath path(from);
        const QPointF bend = m_vertical ? QPointF(0, std::max(20.0, (to.y() - from.y()) / 2))
                                        : QPointF(std::max(30.0, (to.x() - from.x()) / 2), 0);
        path.cubicTo(from + bend, to - bend, to);
        // Arrow head along the curve's end direction (horizontal into the node).
        const QPointF tip = to;
        QPainterPath head;
        head.moveTo(tip);
        head.lineTo(tip + (m_vertical ? QPointF(-4.5, -9) : QPointF(-9, -4.5)));
        head.lineTo(tip + (m_vertical ? QPointF(4.5, -9) : QPointF(-9, 4.5)));
        head.closeSubpath();
        const QColor colour = e.sameFunc ? QColor(150, 110, 40) : QColor(90, 100, 115);
        QPen pen(colour, e.sameFunc ? 1.4 : 1.2);
        if (e.sameFunc)
            pen.setStyle(Qt::DashLine);
        auto *line = m_scene->addPath(path, pen);
        line->setToolTip(e.sameFunc ? tr("%1 then %2 (same Func)")
                                          .arg(QString::fromStdString(summary.stages[size_t(e.producer)].name),
                                               QString::fromStdString(summary.stages[size_t(e.consumer)].name))
                                    : tr("%1 → %2, %n call site(s)", nullptr, e.calls)
                                          .arg(QString::fromStdString(summary.stages[size_t(e.producer)].func),
                                               QString::fromStdString(summary.stages[size_t(e.consumer)].name)));
        auto *arrow = m_scene->addPath(head, QPen(colour), QBrush(colour));
        arrow->setParentItem(line);
        ++m_edgeCount;
    }
    m_scene->setSceneRect(m_scene->itemsBoundingRect().adjusted(-30, -30, 30, 30));
    m_userZoomed = false;
    fitAll();
}

QPointF DagGraphView::nodeCentre(int stage) const
{
    if (stage < 0 || stage >= nodeCount())
        return {};
    return m_nodes[static_cast<size_t>(stage)]->pos();
}

void DagGraphView::selectStage(int stage)
{
    if (stage < -1 || stage >= nodeCount() || stage == m_selected)
        return;
    {
        QSignalBlocker block(m_scene);
        m_scene->clearSelection();
        if (stage >= 0) {
            m_nodes[static_cast<size_t>(stage)]->setSelected(true);
            ensureVisible(m_nodes[static_cast<size_t>(stage)], 20, 20);
        }
    }
    m_scene->update();
    m_selected = stage;
    Q_EMIT stageSelected(stage);
}

void DagGraphView::onSceneSelectionChanged()
{
    const auto items = m_scene->selectedItems();
    int stage = -1;
    for (QGraphicsItem *item : items)
        if (auto *node = dynamic_cast<StageNodeItem *>(item))
            stage = node->index();
    if (stage < 0)
        return; // a click on empty canvas keeps the current stage shown
    if (stage != m_selected) {
        m_selected = stage;
        Q_EMIT stageSelected(stage);
    }
}

void DagGraphView::fitAll()
{
    if (m_scene->items().isEmpty())
        return;
    fitInView(m_scene->sceneRect(), Qt::KeepAspectRatio);
    // Small graphs would be blown up: keep text at most at its natural size.
    if (zoom() > 1.0)
        setTransform(QTransform());
    // Deep pipelines (local_laplacian has 30 layers) would shrink to unreadable
    // boxes: stop at a size where names still read, around the selected stage
    // (or the output), and let the user pan or zoom out for the rest.
    if (zoom() < kMinFitZoom) {
        setTransform(QTransform::fromScale(kMinFitZoom, kMinFitZoom));
        if (m_selected >= 0)
            centerOn(m_nodes[static_cast<size_t>(m_selected)]);
        else if (!m_nodes.empty())
            centerOn(m_nodes.front()); // the output's stage comes first
    }
    m_userZoomed = false;
}

void DagGraphView::zoomBy(double factor)
{
    const double next = std::clamp(zoom() * factor, 0.05, 4.0);
    const double f = next / zoom();
    scale(f, f);
    m_userZoomed = true;
}

double DagGraphView::zoom() const { return transform().m11(); }

void DagGraphView::wheelEvent(QWheelEvent *event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0) {
        QGraphicsView::wheelEvent(event);
        return;
    }
    zoomBy(std::pow(1.15, steps));
    event->accept();
}

void DagGraphView::resizeEvent(QResizeEvent *event)
{
    QGraphicsView::resizeEvent(event);
    if (!m_userZoomed)
        fitAll();
}

} // namespace beamscope::ui
