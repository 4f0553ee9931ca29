#include "ui/weights/weights_library.h"

#include "core/weights/shipped_weights.h"
#include "core/weights/weights.h"
#include "ui/common/app_settings.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QSet>

#include <algorithm>

namespace beamscope::ui {

namespace wt = beamscope::weights;

QString libraryGroupTitle(LibraryGroup group)
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("WeightsLibrary", text); };
    switch (group) {
    case LibraryGroup::Baseline: return tr("Baseline");
    case LibraryGroup::PerApp: return tr("Per-app (hold-one-out)");
    case LibraryGroup::General: return tr("General");
    case LibraryGroup::TrainedHere: return tr("Trained here");
    case LibraryGroup::Other: return tr("Other");
    }
    return {};
}

const QStringList &perAppNames()
{
    static const QStringList names = [] {
        QStringList list;
        for (const std::string &app : wt::holdOneOutApps())
            list.append(QString::fromStdString(app));
        return list;
    }();
    return names;
}

LibraryGroup classifyWeights(const QString &path, const QString &trainedFolder)
{
    if (isInsideFolder(path, trainedFolder))
        return LibraryGroup::TrainedHere;
    const QFileInfo info(path);
    // A legacy directory is named by its folder; a file by its stem.
    const QString stem = info.isDir() ? info.fileName() : info.completeBaseName();
    if (stem == QLatin1String("baseline"))
        return LibraryGroup::Baseline;
    if (perAppNames().contains(stem))
        return LibraryGroup::PerApp;
    if (stem == QLatin1String("gpu"))
        return LibraryGroup::General;
    return LibraryGroup::Other;
}

bool isLegacyWeightsDirectory(const QString &path) { return wt::holdsLegacyWeightsFiles(path.toStdString()); }

LibraryEntry describeWeights(const QString &path, LibraryGroup group)
{
    LibraryEntry entry;
    entry.path = canonicalPath(path);
    entry.isDirectory = QFileInfo(entry.path).isDir();
    // Everything in the library is weights: the ".weights" suffix only takes room.
    entry.displayName = entry.isDirectory ? QFileInfo(entry.path).fileName() + QLatin1Char('/')
                                          : QFileInfo(entry.path).completeBaseName();
    entry.group = group;
    const wt::LoadResult result = wt::loadWeights(entry.path.toStdString());
    entry.sizeBytes = static_cast<qint64>(result.sizeBytes);
    entry.valid = result.ok();
    entry.hasWarnings = result.hasWarnings();
    entry.provenance = QString::fromStdString(wt::describeShippedWeightsFor(entry.path.toStdString(), {}));
    entry.untrained = wt::isUntrainedShippedWeights(entry.path.toStdString());
    if (result.ok())
        entry.network = QString::fromUtf8(wt::networkName(result.weights->network));
    if (const wt::Diagnostic *error = result.firstError()) {
        entry.problem = QString::fromStdString(error->format());
    } else {
        QStringList warnings;
        for (const auto &d : result.diagnostics)
            warnings.append(QString::fromStdString(d.format()));
        entry.problem = warnings.join(QLatin1Char('\n'));
    }
    return entry;
}

namespace {

struct Walker {
    const LibraryScanRequest &request;
    QStringList found;
    QSet<QString> seen;
    QStringList notes;
    bool truncated = false;

    void add(const QString &path)
    {
        const QString normal = canonicalPath(path);
        if (seen.contains(normal))
            return;
        if (found.size() >= request.maxEntries) {
            truncated = true;
            return;
        }
        seen.insert(normal);
        found.append(normal);
    }

    void walk(const QString &folder, int depth)
    {
        if (truncated)
            return;
        if (isLegacyWeightsDirectory(folder)) {
            add(folder);
            return;
        }
        const QDir dir(folder);
        if (!dir.isReadable()) {
            notes.append(QCoreApplication::translate("WeightsLibrary", "cannot read folder %1").arg(folder));
            return;
        }
        const auto files = dir.entryInfoList({QStringLiteral("*.weights")}, QDir::Files | QDir::Readable, QDir::Name);
        for (const QFileInfo &file : files)
            add(file.absoluteFilePath());
        if (depth >= request.maxDepth)
            return;
        const auto subfolders = dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks, QDir::Name);
        for (const QFileInfo &sub : subfolders)
            walk(sub.absoluteFilePath(), depth + 1);
    }
};

} // namespace

QStringList recentWeightsFiles(const QStringList &recentFiles)
{
    QStringList out;
    for (const QString &file : recentFiles)
        if (file.endsWith(QLatin1String(".weights")) || isLegacyWeightsDirectory(file))
            out << file;
    return out;
}

LibraryScanResult scanLibrary(const LibraryScanRequest &request)
{
    Walker walker{request, {}, {}, {}};
    for (const QString &folder : request.folders) {
        if (QFileInfo(folder).isDir())
            walker.walk(folder, 0);
    }
    for (const QString &file : request.files)
        if (QFileInfo::exists(file))
            walker.add(file);

    LibraryScanResult result;
    result.notes = walker.notes;
    if (walker.truncated)
        result.notes.append(
            QCoreApplication::translate("WeightsLibrary", "stopped after %1 entries").arg(request.maxEntries));
    for (const QString &path : walker.found)
        result.entries.push_back(describeWeights(path, classifyWeights(path, request.trainedFolder)));

    // Several folders may hold a baseline.weights: tell them apart by their folder.
    QHash<QString, int> nameCount;
    for (const auto &entry : result.entries)
        ++nameCount[entry.displayName];
    for (auto &entry : result.entries)
        if (nameCount.value(entry.displayName) > 1)
            entry.displayName += QStringLiteral("  (%1)").arg(QFileInfo(QFileInfo(entry.path).path()).fileName());

    std::stable_sort(result.entries.begin(), result.entries.end(), [](const LibraryEntry &a, const LibraryEntry &b) {
        if (a.group != b.group)
            return a.group < b.group;
        return a.displayName.localeAwareCompare(b.displayName) < 0;
    });
    return result;
}

QString libraryEntryLabel(const LibraryEntry &entry)
{
    if (!entry.untrained)
        return entry.displayName;
    const qsizetype folder = entry.displayName.indexOf(QLatin1String("  ("));
    const QString untrained = QCoreApplication::translate("beamscope::ui::LibraryModel", " (untrained)");
    return folder < 0 ? entry.displayName + untrained
                      : entry.displayName.left(folder) + untrained + entry.displayName.mid(folder);
}

} // namespace beamscope::ui
