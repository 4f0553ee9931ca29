#include "ui/weights/heatmap_widget.h"

#include "ui/common/diverging_colormap.h"
#include "ui/common/number_format.h"
#include "ui/weights/feature_names.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace beamscope::ui {

namespace {
constexpr int kLegendBar = 14;
constexpr int kGap = 6;
} // namespace

HeatmapWidget::HeatmapWidget(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    m_legendTitle = tr("value");
    m_emptyText = tr("Select a tensor to see its values");
}

void HeatmapWidget::setGrid(HeatmapGrid grid)
{
    m_grid = std::move(grid);
    m_hoverRow = m_hoverColumn = -1;
    updateLimit();
    update();
}

void HeatmapWidget::setSymmetricLimit(double limit)
{
    m_requestedLimit = limit;
    updateLimit();
    update();
}

void HeatmapWidget::setLegendTitle(const QString &title)
{
    m_legendTitle = title;
    update();
}

void HeatmapWidget::setEmptyText(const QString &text)
{
    m_emptyText = text;
    update();
}

void HeatmapWidget::updateLimit()
{
    double largest = 0;
    for (float v : m_grid.values)
        if (std::isfinite(v))
            largest = std::max(largest, static_cast<double>(std::abs(v)));
    const double limit = m_requestedLimit > 0 ? m_requestedLimit : largest;
    m_limit = limit > 0 ? limit : 1.0;
    m_clipped = largest > m_limit;
}

QSize HeatmapWidget::sizeHint() const { return {560, 320}; }

QSize HeatmapWidget::minimumSizeHint() const { return {240, 140}; }

QRect HeatmapWidget::plotRect() const
{
    const QFontMetrics fm(monospaceFont());
    const int labelHeight = fm.height();
    // Left: axis title (rotated) + row tick numbers; bottom: column ticks + axis title;
    // right: legend bar and its labels.
    const int left = labelHeight + kGap + fm.horizontalAdvance(QStringLiteral("000")) + kGap;
    const int right = kGap * 2 + kLegendBar + kGap + fm.horizontalAdvance(QStringLiteral("-0.000e-00"));
    const int top = labelHeight / 2 + kGap;
    const int bottom = labelHeight * 2 + kGap * 2;
    QRect plot = rect().adjusted(left, top, -right, -bottom);
    if (m_grid.rows == 1) // a strip: a band of sensible height rather than the whole area
        plot.setHeight(std::min(plot.height(), std::clamp(plot.width() / std::max(1, m_grid.columns) * 3, 48, 96)));
    return plot;
}

QRect HeatmapWidget::cellRect(int row, int column) const
{
    const QRect plot = plotRect();
    if (m_grid.empty())
        return {};
    const auto edge = [](int start, int length, int count, int i) {
        return start + static_cast<int>(static_cast<long long>(length) * i / count);
    };
    const int x0 = edge(plot.left(), plot.width(), m_grid.columns, column);
    const int x1 = edge(plot.left(), plot.width(), m_grid.columns, column + 1);
    const int y0 = edge(plot.top(), plot.height(), m_grid.rows, row);
    const int y1 = edge(plot.top(), plot.height(), m_grid.rows, row + 1);
    return QRect(QPoint(x0, y0), QPoint(x1 - 1, y1 - 1));
}

std::optional<HeatmapHover> HeatmapWidget::hoverAt(const QPoint &position) const
{
    const QRect plot = plotRect();
    if (m_grid.empty() || !plot.contains(position) || plot.width() <= 0 || plot.height() <= 0)
        return std::nullopt;
    HeatmapHover hover;
    hover.column =
        std::clamp(static_cast<int>(static_cast<long long>(position.x() - plot.left()) * m_grid.columns / plot.width()),
                   0, m_grid.columns - 1);
    hover.row =
        std::clamp(static_cast<int>(static_cast<long long>(position.y() - plot.top()) * m_grid.rows / plot.height()), 0,
                   m_grid.rows - 1);
    hover.index = m_grid.tensorIndex(hover.row, hover.column);
    hover.value = m_grid.at(hover.row, hover.column);
    QStringList parts;
    for (uint32_t i : hover.index)
        parts.append(QString::number(i));
    hover.text =
        m_hoverPrefix + QStringLiteral("%1(%2) = %3")
                            .arg(m_grid.tensor, parts.join(QStringLiteral(", ")), formatNumber(hover.value, 7));
    QStringList meanings;
    for (int dim = 1; dim < static_cast<int>(hover.index.size()); ++dim) {
        const QString label = dimensionLabel(m_grid.tensor, m_grid.shape, dim, hover.index[dim]);
        if (!label.isEmpty())
            meanings.append(QStringLiteral("%1 %2: %3")
                                .arg(dimensionTitle(m_grid.tensor, m_grid.shape, dim))
                                .arg(hover.index[dim])
                                .arg(label));
    }
    if (!meanings.isEmpty())
        hover.text += QStringLiteral("  ·  ") + meanings.join(QStringLiteral(", "));
    return hover;
}

QString HeatmapWidget::axisTickLabel(int dim, int index) const
{
    return dimensionLabel(m_grid.tensor, m_grid.shape, dim, static_cast<uint32_t>(index));
}

int HeatmapWidget::tickStep(int count, int pixels, int labelPixels) const
{
    // The smallest of 1, 2, 5, 10, 20, ... whose labels do not collide.
    for (int step : {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000})
        if (count <= 1 || static_cast<long long>(pixels) * step / count >= labelPixels)
            return step;
    return std::max(1, count);
}

void HeatmapWidget::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    if (m_grid.empty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, m_emptyText);
        return;
    }
    const QRect plot = plotRect();
    if (plot.width() < m_grid.columns / 4 || plot.height() < 4)
        return;

    for (int r = 0; r < m_grid.rows; ++r)
        for (int c = 0; c < m_grid.columns; ++c) {
            const float v = m_grid.at(r, c);
            painter.fillRect(cellRect(r, c), QColor::fromRgb(divergingColor(v / m_limit)));
        }
    // Cell borders only when cells are big enough for them to help.
    const int cellWidth = plot.width() / m_grid.columns, cellHeight = plot.height() / m_grid.rows;
    if (cellWidth >= 8 && cellHeight >= 8) {
        painter.setPen(QColor(255, 255, 255, 90));
        for (int c = 1; c < m_grid.columns; ++c)
            painter.drawLine(cellRect(0, c).topLeft(), QPoint(cellRect(0, c).left(), plot.bottom()));
        for (int r = 1; r < m_grid.rows; ++r)
            painter.drawLine(cellRect(r, 0).topLeft(), QPoint(plot.right(), cellRect(r, 0).top()));
    }
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(plot.adjusted(0, 0, -1, -1));
    if (m_hoverRow >= 0) {
        painter.setPen(QPen(palette().color(QPalette::Text), 2));
        painter.drawRect(cellRect(m_hoverRow, m_hoverColumn).adjusted(0, 0, -1, -1));
    }

    // Ticks and axis titles.
    const QFont mono = monospaceFont();
    painter.setFont(mono);
    const QFontMetrics fm(mono);
    painter.setPen(palette().color(QPalette::Text));
    // Named columns (head1_filter's scalar types) when every name fits its cell.
    bool named = true;
    for (int c = 0; c < m_grid.columns && named; ++c) {
        const QString name = axisTickLabel(m_grid.columnDim, c);
        named = !name.isEmpty() && fm.horizontalAdvance(name) + 4 <= plot.width() / m_grid.columns;
    }
    const int columnStep =
        named ? 1 : tickStep(m_grid.columns, plot.width(), fm.horizontalAdvance(QStringLiteral("0000")));
    for (int c = 0; c < m_grid.columns; c += columnStep) {
        const QRect cell = cellRect(0, c);
        const QString label = named ? axisTickLabel(m_grid.columnDim, c) : QString::number(c);
        const int half = std::max(30, cell.width() / 2);
        painter.drawText(QRect(cell.center().x() - half, plot.bottom() + 3, 2 * half, fm.height()), Qt::AlignHCenter,
                         label);
    }
    if (m_grid.rows > 1) {
        const int rowStep = tickStep(m_grid.rows, plot.height(), fm.height());
        for (int r = 0; r < m_grid.rows; r += rowStep) {
            const QRect cell = cellRect(r, 0);
            painter.drawText(QRect(0, cell.center().y() - fm.height() / 2, plot.left() - 4, fm.height()),
                             Qt::AlignRight | Qt::AlignVCenter, QString::number(r));
        }
    }
    QFont titleFont = font();
    painter.setFont(titleFont);
    const QFontMetrics tfm(titleFont);
    const QString columnTitle = QStringLiteral("dim %1 · %2")
                                    .arg(m_grid.columnDim)
                                    .arg(dimensionTitle(m_grid.tensor, m_grid.shape, m_grid.columnDim));
    painter.drawText(QRect(plot.left(), plot.bottom() + 3 + fm.height(), plot.width(), tfm.height() + 4),
                     Qt::AlignHCenter | Qt::AlignTop, columnTitle);
    if (m_grid.rowDim >= 0) {
        const QString rowTitle = QStringLiteral("dim %1 · %2")
                                     .arg(m_grid.rowDim)
                                     .arg(dimensionTitle(m_grid.tensor, m_grid.shape, m_grid.rowDim));
        painter.save();
        painter.translate(2, plot.center().y());
        painter.rotate(-90);
        painter.drawText(QRect(-plot.height() / 2, 0, plot.height(), tfm.height()), Qt::AlignCenter,
                         tfm.elidedText(rowTitle, Qt::ElideRight, plot.height()));
        painter.restore();
    }
    drawLegend(painter, plot);
}

void HeatmapWidget::drawLegend(QPainter &painter, const QRect &plot) const
{
    const QFont mono = monospaceFont();
    const QFontMetrics fm(mono);
    // At least 120 px tall even beside a strip, so the scale stays readable.
    const int height = std::max(plot.height(), std::min(120, this->height() - plot.top() - fm.height() * 2));
    const QRect bar(plot.right() + kGap * 2, plot.top(), kLegendBar, height);
    for (int y = 0; y < bar.height(); ++y) {
        const double t = 1.0 - 2.0 * y / std::max(1, bar.height() - 1);
        painter.setPen(QColor::fromRgb(divergingColor(t)));
        painter.drawLine(bar.left(), bar.top() + y, bar.right(), bar.top() + y);
    }
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(bar.adjusted(0, 0, -1, -1));
    painter.setPen(palette().color(QPalette::Text));
    painter.setFont(mono);
    for (double fraction : {1.0, 0.5, 0.0, -0.5, -1.0}) {
        const int y = bar.top() + static_cast<int>(std::lround((1.0 - fraction) / 2.0 * (bar.height() - 1)));
        painter.drawLine(bar.right() + 1, y, bar.right() + 3, y);
        const double value = fraction * m_limit;
        QString label = fraction == 0.0 ? QStringLiteral("0") : formatNumber(value, 3);
        if (m_clipped && fraction == 1.0)
            label.prepend(QStringLiteral("≥"));
        else if (m_clipped && fraction == -1.0)
            label.prepend(QStringLiteral("≤"));
        painter.drawText(QRect(bar.right() + 8, y - fm.height() / 2, width() - bar.right() - 8, fm.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, label);
    }
    painter.setFont(font());
    painter.drawText(QRect(bar.left() - kGap, bar.bottom() + 4, width() - bar.left() + kGap, fm.height() + 4),
                     Qt::AlignLeft | Qt::AlignTop, m_legendTitle);
}

void HeatmapWidget::mouseMoveEvent(QMouseEvent *event)
{
    const auto hover = hoverAt(event->position().toPoint());
    const int row = hover ? hover->row : -1, column = hover ? hover->column : -1;
    if (row != m_hoverRow || column != m_hoverColumn) {
        m_hoverRow = row;
        m_hoverColumn = column;
        update();
        Q_EMIT hovered(hover ? hover->text : QString());
    }
    if (hover)
        QToolTip::showText(event->globalPosition().toPoint(), hover->text, this, cellRect(row, column));
    else
        QToolTip::hideText();
}

void HeatmapWidget::leaveEvent(QEvent *event)
{
    QWidget::leaveEvent(event);
    if (m_hoverRow >= 0) {
        m_hoverRow = m_hoverColumn = -1;
        update();
        Q_EMIT hovered(QString());
    }
}

} // namespace beamscope::ui
