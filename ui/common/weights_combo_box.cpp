#include "ui/common/weights_combo_box.h"

#include "ui/common/app_settings.h"
#include "ui/weights/weights_library.h"

#include "core/weights/shipped_weights.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QSignalBlocker>

#include <limits>

namespace beamscope::ui {

namespace {
const QString kOtherFile = QStringLiteral("\x01other");
}

WeightsComboBox::WeightsComboBox(AppSettings &settings, QWidget *parent) : QComboBox(parent), m_settings(settings)
{
    setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    setMinimumContentsLength(18);
    addItem(tr("Scanning the library…"));
    setEnabled(false);
    connect(this, &QComboBox::activated, this, &WeightsComboBox::onActivated);
    connect(this, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0 && itemData(index, PathRole).toString() != kOtherFile) {
            m_lastIndex = index;
            Q_EMIT pathChanged(path());
        }
    });
    rescan();
}

void WeightsComboBox::rescan()
{
    LibraryScanRequest request;
    request.folders = m_settings.allLibraryFolders();
    request.files = recentWeightsFiles(m_settings.recentFiles()) + m_extraFiles;
    request.trainedFolder = AppSettings::trainedWeightsFolder();
    m_scan.start(
        this, [request] { return scanLibrary(request); },
        [this](const LibraryScanResult &result) {
            fill(result);
            Q_EMIT scanned();
        });
}

int WeightsComboBox::defaultRank(const LibraryEntry &entry) const
{
    if (entry.untrained)
        return 5;
    switch (entry.group) {
    case LibraryGroup::TrainedHere: return m_preferTrained ? 0 : 2;
    case LibraryGroup::PerApp: return 1;
    case LibraryGroup::Other:
    case LibraryGroup::General: return 3;
    case LibraryGroup::Baseline: return 4;
    }
    return 5;
}

void WeightsComboBox::fill(const LibraryScanResult &result)
{
    QString keep = m_wanted;
    if (keep.isEmpty() && m_userChose)
        keep = currentIndex() >= 0 ? itemData(currentIndex(), PathRole).toString() : QString();
    QString fallback;
    int fallbackRank = std::numeric_limits<int>::max();
    {
        const QSignalBlocker block(this);
        clear();
        QStringList listed;
        for (const auto &entry : result.entries) {
            if (!entry.valid || entry.network != QLatin1String("anderson2021"))
                continue; // the GPU model cannot use it
            // Untrained files say so in the list itself, where the choice is made.
            // "(untrained)" next to the name, so a narrow box that elides its end still shows it.
            const QString name = libraryEntryLabel(entry);
            const QString text = QStringLiteral("%1 — %2").arg(name, libraryGroupTitle(entry.group));
            addItem(text, entry.path);
            setItemData(count() - 1,
                        entry.provenance.isEmpty() ? entry.path : entry.path + QLatin1Char('\n') + entry.provenance,
                        Qt::ToolTipRole);
            listed.append(entry.path);
            // The default is a trained file wherever one is listed: an untrained
            // initialisation (baseline, gpu) is chosen only by hand or when nothing else is there.
            const int rank = defaultRank(entry);
            if (rank < fallbackRank) {
                fallbackRank = rank;
                fallback = entry.path;
            }
        }
        for (const QString &file : m_extraFiles)
            if (!listed.contains(file)) {
                addItem(QFileInfo(file).completeBaseName(), file);
                setItemData(count() - 1, file, Qt::ToolTipRole);
            }
        for (const auto &[text, value] : m_special)
            addItem(text, value);
        addItem(tr("Other file…"), kOtherFile);
        if (!m_defaultPath.isEmpty() && listed.contains(m_defaultPath))
            fallback = m_defaultPath; // the pipelines' own default outranks any general preference
        if (fallback.isEmpty() && count() > 1)
            fallback = itemData(0, PathRole).toString();
    }
    setEnabled(true);
    const QString target = keep.isEmpty() ? fallback : keep;
    int index = findData(target, PathRole);
    if (index < 0)
        index = findData(fallback, PathRole);
    m_wanted.clear();
    m_lastIndex = -1;
    setCurrentIndex(index < 0 ? 0 : index);
    if (currentIndex() == m_lastIndex)
        return;
    m_lastIndex = currentIndex();
    Q_EMIT pathChanged(path());
}

void WeightsComboBox::setPipelines(const QStringList &pipelines)
{
    if (pipelines == m_pipelines)
        return;
    m_pipelines = pipelines;
    std::vector<std::string> names;
    for (const QString &p : pipelines)
        names.push_back(p.toStdString());
    m_defaultPath.clear();
    m_defaultReason.clear();
    if (!names.empty())
        if (const auto chosen = weights::defaultWeightsFor(names)) {
            m_defaultPath = canonicalPath(QString::fromStdString(chosen->path.string()));
            m_defaultReason = QString::fromStdString(chosen->reason);
        }
    chooseDefaultForPipelines();
}

void WeightsComboBox::chooseDefaultForPipelines()
{
    if (m_userChose || m_scan.pending() || m_defaultPath.isEmpty() || !specialValue().isEmpty())
        return; // a choice made, or a special item (random initialisation) chosen on purpose
    const int index = findData(m_defaultPath, PathRole);
    if (index >= 0 && index != currentIndex())
        setCurrentIndex(index); // emits pathChanged
}

QString WeightsComboBox::defaultReason() const
{
    return !m_defaultPath.isEmpty() && path() == m_defaultPath ? m_defaultReason : QString();
}

void WeightsComboBox::setPath(const QString &path)
{
    const QString normal = canonicalPath(path);
    m_userChose = true;
    if (m_scan.pending()) {
        m_wanted = normal;
        if (!m_extraFiles.contains(normal))
            m_extraFiles.append(normal);
        return;
    }
    int index = findData(normal, PathRole);
    if (index < 0) {
        m_extraFiles.append(normal);
        insertItem(0, QFileInfo(normal).completeBaseName(), normal);
        setItemData(0, normal, Qt::ToolTipRole);
        index = 0;
        setCurrentIndex(index);
        m_wanted = normal;
        rescan(); // to name its library group, as for every other entry
        return;
    }
    setCurrentIndex(index);
}

QString WeightsComboBox::path() const
{
    // A file named while the library is still being scanned is the choice already (an autotune run
    // started then must not fall back to a default).
    if (m_scan.pending() && !m_wanted.isEmpty())
        return m_wanted;
    const QString value = currentIndex() >= 0 ? itemData(currentIndex(), PathRole).toString() : QString();
    for (const auto &special : m_special)
        if (special.second == value)
            return {};
    return value == kOtherFile ? QString() : value;
}

void WeightsComboBox::addSpecialItem(const QString &text, const QString &value)
{
    m_special.append({text, value});
    if (!m_scan.pending())
        insertItem(count() - 1, text, value);
}

QString WeightsComboBox::specialValue() const
{
    const QString value = currentIndex() >= 0 ? itemData(currentIndex(), PathRole).toString() : QString();
    for (const auto &special : m_special)
        if (special.second == value)
            return value;
    return {};
}

void WeightsComboBox::onActivated(int index)
{
    m_userChose = true;
    m_wanted.clear();
    if (itemData(index, PathRole).toString() != kOtherFile)
        return;
    const QString file =
        QFileDialog::getOpenFileName(this, tr("Choose weights"), {}, tr("Weights (*.weights);;All files (*)"));
    if (file.isEmpty()) {
        setCurrentIndex(m_lastIndex >= 0 ? m_lastIndex : 0);
        return;
    }
    setPath(file);
}

} // namespace beamscope::ui
