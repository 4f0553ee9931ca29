#pragma once
// The explorer's window: a side bar of workspaces (registered in
// workspace_registry.cpp), menus, status bar, drag and drop of weights files and
// folders, and the remembered layout.

#include <QMainWindow>

#include <vector>

class QActionGroup;
class QListWidget;
class QMenu;
class QStackedWidget;

namespace beamscope::ui {

class AppSettings;
class Workspace;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(AppSettings &settings, QWidget *parent = nullptr);
    ~MainWindow() override;

    QStringList workspaceIds() const;
    Workspace *workspace(const QString &id) const;
    Workspace *currentWorkspace() const;
    void setCurrentWorkspace(const QString &id);

    // Hands a file or folder to the first workspace that accepts it and shows
    // that workspace; false (with a status-bar message) when none does.
    bool openPath(const QString &path);

    // Writes geometry, state and splitters when "Remember the window layout" is on.
    void saveSettings();

    // What Help › Keyboard shortcuts lists.
    QString keyboardShortcutsHtml() const;

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createWorkspaces();
    void createMenus();
    void rebuildRecentMenu();
    void openFileDialog();
    void openFolderDialog();
    void showAbout();
    void resetLayout();

    AppSettings &m_settings;
    QListWidget *m_switcher = nullptr;
    QStackedWidget *m_stack = nullptr;
    std::vector<Workspace *> m_workspaces;
    QStringList m_ids;
    QMenu *m_recentMenu = nullptr;
    QAction *m_rememberLayout = nullptr;
    bool m_layoutReset = false;
};

} // namespace beamscope::ui
