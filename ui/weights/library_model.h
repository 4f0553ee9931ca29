#pragma once
// Tree model of the weights library: one top-level row per non-empty group
// (Baseline, Per-app, General, Trained here, Other), the entries below it.

#include "ui/weights/weights_library.h"

#include <QAbstractItemModel>
#include <QIcon>

#include <vector>

namespace beamscope::ui {

class LibraryModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, NetworkColumn, ColumnCount };
    enum Role { PathRole = Qt::UserRole + 1, ValidRole, GroupRole };

    explicit LibraryModel(QObject *parent = nullptr);

    void setEntries(std::vector<LibraryEntry> entries);
    const std::vector<LibraryEntry> &entries() const { return m_entries; }
    int entryCount() const { return static_cast<int>(m_entries.size()); }

    // The entry behind an index (nullptr for group rows and invalid indexes).
    const LibraryEntry *entry(const QModelIndex &index) const;
    QModelIndex indexOfPath(const QString &path) const;
    QModelIndex groupIndex(LibraryGroup group) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;

private:
    struct Group {
        LibraryGroup group;
        std::vector<int> members; // indexes into m_entries
    };
    // internalId: 0 for group rows, group row + 1 for entry rows.
    std::vector<LibraryEntry> m_entries;
    std::vector<Group> m_groups;
    QIcon m_validIcon, m_invalidIcon, m_directoryIcon, m_groupIcon;
};

} // namespace beamscope::ui
