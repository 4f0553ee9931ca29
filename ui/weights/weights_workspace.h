#pragma once
// The Weights workspace: the library of weights files on the left; on the right
// either the open file (header summary, tensor table, heatmap, histogram) or the
// comparison of two files. Files load on a worker thread (LatestJob).

#include "ui/common/latest_job.h"
#include "ui/mainwindow/workspace.h"
#include "ui/weights/loaded_weights.h"
#include "ui/weights/weights_library.h"

class QAction;
class QLabel;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QTableView;
class QTreeView;

namespace beamscope::ui {

class ConversionDialog;
class DiffView;
class HeatmapPanel;
class HistogramWidget;
class LibraryModel;
class StartPage;
class SummaryWidget;
class TensorTableModel;

class WeightsWorkspace : public Workspace {
    Q_OBJECT
public:
    WeightsWorkspace(AppSettings &settings, QWidget *parent = nullptr);
    ~WeightsWorkspace() override;

    bool canOpen(const QString &path) const override;
    // A .weights file or legacy directory is shown; any other folder joins the library.
    void open(const QString &path) override;
    void saveLayout() override;
    void restoreLayout() override;

    QList<QAction *> fileActions() const override { return {m_compareWithAction, m_convertAction}; }
    QAction *convertAction() const { return m_convertAction; }
    QAction *compareWithAction() const { return m_compareWithAction; }

    void rescanLibrary();
    void addLibraryFolder(const QString &folder); // remembered in settings
    void showFile(const QString &path);           // without touching the recent list
    void compare(const QString &a, const QString &b);
    bool selectTensor(const QString &name);
    void openConversionDialog();

    // For tests and the main window.
    bool isBusy() const;
    const LoadedWeightsPtr &currentWeights() const { return m_current; }
    QString currentTensor() const;
    LibraryModel *libraryModel() const { return m_libraryModel; }
    QTreeView *libraryView() const { return m_libraryView; }
    TensorTableModel *tensorModel() const { return m_tensorModel; }
    QTableView *tensorView() const { return m_tensorView; }
    SummaryWidget *summary() const { return m_summary; }
    HeatmapPanel *heatmapPanel() const { return m_heatmap; }
    HistogramWidget *histogram() const { return m_histogram; }
    DiffView *diffView() const { return m_diffView; }
    QTabWidget *tabs() const { return m_tabs; }
    bool startPageShown() const;
    ConversionDialog *conversionDialog() const { return m_conversion; }
    QList<QSplitter *> splitters() const;

Q_SIGNALS:
    void libraryScanned();
    void weightsDisplayed(const QString &path);
    void comparisonDisplayed();

private:
    QWidget *buildLibraryPanel();
    QWidget *buildInspectPage();
    void onLibrarySelectionChanged();
    void onLibraryScanned(const LibraryScanResult &result);
    void displayWeights(const LoadedWeightsPtr &weights);
    void showTensorRow(int row);
    void updateRightPage();
    void chooseAndCompare();
    void chooseAndOpenFile();
    void chooseAndAddFolder();
    void showLibraryContextMenu(const QPoint &position);

    LatestJob m_scanJob, m_loadJob, m_diffJob;
    LoadedWeightsPtr m_current;
    QString m_wantedTensor = QStringLiteral("head2_filter");
    bool m_openedSomething = false; // after that, a rescan no longer opens the baseline by itself
    bool m_firstScanDone = false;

    LibraryModel *m_libraryModel = nullptr;
    QTreeView *m_libraryView = nullptr;
    QLabel *m_libraryNote = nullptr;
    QStackedWidget *m_right = nullptr;
    StartPage *m_startPage = nullptr;
    QTabWidget *m_tabs = nullptr;
    SummaryWidget *m_summary = nullptr;
    TensorTableModel *m_tensorModel = nullptr;
    QTableView *m_tensorView = nullptr;
    HeatmapPanel *m_heatmap = nullptr;
    HistogramWidget *m_histogram = nullptr;
    DiffView *m_diffView = nullptr;
    QSplitter *m_mainSplitter = nullptr;
    QSplitter *m_inspectSplitter = nullptr;
    QSplitter *m_plotsSplitter = nullptr;
    QAction *m_convertAction = nullptr;
    QAction *m_compareWithAction = nullptr;
    QAction *m_rescanAction = nullptr;
    ConversionDialog *m_conversion = nullptr;
};

} // namespace beamscope::ui
