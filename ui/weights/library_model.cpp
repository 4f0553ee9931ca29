#include "ui/weights/library_model.h"

#include <QApplication>
#include <QColor>
#include <QStyle>

namespace beamscope::ui {

LibraryModel::LibraryModel(QObject *parent)
    : QAbstractItemModel(parent),
      m_validIcon(QStringLiteral(":/icons/weights-file.svg")),
      m_invalidIcon(QStringLiteral(":/icons/weights-invalid.svg")),
      m_directoryIcon(QStringLiteral(":/icons/weights-directory.svg")),
      m_groupIcon(QStringLiteral(":/icons/group.svg"))
{}

void LibraryModel::setEntries(std::vector<LibraryEntry> entries)
{
    beginResetModel();
    m_entries = std::move(entries);
    m_groups.clear();
    for (int g = 0; g < kLibraryGroupCount; ++g) {
        Group group{static_cast<LibraryGroup>(g), {}};
        for (int i = 0; i < static_cast<int>(m_entries.size()); ++i)
            if (m_entries[i].group == group.group)
                group.members.push_back(i);
        if (!group.members.empty())
            m_groups.push_back(std::move(group));
    }
    endResetModel();
}

const LibraryEntry *LibraryModel::entry(const QModelIndex &index) const
{
    if (!index.isValid() || index.internalId() == 0)
        return nullptr;
    const auto &group = m_groups[index.internalId() - 1];
    return &m_entries[group.members[index.row()]];
}

QModelIndex LibraryModel::indexOfPath(const QString &path) const
{
    for (int g = 0; g < static_cast<int>(m_groups.size()); ++g)
        for (int r = 0; r < static_cast<int>(m_groups[g].members.size()); ++r)
            if (m_entries[m_groups[g].members[r]].path == path)
                return createIndex(r, 0, quintptr(g + 1));
    return {};
}

QModelIndex LibraryModel::groupIndex(LibraryGroup group) const
{
    for (int g = 0; g < static_cast<int>(m_groups.size()); ++g)
        if (m_groups[g].group == group)
            return createIndex(g, 0, quintptr(0));
    return {};
}

QModelIndex LibraryModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < static_cast<int>(m_groups.size()) ? createIndex(row, column, quintptr(0)) : QModelIndex();
    if (parent.internalId() != 0 || parent.column() != 0)
        return {};
    const auto &group = m_groups[parent.row()];
    if (row >= static_cast<int>(group.members.size()))
        return {};
    return createIndex(row, column, quintptr(parent.row() + 1));
}

QModelIndex LibraryModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == 0)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, quintptr(0));
}

int LibraryModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return static_cast<int>(m_groups.size());
    if (parent.internalId() == 0 && parent.column() == 0)
        return static_cast<int>(m_groups[parent.row()].members.size());
    return 0;
}

int LibraryModel::columnCount(const QModelIndex &) const { return ColumnCount; }

QVariant LibraryModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    if (index.internalId() == 0) {
        const Group &group = m_groups[index.row()];
        if (index.column() == NameColumn) {
            if (role == Qt::DisplayRole)
                return QStringLiteral("%1 (%2)").arg(libraryGroupTitle(group.group)).arg(group.members.size());
            if (role == Qt::DecorationRole)
                return m_groupIcon;
        }
        if (role == GroupRole)
            return static_cast<int>(group.group);
        return {};
    }
    const LibraryEntry &e = *entry(index);
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == NameColumn)
            return libraryEntryLabel(e);
        return e.valid ? e.network : tr("invalid");
    case Qt::DecorationRole:
        if (index.column() != NameColumn)
            return {};
        if (!e.valid)
            return m_invalidIcon;
        return e.isDirectory ? m_directoryIcon : m_validIcon;
    case Qt::ToolTipRole: {
        QString tip = QStringLiteral("<b>%1</b><br>%2")
                          .arg(e.path.toHtmlEscaped(),
                               e.isDirectory ? tr("legacy six-file directory") : tr("%1 bytes").arg(e.sizeBytes));
        if (!e.provenance.isEmpty())
            tip += QStringLiteral("<br>%1").arg(e.provenance.toHtmlEscaped());
        if (!e.problem.isEmpty())
            tip += QStringLiteral("<br><span style='color:%1'>%2</span>")
                       .arg(e.valid ? QStringLiteral("#a06000") : QStringLiteral("#b00020"),
                            e.problem.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")));
        return tip;
    }
    case Qt::ForegroundRole:
        if (!e.valid)
            return QColor(0xb0, 0x00, 0x20); // an error to look at, not a disabled entry
        return {};
    case PathRole: return e.path;
    case ValidRole: return e.valid;
    case GroupRole: return static_cast<int>(e.group);
    default: return {};
    }
}

QVariant LibraryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Weights");
    case NetworkColumn: return tr("Network");
    default: return {};
    }
}

Qt::ItemFlags LibraryModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    if (index.internalId() == 0)
        return Qt::ItemIsEnabled;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
}

} // namespace beamscope::ui
