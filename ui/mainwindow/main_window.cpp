#include "ui/mainwindow/main_window.h"

#include "ui/common/app_settings.h"
#include "ui/common/resources.h"
#include "ui/mainwindow/workspace.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QStackedWidget>
#include <QStatusBar>

#include <algorithm>

namespace beamscope::ui {

MainWindow::MainWindow(AppSettings &settings, QWidget *parent) : QMainWindow(parent), m_settings(settings)
{
    initResources();
    setWindowTitle(tr("Beamscope"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/beamscope.svg")));
    setAcceptDrops(true);
    createWorkspaces();
    createMenus();
    statusBar()->showMessage(tr("Drop .weights files or folders anywhere on this window"), 8000);

    resize(1440, 900);
    if (m_settings.rememberLayout()) {
        const QByteArray geometry = m_settings.windowGeometry();
        if (!geometry.isEmpty())
            restoreGeometry(geometry);
        const QByteArray state = m_settings.windowState();
        if (!state.isEmpty())
            restoreState(state);
        for (Workspace *w : m_workspaces)
            w->restoreLayout();
        if (!m_settings.currentWorkspace().isEmpty())
            setCurrentWorkspace(m_settings.currentWorkspace());
    }
}

MainWindow::~MainWindow() = default;

void MainWindow::createWorkspaces()
{
    auto *central = new QWidget(this);
    auto *layout = new QHBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);

    m_switcher = new QListWidget(central);
    m_switcher->setViewMode(QListView::IconMode);
    m_switcher->setFlow(QListView::TopToBottom);
    m_switcher->setMovement(QListView::Static);
    m_switcher->setIconSize(QSize(32, 32));
    m_switcher->setGridSize(QSize(84, 66));
    m_switcher->setFixedWidth(90);
    m_switcher->setSpacing(0);
    m_switcher->setFrameShape(QFrame::NoFrame);
    m_switcher->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_switcher->setAutoFillBackground(true);
    m_switcher->setBackgroundRole(QPalette::Window);
    m_switcher->setAccessibleName(tr("Workspaces"));
    m_stack = new QStackedWidget(central);
    layout->addWidget(m_switcher);
    auto *line = new QFrame(central);
    line->setFrameShape(QFrame::VLine);
    line->setFrameShadow(QFrame::Sunken);
    layout->addWidget(line);
    layout->addWidget(m_stack, 1);
    setCentralWidget(central);

    for (const WorkspaceRegistration &registration : registeredWorkspaces()) {
        Workspace *workspace = registration.create(m_settings, m_stack);
        workspace->setObjectName(registration.id);
        m_stack->addWidget(workspace);
        m_workspaces.push_back(workspace);
        m_ids.append(registration.id);
        auto *item = new QListWidgetItem(QIcon(registration.icon), registration.title, m_switcher);
        item->setToolTip(registration.toolTip);
        item->setTextAlignment(Qt::AlignHCenter | Qt::AlignTop);
        connect(workspace, &Workspace::statusMessage, this,
                [this](const QString &text, int timeout) { statusBar()->showMessage(text, timeout); });
        // Whatever a workspace opened (weights, a generator library, a search trace) joins File › Recent.
        connect(workspace, &Workspace::fileOpened, this, [this](const QString &path) {
            m_settings.addRecentFile(path);
            rebuildRecentMenu();
        });
        connect(workspace, &Workspace::sampleFolderForWorkspace, this,
                [this](const QString &id, const QString &folder) {
                    Workspace *target = this->workspace(id);
                    if (target && target->offerSampleFolder(folder))
                        setCurrentWorkspace(id);
                });
        connect(workspace, &Workspace::searchStateForWorkspace, this,
                [this](const QString &id, const SearchStateOffer &offer) {
                    Workspace *target = this->workspace(id);
                    if (target && target->offerSearchState(offer))
                        setCurrentWorkspace(id);
                });
    }
    connect(m_switcher, &QListWidget::currentRowChanged, m_stack, &QStackedWidget::setCurrentIndex);
    m_switcher->setCurrentRow(0);
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(QIcon(QStringLiteral(":/icons/weights-file.svg")), tr("&Open weights…"), this,
                                    &MainWindow::openFileDialog);
    open->setShortcut(QKeySequence::Open);
    QAction *folder = file->addAction(QIcon(QStringLiteral(":/icons/folder-add.svg")), tr("Open &folder…"), this,
                                      &MainWindow::openFolderDialog);
    folder->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    folder->setToolTip(tr("Add a folder to the library, or open a legacy weights directory"));
    file->addSeparator();
    for (Workspace *w : m_workspaces) {
        const auto actions = w->fileActions();
        for (QAction *action : actions)
            file->addAction(action);
    }
    file->addSeparator();
    m_recentMenu = file->addMenu(tr("&Recent"));
    rebuildRecentMenu();
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < static_cast<int>(m_workspaces.size()); ++i) {
        QAction *show = view->addAction(m_switcher->item(i)->icon(), m_switcher->item(i)->text(), this,
                                        [this, i] { m_switcher->setCurrentRow(i); });
        if (i < 9)
            show->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)));
    }
    view->addSeparator();
    m_rememberLayout = view->addAction(tr("&Remember the window layout"));
    m_rememberLayout->setCheckable(true);
    m_rememberLayout->setChecked(m_settings.rememberLayout());
    m_rememberLayout->setToolTip(tr("Restore the window size, side panels and splitters at the next start"));
    connect(m_rememberLayout, &QAction::toggled, this, [this](bool on) { m_settings.setRememberLayout(on); });
    view->addAction(tr("Reset &layout"), this, &MainWindow::resetLayout);
    QAction *fullScreen =
        view->addAction(tr("&Full screen"), this, [this](bool on) { on ? showFullScreen() : showNormal(); });
    fullScreen->setCheckable(true);
    fullScreen->setShortcut(QKeySequence::FullScreen);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard shortcuts"), this,
                    [this] { QMessageBox::information(this, tr("Keyboard shortcuts"), keyboardShortcutsHtml()); });
    help->addSeparator();
    QAction *about = help->addAction(tr("&About Beamscope"), this, &MainWindow::showAbout);
    about->setMenuRole(QAction::AboutRole);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = m_settings.recentFiles();
    for (int i = 0; i < recent.size(); ++i) {
        const QString path = recent[i];
        QAction *action = m_recentMenu->addAction(QStringLiteral("&%1  %2").arg(i + 1).arg(QFileInfo(path).fileName()),
                                                  this, [this, path] { openPath(path); });
        action->setToolTip(path);
        action->setStatusTip(path);
    }
    if (recent.isEmpty()) {
        m_recentMenu->addAction(tr("(none yet)"))->setEnabled(false);
        return;
    }
    m_recentMenu->addSeparator();
    m_recentMenu->addAction(tr("&Clear list"), this, [this] {
        m_settings.clearRecentFiles();
        rebuildRecentMenu();
    });
}

QStringList MainWindow::workspaceIds() const { return m_ids; }

Workspace *MainWindow::workspace(const QString &id) const
{
    const auto i = m_ids.indexOf(id);
    return i < 0 ? nullptr : m_workspaces[static_cast<size_t>(i)];
}

Workspace *MainWindow::currentWorkspace() const { return qobject_cast<Workspace *>(m_stack->currentWidget()); }

void MainWindow::setCurrentWorkspace(const QString &id)
{
    const auto i = m_ids.indexOf(id);
    if (i >= 0)
        m_switcher->setCurrentRow(static_cast<int>(i));
}

bool MainWindow::openPath(const QString &path)
{
    int best = -1, bestSpecificity = 0;
    for (size_t i = 0; i < m_workspaces.size(); ++i)
        if (const int s = m_workspaces[i]->openSpecificity(path); s > bestSpecificity) {
            best = static_cast<int>(i);
            bestSpecificity = s;
        }
    if (best >= 0) {
        m_switcher->setCurrentRow(best);
        m_workspaces[static_cast<size_t>(best)]->open(path);
        rebuildRecentMenu();
        return true;
    }
    statusBar()->showMessage(
        QFileInfo::exists(path) ? tr("No workspace opens %1").arg(path) : tr("%1 does not exist").arg(path), 8000);
    return false;
}

void MainWindow::openFileDialog()
{
    const QStringList paths =
        QFileDialog::getOpenFileNames(this, tr("Open weights"), QString(), tr("Weights (*.weights);;All files (*)"));
    for (const QString &path : paths)
        openPath(path);
}

void MainWindow::openFolderDialog()
{
    const QString folder = QFileDialog::getExistingDirectory(
        this, tr("Open a folder (added to the library, or shown if it is a legacy weights directory)"));
    if (!folder.isEmpty())
        openPath(folder);
}

QString MainWindow::keyboardShortcutsHtml() const
{
    const int shown = std::min(9, static_cast<int>(m_workspaces.size()));
    const QList<QPair<QString, QString>> keys = {
        {tr("Ctrl+O"), tr("Open a weights file (File › Open weights…)")},
        {tr("Ctrl+Shift+O"), tr("Open a folder: add it to the weights library, or a legacy weights directory")},
        {tr("Ctrl+1 … Ctrl+%1").arg(shown), tr("Show a workspace (View menu)")},
        {tr("Ctrl+G"), tr("Search: go to a state by its id")},
        {tr("Up / Down"), tr("Search tree: the selected state's parent / a child (the winner's path first)")},
        {tr("Left / Right"), tr("Search tree: the previous / next sibling")},
        {tr("Shift+Left / Shift+Right"), tr("Search tree: the previous / next sibling the beam pruned")},
        {tr("Click / Ctrl+click"), tr("Search tree: select a state / compare it with the selected one")},
        {tr("F, + and −, wheel, drag"), tr("Search tree: fit, zoom, pan")},
        {tr("Wheel over a form"), tr("Scrolls the form; a box takes the wheel only once clicked or tabbed into")},
    };
    QString rows;
    for (const auto &[key, what] : keys)
        rows += QStringLiteral("<tr><td><b>%1</b></td><td>&nbsp;&nbsp;%2</td></tr>")
                    .arg(key.toHtmlEscaped(), what.toHtmlEscaped());
    return QStringLiteral("<table>%1</table>").arg(rows);
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About Beamscope"),
                       tr("<h3>Beamscope %1</h3>"
                          "<p>An explorer for Halide's learned GPU autoscheduler (Anderson2021): its cost model's "
                          "weights, its beam search, its features and predictions.</p>"
                          "<p>Heatmaps use Moreland's cool–warm diverging colour map, centred on 0.</p>"
                          "<p>Built with Qt %2.</p>")
                           .arg(QApplication::applicationVersion(), QString::fromLatin1(qVersion())));
}

void MainWindow::resetLayout()
{
    m_settings.clearLayout();
    m_layoutReset = true; // or closing this window would write the layout back
    statusBar()->showMessage(tr("The default layout is used from the next start"), 6000);
}

void MainWindow::saveSettings()
{
    m_settings.setCurrentWorkspace(m_ids.value(m_switcher->currentRow()));
    if (!m_settings.rememberLayout() || m_layoutReset)
        return;
    m_settings.setWindow(saveGeometry(), saveState());
    for (Workspace *w : m_workspaces)
        w->saveLayout();
    m_settings.sync();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    saveSettings();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (!event->mimeData()->hasUrls())
        return;
    for (const QUrl &url : event->mimeData()->urls())
        if (url.isLocalFile())
            for (Workspace *w : m_workspaces)
                if (w->canOpen(url.toLocalFile())) {
                    event->acceptProposedAction();
                    return;
                }
}

void MainWindow::dropEvent(QDropEvent *event)
{
    bool any = false;
    for (const QUrl &url : event->mimeData()->urls())
        if (url.isLocalFile())
            any = openPath(url.toLocalFile()) || any;
    if (any)
        event->acceptProposedAction();
}

} // namespace beamscope::ui
