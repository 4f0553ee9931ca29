// Halide's loop-nest dumps in the Search workspace: a dump (or a whole HL_DEBUG_AUTOSCHEDULE log)
// opened as the start of a search, and a state saved as a dump. The same reader as
// `beamscope-cli autoschedule --partial-schedule` and `beamscope-cli state` (core/search's
// loop_nest_parser), and the same writer as the campaign's records (State::halideLoopNest through
// the session), so a file written here is read back there and by Halide's partial-schedule input.

#include "core/util/atomic_file.h"
#include "ui/common/weights_combo_box.h"
#include "ui/search/search_tree_view.h"
#include "ui/search/search_workspace.h"

#include <QAction>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>

namespace beamscope::ui {

namespace {

// A dump has "realize:" lines; a log carries one after "** Optimal schedule:". Only the start of
// a file is read: a log of a long search can be large, and its first dumps come early.
constexpr qint64 kSniffBytes = 1 << 20;

} // namespace

bool SearchWorkspace::isLoopNestDump(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("txt") && suffix != QLatin1String("log") && suffix != QLatin1String("nest"))
        return false;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    const QByteArray head = file.read(kSniffBytes);
    return head.contains("realize: ") || head.contains("** Optimal schedule");
}

bool SearchWorkspace::openLoopNest(const QString &path)
{
    const QString name = QFileInfo(path).fileName();
    const std::optional<std::string> text = readTextFile(path.toStdString());
    if (!text) {
        const QString why = tr("Cannot read %1").arg(path);
        m_status->setText(why);
        Q_EMIT statusMessage(why, 0);
        return false;
    }
    // The dump is read against the pipeline the controls name; one that does not fit it is
    // refused by the search with the line that does not fit.
    const auto start = [this, dump = *text, name] {
        session::SearchRequest o = optionsFromControls();
        o.startDecisions.clear();
        o.partialSchedule = dump;
        startSearch(o);
        if (m_searching)
            m_status->setText(tr("Searching on from Halide's loop nest %1: its Funcs keep its decisions…").arg(name));
    };
    if (m_weights->scanPending())
        connect(m_weights, &WeightsComboBox::scanned, this, start, Qt::SingleShotConnection);
    else
        start();
    return true;
}

bool SearchWorkspace::saveStateAsLoopNest(qint64 id, const QString &path)
{
    auto refuse = [this](const QString &why) {
        Q_EMIT statusMessage(why, 5000);
        return false;
    };
    if (!m_data.node(id))
        return refuse(tr("Save as loop nest: choose a state first."));
    if (!m_session)
        return refuse(tr("Save as loop nest: %1 is not built yet for this tree.").arg(m_data.pipeline()));
    std::string error;
    const std::optional<std::string> dump = m_session->halideLoopNest(m_data.decisionsTo(id), &error);
    if (!dump)
        return refuse(tr("Save as loop nest: %1").arg(QString::fromStdString(error)));
    const WriteResult written = replaceTextFile(path.toStdString(), *dump);
    if (!written.ok)
        return refuse(QString::fromStdString(written.error));
    Q_EMIT statusMessage(tr("Saved state #%1 as Halide's loop nest in %2").arg(id).arg(path), 5000);
    return true;
}

void SearchWorkspace::createLoopNestActions()
{
    m_openNestAction = new QAction(tr("Open Halide Loop Nest…"), this);
    m_openNestAction->setToolTip(tr("A loop-nest dump or a whole HL_DEBUG_AUTOSCHEDULE log, on the pipeline chosen "
                                    "above: its state with loop nest, features and cost terms under the chosen "
                                    "weights (a partial dump is searched on from)"));
    connect(m_openNestAction, &QAction::triggered, this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Open Halide's loop nest"), QString(),
                                         tr("Loop-nest dumps and logs (*.txt *.log *.nest);;All files (*)"));
        if (!path.isEmpty())
            openLoopNest(path);
    });
    m_saveNestAction = new QAction(tr("Save State as Loop Nest…"), this);
    m_saveNestAction->setToolTip(tr("The selected state in the form of Halide's LoopNest::dump, which "
                                    "`beamscope-cli state --loop-nest` and Halide's partial-schedule input read back"));
    connect(m_saveNestAction, &QAction::triggered, this, [this] {
        const qint64 id = m_view->selected();
        if (id < 0) {
            Q_EMIT statusMessage(tr("Save as loop nest: choose a state first."), 5000);
            return;
        }
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Save the state as Halide's loop nest"),
            QStringLiteral("%1_state%2.nest").arg(m_data.pipeline()).arg(id), tr("Loop-nest dumps (*.nest *.txt)"));
        if (!path.isEmpty())
            saveStateAsLoopNest(id, path);
    });
}

} // namespace beamscope::ui
