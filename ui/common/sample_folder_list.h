#pragma once
// The list of sample folders the Retrain and Predictions workspaces work on:
// folders shown by their native path, Add folder… / Remove buttons, no duplicates.

#include <QStringList>
#include <QWidget>

class QListWidget;

namespace beamscope::ui {

class SampleFolderList : public QWidget {
    Q_OBJECT
public:
    explicit SampleFolderList(const QString &toolTip, QWidget *parent = nullptr);

    // Canonical paths, in the order they were added.
    QStringList folders() const;
    int count() const;
    // Both ignore what would change nothing (a folder already listed, one not listed).
    void addFolder(const QString &folder);
    void removeFolder(const QString &folder);

Q_SIGNALS:
    void foldersChanged();

private:
    void chooseFolder();
    QListWidget *m_list = nullptr;
};

} // namespace beamscope::ui
