#include "ui/common/app_settings.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace beamscope::ui {

namespace {
const char *const kLibraryFolders = "library/folders";
const char *const kRecentFiles = "recent/files";
const char *const kRememberLayout = "window/rememberLayout";
const char *const kGeometry = "window/geometry";
const char *const kState = "window/state";
const char *const kWorkspace = "window/workspace";

void appendUnique(QStringList &list, const QString &path)
{
    const QString normal = canonicalPath(path);
    if (!normal.isEmpty() && !list.contains(normal))
        list.append(normal);
}
} // namespace

QString canonicalPath(const QString &path)
{
    if (path.isEmpty())
        return {};
    const QFileInfo info(path);
    const QString canonical = info.canonicalFilePath();
    return canonical.isEmpty() ? QDir::cleanPath(info.absoluteFilePath()) : canonical;
}

bool isInsideFolder(const QString &path, const QString &folder)
{
    return !folder.isEmpty() && canonicalPath(path).startsWith(canonicalPath(folder) + QLatin1Char('/'));
}

QStringList AppSettings::libraryFolders() const { return m_settings.value(kLibraryFolders).toStringList(); }

void AppSettings::addLibraryFolder(const QString &folder)
{
    QStringList folders = libraryFolders();
    appendUnique(folders, folder);
    m_settings.setValue(kLibraryFolders, folders);
}

void AppSettings::removeLibraryFolder(const QString &folder)
{
    QStringList folders = libraryFolders();
    folders.removeAll(canonicalPath(folder));
    m_settings.setValue(kLibraryFolders, folders);
}

QString AppSettings::trainedWeightsFolder()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/trained");
}

QStringList AppSettings::allLibraryFolders() const
{
    QStringList all;
    for (const QString &folder : m_sessionFolders)
        appendUnique(all, folder);
    for (const QString &folder : libraryFolders())
        appendUnique(all, folder);
    if (QFileInfo(trainedWeightsFolder()).isDir())
        appendUnique(all, trainedWeightsFolder());
    return all;
}

QStringList AppSettings::recentFiles() const
{
    QStringList present;
    for (const QString &path : m_settings.value(kRecentFiles).toStringList())
        if (QFileInfo::exists(path))
            present.append(path);
    return present;
}

void AppSettings::addRecentFile(const QString &path)
{
    const QString normal = canonicalPath(path);
    QStringList files = m_settings.value(kRecentFiles).toStringList();
    files.removeAll(normal);
    files.prepend(normal);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    m_settings.setValue(kRecentFiles, files);
}

void AppSettings::clearRecentFiles() { m_settings.remove(kRecentFiles); }

bool AppSettings::rememberLayout() const { return m_settings.value(kRememberLayout, true).toBool(); }

void AppSettings::setRememberLayout(bool remember) { m_settings.setValue(kRememberLayout, remember); }

QByteArray AppSettings::windowGeometry() const { return m_settings.value(kGeometry).toByteArray(); }

QByteArray AppSettings::windowState() const { return m_settings.value(kState).toByteArray(); }

void AppSettings::setWindow(const QByteArray &geometry, const QByteArray &state)
{
    m_settings.setValue(kGeometry, geometry);
    m_settings.setValue(kState, state);
}

QString AppSettings::currentWorkspace() const { return m_settings.value(kWorkspace).toString(); }

void AppSettings::setCurrentWorkspace(const QString &id) { m_settings.setValue(kWorkspace, id); }

QString AppSettings::lastFolder(const QString &workspace) const
{
    return m_settings.value(QStringLiteral("lastFolder/%1").arg(workspace)).toString();
}

void AppSettings::setLastFolder(const QString &workspace, const QString &folder)
{
    m_settings.setValue(QStringLiteral("lastFolder/%1").arg(workspace), folder);
}

QByteArray AppSettings::layoutValue(const QString &workspace, const QString &key) const
{
    return m_settings.value(QStringLiteral("layout/%1/%2").arg(workspace, key)).toByteArray();
}

void AppSettings::setLayoutValue(const QString &workspace, const QString &key, const QByteArray &value)
{
    m_settings.setValue(QStringLiteral("layout/%1/%2").arg(workspace, key), value);
}

void AppSettings::clearLayout()
{
    m_settings.remove(QStringLiteral("layout"));
    m_settings.remove(kGeometry);
    m_settings.remove(kState);
}

} // namespace beamscope::ui
