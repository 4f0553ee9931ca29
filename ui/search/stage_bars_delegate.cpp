#include "ui/search/stage_bars_delegate.h"

#include "ui/search/stage_cost_model.h"

#include <QPainter>

#include <algorithm>

namespace beamscope::ui {

void StageBarsDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyledItemDelegate::paint(painter, option, index); // background, selection
    const auto *model = qobject_cast<const StageCostModel *>(index.model());
    if (!model || model->segmentScale() <= 0)
        return;
    const int states = model->hasB() ? 2 : 1;
    const QRect area = option.rect.adjusted(2, 3, -4, -3);
    const int gap = states == 2 ? 2 : 0;
    const int barHeight = std::max(2, (area.height() - gap) / states);
    painter->save();
    painter->setPen(Qt::NoPen);
    for (int state = 0; state < states; ++state) {
        const std::vector<double> &segments = model->segments(index.row(), state);
        double x = area.left();
        const int top = area.top() + state * (barHeight + gap);
        for (size_t t = 0; t < segments.size(); ++t) {
            const double width = std::max(0.0, segments[t]) / model->segmentScale() * area.width();
            if (width <= 0)
                continue;
            const QColor colour = static_cast<qsizetype>(t) < model->segmentColors().size()
                                      ? model->segmentColors()[static_cast<qsizetype>(t)]
                                      : QColor(170, 170, 170);
            painter->setBrush(state == 0 ? colour : colour.lighter(125));
            painter->drawRect(QRectF(x, top, width, barHeight));
            x += width;
        }
    }
    painter->restore();
}

QSize StageBarsDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const QSize text = QStyledItemDelegate::sizeHint(option, index);
    return {std::max(text.width(), 60), text.height()}; // the column stretches; a narrow panel still fits it
}

} // namespace beamscope::ui
