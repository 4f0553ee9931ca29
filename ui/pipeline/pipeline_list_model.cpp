#include "ui/pipeline/pipeline_list_model.h"

namespace beamscope::ui {

namespace {
QString groupTitle(const std::string &origin)
{
    if (origin == "app")
        return PipelineListModel::tr("Apps (Halide's per-app weights)");
    if (origin == "golden")
        return PipelineListModel::tr("Golden pipelines");
    if (origin == "random")
        return PipelineListModel::tr("Random pipelines");
    if (origin == "generator")
        return PipelineListModel::tr("Your generators (libraries opened in Search)");
    return QString::fromStdString(origin);
}
} // namespace

PipelineListModel::PipelineListModel(QObject *parent) : QStandardItemModel(parent)
{
    setHorizontalHeaderLabels({tr("Pipeline"), tr("Stages"), tr("Description")});
}

void PipelineListModel::setListings(const std::vector<pipelines::PipelineListing> &listings)
{
    m_listings = listings;
    removeRows(0, rowCount());
    std::vector<std::pair<std::string, QStandardItem *>> groups;
    for (const auto &l : listings) {
        QStandardItem *group = nullptr;
        for (auto &[origin, item] : groups)
            if (origin == l.origin)
                group = item;
        if (!group) {
            group = new QStandardItem(groupTitle(l.origin));
            group->setSelectable(false);
            group->setEditable(false);
            QFont bold = group->font();
            bold.setBold(true);
            group->setFont(bold);
            auto *blank1 = new QStandardItem, *blank2 = new QStandardItem;
            blank1->setSelectable(false);
            blank1->setEditable(false);
            blank2->setSelectable(false);
            blank2->setEditable(false);
            appendRow({group, blank1, blank2});
            groups.emplace_back(l.origin, group);
        }
        const QString name = QString::fromStdString(l.name);
        auto *nameItem = new QStandardItem(name);
        nameItem->setData(name, NameRole);
        nameItem->setData(l.hasGpuSchedule, GpuScheduleRole);
        nameItem->setData(l.stageCount, StageCountRole);
        nameItem->setToolTip(QString::fromStdString(l.description));
        auto *stages = new QStandardItem(l.stageCount > 0 ? QString::number(l.stageCount) : QStringLiteral("?"));
        stages->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        stages->setToolTip(tr("stages the cost model sees (definitions of non-input Funcs)"));
        auto *description = new QStandardItem(QString::fromStdString(l.description) +
                                              (l.hasGpuSchedule ? tr(" · GPU schedule") : QString()));
        description->setToolTip(QString::fromStdString(l.description));
        for (QStandardItem *item : {nameItem, stages, description})
            item->setEditable(false);
        group->appendRow({nameItem, stages, description});
    }
    for (auto &[origin, item] : groups)
        item->setText(item->text() + QStringLiteral("  ·  %1").arg(item->rowCount()));
}

QModelIndex PipelineListModel::indexOf(const QString &name) const
{
    for (int g = 0; g < rowCount(); ++g) {
        const QModelIndex group = index(g, 0);
        for (int r = 0; r < rowCount(group); ++r) {
            const QModelIndex child = index(r, NameColumn, group);
            if (child.data(NameRole).toString() == name)
                return child;
        }
    }
    return {};
}

} // namespace beamscope::ui
