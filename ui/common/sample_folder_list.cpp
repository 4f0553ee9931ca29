#include "ui/common/sample_folder_list.h"

#include "ui/common/app_settings.h"

#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QIcon>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace beamscope::ui {

SampleFolderList::SampleFolderList(const QString &toolTip, QWidget *parent) : QWidget(parent)
{
    m_list = new QListWidget(this);
    m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_list->setToolTip(toolTip);
    m_list->setMinimumHeight(90);
    auto *add = new QPushButton(QIcon(QStringLiteral(":/icons/folder-add.svg")), tr("Add folder…"), this);
    auto *remove = new QPushButton(tr("Remove"), this);
    connect(add, &QPushButton::clicked, this, &SampleFolderList::chooseFolder);
    connect(remove, &QPushButton::clicked, this, [this] {
        const auto selected = m_list->selectedItems();
        if (selected.isEmpty())
            return;
        for (auto *item : selected)
            delete item;
        Q_EMIT foldersChanged();
    });

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_list);
    layout->addLayout(buttons);
}

QStringList SampleFolderList::folders() const
{
    QStringList result;
    for (int row = 0; row < m_list->count(); ++row)
        result.append(m_list->item(row)->data(Qt::UserRole).toString());
    return result;
}

int SampleFolderList::count() const { return m_list->count(); }

void SampleFolderList::addFolder(const QString &folder)
{
    const QString normal = canonicalPath(folder);
    if (folders().contains(normal))
        return;
    auto *item = new QListWidgetItem(QDir::toNativeSeparators(normal), m_list);
    item->setData(Qt::UserRole, normal);
    item->setToolTip(normal);
    Q_EMIT foldersChanged();
}

void SampleFolderList::removeFolder(const QString &folder)
{
    const QString normal = canonicalPath(folder);
    bool removed = false;
    for (int row = m_list->count() - 1; row >= 0; --row) {
        if (m_list->item(row)->data(Qt::UserRole).toString() == normal) {
            delete m_list->takeItem(row);
            removed = true;
        }
    }
    if (removed)
        Q_EMIT foldersChanged();
}

void SampleFolderList::chooseFolder()
{
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Add a folder of .sample files"));
    if (!folder.isEmpty())
        addFolder(folder);
}

} // namespace beamscope::ui
