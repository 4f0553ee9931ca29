#include "ui/weights/weights_workspace.h"

#include "ui/common/app_settings.h"
#include "ui/common/resources.h"
#include "ui/weights/conversion_dialog.h"
#include "ui/weights/diff_view.h"
#include "ui/weights/heatmap_panel.h"
#include "ui/weights/histogram_widget.h"
#include "ui/weights/library_model.h"
#include "ui/weights/start_page.h"
#include "ui/weights/summary_widget.h"
#include "ui/weights/tensor_table_model.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace beamscope::ui {

namespace {
const QString kWorkspaceId = QStringLiteral("weights");

QToolButton *toolButton(QAction *action, QWidget *parent)
{
    auto *button = new QToolButton(parent);
    button->setDefaultAction(action);
    button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    button->setAutoRaise(true);
    return button;
}
} // namespace

WeightsWorkspace::WeightsWorkspace(AppSettings &settings, QWidget *parent) : Workspace(settings, parent)
{
    initResources();
    setObjectName(kWorkspaceId);
    m_convertAction = new QAction(QIcon(QStringLiteral(":/icons/convert.svg")), tr("&Convert weights…"), this);
    m_convertAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    m_convertAction->setToolTip(tr("Convert between a .weights file and a legacy six-file directory"));
    m_compareWithAction = new QAction(QIcon(QStringLiteral(":/icons/compare.svg")), tr("Compare &with…"), this);
    m_compareWithAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    m_compareWithAction->setToolTip(tr("Compare the open weights with another file (Ctrl+click two files in the "
                                       "library does the same)"));
    m_rescanAction = new QAction(QIcon(QStringLiteral(":/icons/rescan.svg")), tr("Rescan"), this);
    m_rescanAction->setShortcut(QKeySequence::Refresh);
    m_rescanAction->setToolTip(tr("Look for weights in the library folders again (F5)"));
    addAction(m_rescanAction);
    connect(m_convertAction, &QAction::triggered, this, &WeightsWorkspace::openConversionDialog);
    connect(m_compareWithAction, &QAction::triggered, this, &WeightsWorkspace::chooseAndCompare);
    connect(m_rescanAction, &QAction::triggered, this, &WeightsWorkspace::rescanLibrary);

    m_right = new QStackedWidget(this);
    m_startPage = new StartPage(m_right);
    m_right->addWidget(m_startPage);
    m_tabs = new QTabWidget(m_right);
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(buildInspectPage(), QIcon(QStringLiteral(":/icons/weights-file.svg")), tr("&Inspect"));
    m_diffView = new DiffView(m_tabs);
    m_tabs->addTab(m_diffView, QIcon(QStringLiteral(":/icons/compare.svg")), tr("Co&mpare"));
    m_right->addWidget(m_tabs);
    connect(m_startPage, &StartPage::openFileRequested, this, &WeightsWorkspace::chooseAndOpenFile);
    connect(m_startPage, &StartPage::addFolderRequested, this, &WeightsWorkspace::chooseAndAddFolder);

    m_mainSplitter = new QSplitter(Qt::Horizontal, this);
    m_mainSplitter->addWidget(buildLibraryPanel());
    m_mainSplitter->addWidget(m_right);
    m_mainSplitter->setStretchFactor(0, 0);
    m_mainSplitter->setStretchFactor(1, 1);
    m_mainSplitter->setSizes({370, 1100});
    m_mainSplitter->setChildrenCollapsible(false);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_mainSplitter);

    updateRightPage();
    rescanLibrary();
}

WeightsWorkspace::~WeightsWorkspace() = default;

QWidget *WeightsWorkspace::buildLibraryPanel()
{
    auto *panel = new QWidget(this);
    auto *layout = new QVBoxLayout(panel);
    layout->setContentsMargins(6, 6, 0, 6);
    layout->setSpacing(4);

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("<b>Library</b>"), panel));
    top->addStretch(1);
    auto *addFolder = new QAction(QIcon(QStringLiteral(":/icons/folder-add.svg")), tr("Add folder…"), panel);
    addFolder->setToolTip(tr("Add a folder to the library (searched three levels deep)"));
    connect(addFolder, &QAction::triggered, this, &WeightsWorkspace::chooseAndAddFolder);
    auto *addButton = toolButton(addFolder, panel);
    addButton->setToolButtonStyle(Qt::ToolButtonIconOnly);
    top->addWidget(addButton);
    // The folders the library scans; the ones added here can be removed again.
    auto *folders = new QToolButton(panel);
    folders->setIcon(QIcon(QStringLiteral(":/icons/group.svg")));
    folders->setToolTip(tr("Library folders"));
    folders->setAutoRaise(true);
    folders->setPopupMode(QToolButton::InstantPopup);
    auto *foldersMenu = new QMenu(folders);
    folders->setMenu(foldersMenu);
    connect(foldersMenu, &QMenu::aboutToShow, this, [this, foldersMenu] {
        foldersMenu->clear();
        const QStringList remembered = settings().libraryFolders();
        for (const QString &folder : settings().allLibraryFolders()) {
            if (remembered.contains(folder)) {
                foldersMenu->addAction(tr("Remove %1").arg(folder), this, [this, folder] {
                    settings().removeLibraryFolder(folder);
                    rescanLibrary();
                });
            } else {
                foldersMenu->addAction(tr("%1 (command line, environment or built in)").arg(folder))->setEnabled(false);
            }
        }
        if (foldersMenu->isEmpty())
            foldersMenu->addAction(tr("No library folders yet"))->setEnabled(false);
    });
    top->addWidget(folders);
    auto *rescanButton = toolButton(m_rescanAction, panel);
    rescanButton->setToolButtonStyle(Qt::ToolButtonIconOnly);
    top->addWidget(rescanButton);
    layout->addLayout(top);

    m_libraryModel = new LibraryModel(this);
    m_libraryView = new QTreeView(panel);
    m_libraryView->setModel(m_libraryModel);
    m_libraryView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_libraryView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_libraryView->setUniformRowHeights(true);
    m_libraryView->setAllColumnsShowFocus(true);
    m_libraryView->setContextMenuPolicy(Qt::CustomContextMenu);
    m_libraryView->setToolTip(tr("Click a file to inspect it; Ctrl+click a second one to compare the two"));
    m_libraryView->header()->setStretchLastSection(false);
    m_libraryView->header()->setSectionResizeMode(LibraryModel::NameColumn, QHeaderView::Stretch);
    m_libraryView->header()->setSectionResizeMode(LibraryModel::NetworkColumn, QHeaderView::ResizeToContents);
    layout->addWidget(m_libraryView, 1);
    connect(m_libraryView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &WeightsWorkspace::onLibrarySelectionChanged);
    connect(m_libraryView, &QTreeView::customContextMenuRequested, this, &WeightsWorkspace::showLibraryContextMenu);

    m_libraryNote = new QLabel(panel);
    m_libraryNote->setWordWrap(true);
    m_libraryNote->setEnabled(false);
    layout->addWidget(m_libraryNote);

    auto *bottom = new QHBoxLayout;
    bottom->addWidget(toolButton(m_compareWithAction, panel));
    bottom->addWidget(toolButton(m_convertAction, panel));
    bottom->addStretch(1);
    layout->addLayout(bottom);
    return panel;
}

QWidget *WeightsWorkspace::buildInspectPage()
{
    auto *page = new QWidget(this);
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(6, 6, 6, 6);
    m_summary = new SummaryWidget(page);
    layout->addWidget(m_summary);

    m_tensorModel = new TensorTableModel(this);
    m_tensorView = new QTableView(page);
    m_tensorView->setModel(m_tensorModel);
    m_tensorView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tensorView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tensorView->verticalHeader()->hide();
    m_tensorView->setAlternatingRowColors(true);
    m_tensorView->setWordWrap(false);
    m_tensorView->horizontalHeader()->setStretchLastSection(false);
    m_tensorView->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_tensorView->verticalHeader()->setDefaultSectionSize(m_tensorView->fontMetrics().height() + 6);
    m_tensorView->setToolTip(tr("Select a tensor to see its heatmap and histogram"));
    connect(m_tensorView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    showTensorRow(current.row());
            });

    m_heatmap = new HeatmapPanel(page);
    connect(m_heatmap->heatmap(), &HeatmapWidget::hovered, this, [this](const QString &text) {
        if (!text.isEmpty())
            Q_EMIT statusMessage(text, 4000);
    });
    m_histogram = new HistogramWidget(page);

    m_plotsSplitter = new QSplitter(Qt::Horizontal, page);
    m_plotsSplitter->addWidget(m_heatmap);
    m_plotsSplitter->addWidget(m_histogram);
    m_plotsSplitter->setStretchFactor(0, 3);
    m_plotsSplitter->setStretchFactor(1, 1);
    m_plotsSplitter->setSizes({700, 420});

    m_inspectSplitter = new QSplitter(Qt::Vertical, page);
    m_inspectSplitter->addWidget(m_tensorView);
    m_inspectSplitter->addWidget(m_plotsSplitter);
    m_inspectSplitter->setStretchFactor(0, 0);
    m_inspectSplitter->setStretchFactor(1, 1);
    // Exactly tall enough for the six tensors and the header.
    const int tableHeight = m_tensorView->horizontalHeader()->sizeHint().height() +
                            6 * m_tensorView->verticalHeader()->defaultSectionSize() + 2 * m_tensorView->frameWidth() +
                            2;
    m_inspectSplitter->setSizes({tableHeight, 600});
    layout->addWidget(m_inspectSplitter, 1);
    return page;
}

QList<QSplitter *> WeightsWorkspace::splitters() const
{
    QList<QSplitter *> all = {m_mainSplitter, m_inspectSplitter, m_plotsSplitter};
    all.append(m_diffView->splitters());
    return all;
}

void WeightsWorkspace::saveLayout()
{
    const auto all = splitters();
    for (int i = 0; i < all.size(); ++i)
        settings().setLayoutValue(kWorkspaceId, QStringLiteral("splitter%1").arg(i), all[i]->saveState());
}

void WeightsWorkspace::restoreLayout()
{
    const auto all = splitters();
    for (int i = 0; i < all.size(); ++i) {
        const QByteArray state = settings().layoutValue(kWorkspaceId, QStringLiteral("splitter%1").arg(i));
        if (!state.isEmpty())
            all[i]->restoreState(state);
    }
}

bool WeightsWorkspace::canOpen(const QString &path) const
{
    const QFileInfo info(path);
    if (info.isDir())
        return true; // a legacy weights directory, or a folder for the library
    return info.isFile() && (info.suffix() == QLatin1String("weights") || path.endsWith(QLatin1String(".weights")));
}

void WeightsWorkspace::open(const QString &path)
{
    const QString normal = canonicalPath(path);
    if (QFileInfo(normal).isDir() && !isLegacyWeightsDirectory(normal)) {
        addLibraryFolder(normal);
        return;
    }
    settings().addRecentFile(normal);
    Q_EMIT fileOpened(normal);
    showFile(normal);
    if (!m_libraryModel->indexOfPath(normal).isValid())
        rescanLibrary(); // recent files are part of the library
}

void WeightsWorkspace::addLibraryFolder(const QString &folder)
{
    settings().addLibraryFolder(folder);
    Q_EMIT statusMessage(tr("Added %1 to the library").arg(folder), 5000);
    rescanLibrary();
}

void WeightsWorkspace::rescanLibrary()
{
    LibraryScanRequest request;
    request.folders = settings().allLibraryFolders();
    request.files = recentWeightsFiles(settings().recentFiles());
    if (m_current)
        request.files.append(m_current->path);
    request.trainedFolder = AppSettings::trainedWeightsFolder();
    m_libraryNote->setText(tr("Scanning %n folder(s)…", nullptr, static_cast<int>(request.folders.size())));
    m_startPage->setSearchedFolders(request.folders);
    m_scanJob.start(
        this, [request] { return scanLibrary(request); },
        [this, folders = request.folders](const LibraryScanResult &result) {
            onLibraryScanned(result);
            m_libraryNote->setToolTip(tr("Library folders:\n%1").arg(folders.join(QLatin1Char('\n'))));
        });
}

void WeightsWorkspace::onLibraryScanned(const LibraryScanResult &result)
{
    QStringList selected;
    for (const QModelIndex &index : m_libraryView->selectionModel()->selectedRows())
        selected.append(index.data(LibraryModel::PathRole).toString());
    // What is shown may have been opened before its entry existed: highlight it now.
    if (selected.isEmpty() && m_tabs->currentWidget() == m_diffView && m_diffView->hasDiff())
        selected = {m_diffView->a()->path, m_diffView->b()->path};
    else if (selected.isEmpty() && m_current)
        selected = {m_current->path};
    {
        const QSignalBlocker block(m_libraryView->selectionModel());
        m_libraryModel->setEntries(result.entries);
        m_libraryView->expandAll();
        for (const QString &path : selected) {
            const QModelIndex index = m_libraryModel->indexOfPath(path);
            if (index.isValid())
                m_libraryView->selectionModel()->select(index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
        }
    }
    int invalid = 0;
    for (const auto &entry : result.entries)
        invalid += entry.valid ? 0 : 1;
    QString note = tr("%n weights found", nullptr, m_libraryModel->entryCount());
    if (invalid > 0)
        note += tr(", %n invalid", nullptr, invalid);
    if (!result.notes.isEmpty())
        note += QStringLiteral(" (%1)").arg(result.notes.join(QStringLiteral("; ")));
    m_libraryNote->setText(note);

    if (!m_openedSomething && !m_current) {
        // On a fresh start, open the baseline: the GPU model's first, else any.
        QString baseline;
        for (const auto &entry : result.entries) {
            if (entry.group != LibraryGroup::Baseline || !entry.valid)
                continue;
            if (entry.network == QLatin1String("anderson2021")) {
                baseline = entry.path;
                break;
            }
            if (baseline.isEmpty())
                baseline = entry.path;
        }
        if (!baseline.isEmpty())
            showFile(baseline);
    }
    m_firstScanDone = true;
    updateRightPage();
    Q_EMIT libraryScanned();
}

void WeightsWorkspace::updateRightPage()
{
    const bool nothing = m_libraryModel->entryCount() == 0 && !m_current && !m_loadJob.pending() &&
                         !m_diffJob.pending() && !m_diffView->hasDiff();
    m_right->setCurrentWidget(nothing && m_firstScanDone ? static_cast<QWidget *>(m_startPage) : m_tabs);
    m_compareWithAction->setEnabled(m_current && m_current->ok());
}

bool WeightsWorkspace::startPageShown() const { return m_right->currentWidget() == m_startPage; }

void WeightsWorkspace::showFile(const QString &path)
{
    m_openedSomething = true;
    m_summary->setLoading(path);
    m_tabs->setCurrentIndex(0);
    const QModelIndex index = m_libraryModel->indexOfPath(canonicalPath(path));
    if (index.isValid()) {
        const QSignalBlocker block(m_libraryView->selectionModel());
        m_libraryView->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                                    QItemSelectionModel::Rows);
        m_libraryView->scrollTo(index);
    }
    m_loadJob.start(
        this, [path] { return loadForDisplay(path); },
        [this](const LoadedWeightsPtr &weights) { displayWeights(weights); });
    updateRightPage();
}

void WeightsWorkspace::displayWeights(const LoadedWeightsPtr &weights)
{
    m_current = weights;
    m_summary->setWeights(weights);
    m_tensorModel->setWeights(weights);
    m_tensorView->resizeColumnsToContents();
    // An unreadable file has no tensors: its view is the errors, not empty tables and axes.
    m_tensorView->setVisible(weights->ok());
    m_histogram->setVisible(weights->ok());
    if (weights->ok()) {
        int row = m_tensorModel->rowOfTensor(m_wantedTensor);
        if (row < 0)
            row = 0;
        m_tensorView->selectRow(row);
        showTensorRow(row);
        if (isVisible()) // the baseline opened in the background on a start elsewhere is no news
            Q_EMIT statusMessage(tr("Opened %1").arg(weights->path), 4000);
    } else {
        m_heatmap->clear();
        m_heatmap->heatmap()->setEmptyText(tr("This file cannot be shown: see the errors above"));
        m_histogram->clear();
        Q_EMIT statusMessage(tr("%1 cannot be read").arg(weights->path), 0);
    }
    updateRightPage();
    Q_EMIT weightsDisplayed(weights->path);
}

void WeightsWorkspace::showTensorRow(int row)
{
    if (!m_current || !m_current->ok() || row < 0 || row >= m_tensorModel->rowCount())
        return;
    const auto &tensor = m_current->weights().tensors[row];
    const QString name = QString::fromStdString(tensor.name);
    m_wantedTensor = name;
    m_heatmap->setTensor(name, tensor.shape, tensor.data);
    m_histogram->setValues(name, tensor.data);
}

bool WeightsWorkspace::selectTensor(const QString &name)
{
    const int row = m_tensorModel->rowOfTensor(name);
    m_wantedTensor = name;
    if (row < 0)
        return false;
    m_tensorView->selectRow(row);
    showTensorRow(row);
    return true;
}

QString WeightsWorkspace::currentTensor() const { return m_current && m_current->ok() ? m_wantedTensor : QString(); }

bool WeightsWorkspace::isBusy() const { return m_scanJob.pending() || m_loadJob.pending() || m_diffJob.pending(); }

void WeightsWorkspace::onLibrarySelectionChanged()
{
    QStringList paths;
    for (const QModelIndex &index : m_libraryView->selectionModel()->selectedRows())
        if (const LibraryEntry *entry = m_libraryModel->entry(index))
            paths.append(entry->path);
    if (paths.size() == 1) {
        if (!m_current || m_current->path != paths.first() || m_tabs->currentIndex() != 0)
            showFile(paths.first());
    } else if (paths.size() == 2) {
        // The file clicked last is b (the "new" side); the other one is a.
        const QString current = m_libraryView->currentIndex().data(LibraryModel::PathRole).toString();
        if (paths.last() != current && paths.first() == current)
            paths.swapItemsAt(0, 1);
        compare(paths.first(), paths.last());
    }
}

void WeightsWorkspace::compare(const QString &a, const QString &b)
{
    m_openedSomething = true;
    m_tabs->setCurrentWidget(m_diffView);
    m_diffJob.start(
        this, [a, b] { return std::make_pair(loadForDisplay(a), loadForDisplay(b)); },
        [this](const std::pair<LoadedWeightsPtr, LoadedWeightsPtr> &pair) {
            m_diffView->setPair(pair.first, pair.second);
            // Show which two files are compared, however the comparison was asked for.
            const QModelIndex indexA = m_libraryModel->indexOfPath(pair.first->path);
            const QModelIndex indexB = m_libraryModel->indexOfPath(pair.second->path);
            if (indexA.isValid() && indexB.isValid()) {
                const QSignalBlocker block(m_libraryView->selectionModel());
                m_libraryView->selectionModel()->setCurrentIndex(indexA, QItemSelectionModel::ClearAndSelect |
                                                                             QItemSelectionModel::Rows);
                m_libraryView->selectionModel()->setCurrentIndex(indexB, QItemSelectionModel::Select |
                                                                             QItemSelectionModel::Rows);
            }
            m_tabs->setCurrentWidget(m_diffView);
            updateRightPage();
            Q_EMIT comparisonDisplayed();
        });
    updateRightPage();
}

void WeightsWorkspace::chooseAndCompare()
{
    if (!m_current || !m_current->ok()) {
        Q_EMIT statusMessage(tr("Open a weights file first, then compare it with another"), 5000);
        return;
    }
    const QString other =
        QFileDialog::getOpenFileName(this, tr("Compare %1 with").arg(m_current->path),
                                     QFileInfo(m_current->path).path(), tr("Weights (*.weights);;All files (*)"));
    if (!other.isEmpty())
        compare(m_current->path, other);
}

void WeightsWorkspace::chooseAndOpenFile()
{
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open weights"), QString(), tr("Weights (*.weights);;All files (*)"));
    if (!path.isEmpty())
        open(path);
}

void WeightsWorkspace::chooseAndAddFolder()
{
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Add a folder to the library"));
    if (!folder.isEmpty())
        open(folder);
}

void WeightsWorkspace::openConversionDialog()
{
    if (!m_conversion) {
        m_conversion = new ConversionDialog(this);
        connect(m_conversion, &ConversionDialog::converted, this, [this](const QString &destination) {
            settings().addRecentFile(destination);
            Q_EMIT statusMessage(tr("Converted to %1").arg(destination), 5000);
            rescanLibrary();
        });
    }
    if (m_current)
        m_conversion->setSource(m_current->path);
    m_conversion->show();
    m_conversion->raise();
    m_conversion->activateWindow();
}

void WeightsWorkspace::showLibraryContextMenu(const QPoint &position)
{
    const QModelIndex index = m_libraryView->indexAt(position);
    const LibraryEntry *entry = m_libraryModel->entry(index);
    if (!entry)
        return;
    const QString path = entry->path;
    QMenu menu(this);
    menu.addAction(tr("Open"), this, [this, path] { showFile(path); });
    QAction *compareAction =
        menu.addAction(QIcon(QStringLiteral(":/icons/compare.svg")), tr("Compare with the open file"), this,
                       [this, path] { compare(m_current->path, path); });
    compareAction->setEnabled(m_current && m_current->ok() && m_current->path != path && entry->valid);
    menu.addAction(QIcon(QStringLiteral(":/icons/convert.svg")), tr("Convert…"), this, [this, path] {
        openConversionDialog();
        m_conversion->setSource(path);
    });
    menu.addSeparator();
    menu.addAction(tr("Copy path"), this, [path] { QApplication::clipboard()->setText(path); });
    menu.exec(m_libraryView->viewport()->mapToGlobal(position));
}

} // namespace beamscope::ui
