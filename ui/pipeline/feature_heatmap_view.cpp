#include "ui/pipeline/feature_heatmap_view.h"

#include "ui/common/number_format.h"
#include "ui/pipeline/feature_matrix_model.h"

#include <QHeaderView>
#include <QPainter>
#include <QStyledItemDelegate>

#include <algorithm>

namespace beamscope::ui {

namespace {

bool startsGroup(const QAbstractItemModel *model, int row)
{
    return row > 0 && model->headerData(row, Qt::Vertical, FeatureMatrixModel::GroupStartRole).toBool();
}

// Paints the cell flat in the model's colour (no selection tint hiding the
// value) and a rule above the first row of each group.
class HeatmapCellDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        painter->save();
        painter->fillRect(option.rect, index.data(Qt::BackgroundRole).value<QBrush>());
        const QString text = index.data(Qt::DisplayRole).toString();
        if (!text.isEmpty()) {
            painter->setPen(index.data(Qt::ForegroundRole).value<QBrush>().color());
            painter->setFont(index.data(Qt::FontRole).value<QFont>());
            painter->drawText(option.rect, Qt::AlignCenter, text);
        }
        painter->setPen(QColor(255, 255, 255));
        painter->drawLine(option.rect.topRight(), option.rect.bottomRight());
        if (startsGroup(index.model(), index.row())) {
            painter->setPen(QPen(QColor(60, 60, 60), 2));
            painter->drawLine(option.rect.topLeft(), option.rect.topRight());
        }
        painter->restore();
    }
};

// The vertical header: row names, with the same rules between groups and the
// access-pattern rows shaded by group.
class GroupedHeader : public QHeaderView {
public:
    using QHeaderView::QHeaderView;

protected:
    void paintSection(QPainter *painter, const QRect &rect, int logicalIndex) const override
    {
        painter->save();
        const bool access = logicalIndex >= dag::kOpTypeCount;
        const int group = access ? (logicalIndex - dag::kOpTypeCount) / dag::kAccessTypeCount : 0;
        const QColor shade =
            !access ? QColor(245, 245, 245) : (group % 2 ? QColor(236, 240, 232) : QColor(244, 238, 230));
        painter->fillRect(rect, shade);
        painter->setPen(QColor(40, 40, 40));
        painter->setFont(font());
        painter->drawText(rect.adjusted(6, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft,
                          model()->headerData(logicalIndex, Qt::Vertical, Qt::DisplayRole).toString());
        if (startsGroup(model(), logicalIndex)) {
            painter->setPen(QPen(QColor(60, 60, 60), 2));
            painter->drawLine(rect.topLeft(), rect.topRight());
        }
        painter->restore();
    }
};

} // namespace

FeatureHeatmapView::FeatureHeatmapView(FeatureMatrixModel *model, QWidget *parent) : QTableView(parent)
{
    setModel(model);
    setItemDelegate(new HeatmapCellDelegate(this));
    auto *vertical = new GroupedHeader(Qt::Vertical, this);
    setVerticalHeader(vertical);
    QFont small = monospaceFont();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    vertical->setFont(small);
    vertical->setSectionResizeMode(QHeaderView::Fixed);
    vertical->setDefaultSectionSize(QFontMetrics(small).height() + 2);
    vertical->setMinimumSectionSize(10);
    int labelWidth = 0;
    for (int row = 0; row < dag::kFeatureRows; ++row)
        labelWidth = std::max(labelWidth,
                              QFontMetrics(small).horizontalAdvance(QString::fromStdString(dag::featureRowName(row))));
    vertical->setFixedWidth(labelWidth + 14);
    horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    horizontalHeader()->setMinimumSectionSize(44);
    setShowGrid(false);
    setSelectionMode(QAbstractItemView::NoSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setFocusPolicy(Qt::NoFocus);
    setFont(small);
}

QSize FeatureHeatmapView::sizeHint() const
{
    return {verticalHeader()->sizeHint().width() + 7 * 56 + 4,
            horizontalHeader()->sizeHint().height() + dag::kFeatureRows * verticalHeader()->defaultSectionSize() + 4};
}

} // namespace beamscope::ui
