#pragma once
// Draws a StageCostModel row's cost terms as one stacked bar (two, A above B,
// when states are compared), every row on the model's one scale, so bars
// compare down the table as they would on a chart's shared axis.

#include <QStyledItemDelegate>

namespace beamscope::ui {

class StageBarsDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace beamscope::ui
