#pragma once
// A drop-down of the weights library (ui/weights/weights_library.h: the same
// folders and grouping the Weights workspace shows), listing the files the
// GPU (Anderson2021) model can use, plus "Other file…" for anything else.
// Scanning runs on a worker thread (LatestJob); rescan() after a file was
// written, e.g. by a training run, to list it.

#include "ui/common/latest_job.h"

#include <QComboBox>
#include <QString>

namespace beamscope::ui {

class AppSettings;
struct LibraryEntry;
struct LibraryScanResult;

class WeightsComboBox : public QComboBox {
    Q_OBJECT
public:
    enum Role { PathRole = Qt::UserRole }; // where addItem(text, data) keeps data

    WeightsComboBox(AppSettings &settings, QWidget *parent = nullptr);

    void rescan();
    // Selects path, adding it to the list when the library does not hold it.
    void setPath(const QString &path);
    // The chosen weights file ("" while nothing is chosen or a special item is).
    QString path() const;
    // An extra item that is not a file (e.g. "Random initialisation"); it keeps
    // its place at the end of the list across rescans. value goes to PathRole.
    void addSpecialItem(const QString &text, const QString &value);
    QString specialValue() const; // the chosen special item's value, else ""

    // The entry selected by default: for the pipelines at hand, the shipped file
    // weights::defaultWeightsFor picks (an app's own hold-one-out file, never one
    // trained on it; the CLI defaults the same way), else a trained file before an
    // untrained one (baseline, gpu), or with preferTrained the first file trained here.
    void setPreferTrained(bool preferTrained) { m_preferTrained = preferTrained; }
    // The pipelines (app names) the weights will judge; a choice the user made is kept.
    void setPipelines(const QStringList &pipelines);
    // Why the default is what it is ("harris.weights: the hold-one-out file for harris ...");
    // empty once the user chose another file.
    QString defaultReason() const;
    bool scanPending() const { return m_scan.pending(); }

Q_SIGNALS:
    void pathChanged(const QString &path);
    void scanned();

private:
    void fill(const LibraryScanResult &result);
    void chooseDefaultForPipelines();
    // Lower is a better default: trained files before untrained initialisations.
    int defaultRank(const LibraryEntry &entry) const;
    void onActivated(int index);

    AppSettings &m_settings;
    LatestJob m_scan;
    QString m_wanted;         // path to select once the scan is in
    QStringList m_extraFiles; // chosen through "Other file…"
    QList<QPair<QString, QString>> m_special;
    bool m_preferTrained = false;
    QStringList m_pipelines;
    QString m_defaultPath, m_defaultReason; // from defaultWeightsFor(m_pipelines)
    bool m_userChose = false;
    int m_lastIndex = -1;
};

} // namespace beamscope::ui
