#pragma once
// What the explorer remembers between runs (QSettings) and the folders it was
// given for this run only (command line, BEAMSCOPE_WEIGHTS_PATH, the project's
// own weights/ folder). Tests point QSettings at a temporary location.

#include <QByteArray>
#include <QSettings>
#include <QString>
#include <QStringList>

namespace beamscope::ui {

class AppSettings {
public:
    static constexpr int kMaxRecentFiles = 10;

    AppSettings() = default;

    // Library folders the user added (File > Open folder...); persisted.
    QStringList libraryFolders() const;
    void addLibraryFolder(const QString &folder);
    void removeLibraryFolder(const QString &folder);

    // Folders for this run only: the project's weights/, --weights-dir, BEAMSCOPE_WEIGHTS_PATH.
    void setSessionFolders(const QStringList &folders) { m_sessionFolders = folders; }
    QStringList sessionFolders() const { return m_sessionFolders; }

    // Where weights trained by this explorer are saved (the library's "Trained here" group).
    static QString trainedWeightsFolder();

    // Every folder the library scans, session folders first, without duplicates.
    QStringList allLibraryFolders() const;

    // Most recent first, at most kMaxRecentFiles, missing files dropped on read.
    QStringList recentFiles() const;
    void addRecentFile(const QString &path);
    void clearRecentFiles();

    // "Remember the window layout" (View menu): geometry, dock/toolbar state, splitters.
    bool rememberLayout() const;
    void setRememberLayout(bool remember);

    QByteArray windowGeometry() const;
    QByteArray windowState() const;
    void setWindow(const QByteArray &geometry, const QByteArray &state);
    QString currentWorkspace() const;
    void setCurrentWorkspace(const QString &id);

    // The folder a workspace worked in last (an autotune run), so a later start reopens it.
    QString lastFolder(const QString &workspace) const;
    void setLastFolder(const QString &workspace, const QString &folder);

    // Per-workspace layout (splitter states and such) under "layout/<id>/...".
    QByteArray layoutValue(const QString &workspace, const QString &key) const;
    void setLayoutValue(const QString &workspace, const QString &key, const QByteArray &value);
    void clearLayout();

    void sync() { m_settings.sync(); }

private:
    QSettings m_settings;
    QStringList m_sessionFolders;
};

// Normalised absolute form used to compare folders and files.
QString canonicalPath(const QString &path);
// True when path lies below folder (at any depth), both compared canonically.
bool isInsideFolder(const QString &path, const QString &folder);

} // namespace beamscope::ui
