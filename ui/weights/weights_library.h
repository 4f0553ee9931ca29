#pragma once
// The weights library: every .weights file and legacy six-file directory found in
// the library folders, grouped the way Halide ships them. Scanning is plain
// blocking code (it runs on a worker thread; WeightsWorkspace does that).

#include <QString>
#include <QStringList>

#include <vector>

namespace beamscope::ui {

enum class LibraryGroup { Baseline, PerApp, General, TrainedHere, Other };
constexpr int kLibraryGroupCount = 5;

QString libraryGroupTitle(LibraryGroup group);

// The 16 apps Halide's per-app weights are named after (each trained hold-one-out,
// HALIDE-FACTS.md "Shipped files"); gpu.weights names no app.
const QStringList &perAppNames();

// Group of a weights path by its name: baseline, one of perAppNames(), gpu;
// anything inside trainedFolder is "Trained here"; the rest is "Other".
LibraryGroup classifyWeights(const QString &path, const QString &trainedFolder = {});

struct LibraryEntry {
    QString path;        // canonical absolute path
    QString displayName; // file name without .weights (plus its folder when two entries share a name)
    LibraryGroup group = LibraryGroup::Other;
    bool isDirectory = false;
    bool valid = false;
    bool hasWarnings = false;
    QString network; // "anderson2021" / "adams2019" when valid
    QString problem; // first error (or warnings) in words
    // What a shipped file is ("untrained: ...", "trained on a V100 without harris
    // (hold-one-out)"); empty for any other file.
    QString provenance;
    bool untrained = false; // a shipped untrained initialisation (baseline, gpu)
    qint64 sizeBytes = 0;
};

// The entry's name as lists show it: "(untrained)" right after the file's name, before any
// folder that tells two files of one name apart, so a narrow column that elides the end keeps it.
QString libraryEntryLabel(const LibraryEntry &entry);

struct LibraryScanRequest {
    QStringList folders;
    QStringList files; // opened individually (recent files, command line)
    QString trainedFolder;
    int maxDepth = 3;      // a Halide checkout's anderson2021 folder holds weights/ one level down
    int maxEntries = 2000; // a mistaken "/" must not stall the explorer
};

struct LibraryScanResult {
    std::vector<LibraryEntry> entries; // sorted by group, then name
    QStringList notes;                 // folders that could not be read, truncation
};

// True for a folder holding any of the six legacy member files
// (head1_conv1_weight.data ...): it opens as weights, so a missing or short
// member is shown as an error rather than the folder taken for a library folder.
bool isLegacyWeightsDirectory(const QString &path);

// The recent files that are weights (.weights files and legacy directories): File ›
// Recent also remembers generator libraries and search traces, which are not.
QStringList recentWeightsFiles(const QStringList &recentFiles);

// Loads one path to learn its network and validity.
LibraryEntry describeWeights(const QString &path, LibraryGroup group);

LibraryScanResult scanLibrary(const LibraryScanRequest &request);

} // namespace beamscope::ui
