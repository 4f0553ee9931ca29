// A chosen state taken further than the model's prediction: compiled and timed on the measurement
// target (one state, or the final beam's states one after another), handed to the Pipeline workspace
// to benchmark, or exported as its Halide schedule source. All of it goes through the session.

#include "core/util/atomic_file.h"
#include "ui/common/number_format.h"
#include "ui/common/relay_progress.h"
#include "ui/search/final_beam_panel.h"
#include "ui/search/search_tree_view.h"
#include "ui/search/search_workspace.h"
#include "ui/search/state_detail_panel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QLabel>
#include <QPushButton>
#include <QtConcurrent/QtConcurrentRun>

#include <sstream>
#include <tuple>

namespace beamscope::ui {

void SearchWorkspace::setMeasureTarget(const QString &target) { m_measureTarget->setCurrentText(target); }

bool SearchWorkspace::benchmarkInPipeline(qint64 id)
{
    const search::TraceNode *n = m_data.node(id);
    if (!n || !m_session) {
        Q_EMIT statusMessage(n ? tr("Benchmark: %1 is not built yet for this search.").arg(m_data.pipeline())
                               : tr("Benchmark: choose a state first."),
                             5000);
        return false;
    }
    if (n->depth < m_data.maxDepth()) {
        Q_EMIT statusMessage(tr("Benchmark: #%1 is a partial state; only a complete state has a schedule.").arg(id),
                             5000);
        return false;
    }
    SearchStateOffer offer;
    offer.app = m_data.pipeline();
    offer.label = tr("#%1 (predicted %2)").arg(id).arg(formatNumber(n->cost, 6));
    offer.session = m_session;
    offer.decisions = m_data.decisionsTo(id);
    Q_EMIT searchStateForWorkspace(QStringLiteral("pipeline"), offer);
    return true;
}

void SearchWorkspace::measureState(qint64 id)
{
    const search::TraceNode *n = m_data.node(id);
    if (!n)
        return;
    if (m_sessionJob.pending()) { // an opened trace's session is still being built
        m_panel->setMeasurement(tr("Building %1 to measure #%2…").arg(m_data.pipeline()).arg(id));
        connect(
            this, &SearchWorkspace::breakdownReady, this, [this, id] { measureState(id); }, Qt::SingleShotConnection);
        return;
    }
    const std::vector<Json> decisions = m_data.decisionsTo(id);
    const quint64 generation = ++m_measureGeneration;
    QPointer<QObject> guard(this);
    const QString target = m_measureTarget->currentText();
    const double predicted = n->cost;
    if (!m_session) {
        m_panel->setMeasurement(tr("Not measured: %1 could not be built for this trace.").arg(m_data.pipeline()));
        Q_EMIT measured(false, 0);
        return;
    }
    auto isCurrent = [this, guard, generation] { return guard && m_measureGeneration == generation; };
    m_measureProgress =
        std::make_shared<RelayProgress>(this, isCurrent, [this](double fraction, const QString &message) {
            m_panel->setMeasurement(tr("Measuring (%1%): %2").arg(int(fraction * 100)).arg(message));
        });
    m_panel->measureButton()->setText(tr("Cancel measurement"));
    m_panel->setMeasurement(tr("Compiling #%1 for %2…").arg(id).arg(target));
    auto progress = m_measureProgress;
    auto future =
        QtConcurrent::run([this, guard, generation, search = m_session, decisions, target, progress, predicted, id] {
            auto m = std::make_shared<session::StateMeasurement>(
                search->measure(decisions, target.toStdString(), progress.get()));
            const bool cancelled = progress->cancelled();
            postToGui(guard, [this, generation, m, cancelled, predicted, id, target] {
                if (generation != m_measureGeneration)
                    return;
                m_measureProgress.reset();
                m_panel->measureButton()->setText(tr("Measure"));
                QString text, details;
                if (cancelled) {
                    text = tr("Measurement cancelled.");
                } else if (!m->ok) {
                    // One line in view; a worker's stderr (a driver's "CUDA API not found" lines) goes behind "details".
                    const QString error = QString::fromStdString(m->error).trimmed();
                    const QString first = error.section(QLatin1Char('\n'), 0, 0);
                    m_data.markMeasurementFailed(id, first);
                    text = tr("Not measured: %1").arg(first.toHtmlEscaped());
                    if (first != error)
                        details = error;
                } else {
                    m_data.markMeasured(id, m->medianMs);
                    m_view->dataChanged();
                    // The short target name: Halide's full target string would push the runtime out of view.
                    text = tr("#%1 measured on %2: <b>%3 ms</b> median (min %4 ms) · predicted cost %5 · %6")
                               .arg(id)
                               .arg(target)
                               .arg(m->medianMs, 0, 'g', 4)
                               .arg(m->minMs, 0, 'g', 4)
                               .arg(formatNumber(predicted, 6))
                               .arg(!m->checked  ? tr("output not checked")
                                    : m->matches ? tr("output matches the reference")
                                                 : tr("<b>output differs from the reference</b>"));
                }
                m_panel->setMeasurement(text, details);
                if (!cancelled) // shown again whenever the state is selected again
                    m_measurements.insert(id, {text, details});
                Q_EMIT measured(m->ok && !cancelled, m->medianMs);
            });
        });
    Q_UNUSED(future);
}

void SearchWorkspace::measureStates(const QList<qint64> &ids)
{
    if (ids.isEmpty() || m_measureProgress)
        return;
    m_measureQueue = ids;
    m_beamPanel->setMeasuring(true);
    measureState(m_measureQueue.takeFirst());
}

void SearchWorkspace::cancelMeasurement()
{
    if (m_measureProgress)
        m_measureProgress->cancel();
}

void SearchWorkspace::exportSchedule(qint64 id)
{
    const search::TraceNode *n = m_data.node(id);
    if (!n)
        return;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export the state's schedule"), QStringLiteral("%1_state%2.schedule.h").arg(m_data.pipeline()).arg(id),
        tr("C++ schedule (*.h *.cpp *.txt);;All files (*)"));
    if (!path.isEmpty())
        exportScheduleTo(id, path);
}

void SearchWorkspace::exportScheduleTo(qint64 id, const QString &path)
{
    const search::TraceNode *n = m_data.node(id);
    if (!n)
        return;
    if (m_sessionJob.pending()) { // the schedule comes from the session's DAG, still being built
        connect(
            this, &SearchWorkspace::breakdownReady, this, [this, id, path] { exportScheduleTo(id, path); },
            Qt::SingleShotConnection);
        return;
    }
    const std::vector<Json> decisions = m_data.decisionsTo(id);
    // A pruned state has no loop nest in the trace; its nearest ancestor's is the fallback text.
    const search::TraceNode *withNest = n;
    while (withNest && withNest->loopNest.empty())
        withNest = m_data.node(withNest->parent);
    std::string fallback = withNest ? withNest->loopNest : std::string();
    std::string heading = "state #" + std::to_string(id) + " of " + m_data.pipeline().toStdString() +
                          " (predicted cost " + std::to_string(n->cost) + ")";
    std::string pathText;
    for (int64_t p : m_data.pathTo(id))
        pathText += "//   " + m_data.node(p)->decision + "\n";
    m_status->setText(tr("Emitting the schedule of #%1…").arg(id));
    m_exportJob.start(
        this,
        [search = m_session, decisions, costs = n->stageCosts, cost = n->cost, fallback, heading, pathText, path] {
            std::string error = "the trace's pipeline could not be built (see the cost terms' note)";
            const auto source = search ? search->emit(decisions, costs, cost, &error) : std::nullopt;
            std::string text;
            if (source) {
                text = *source;
            } else {
                // Partial states (and pipelines the registry lacks) have no Halide schedule: say why, give the loop nest.
                text = "// Beamscope: " + heading + "\n// No Halide schedule source: " + error +
                       "\n// Decision path:\n" + pathText + "// Loop nest" +
                       (fallback.empty() ? std::string(": none recorded\n") : std::string(":\n"));
                std::istringstream in(fallback);
                for (std::string line; std::getline(in, line);)
                    text += "//   " + line + "\n";
            }
            // The file dialog already asked before replacing an existing file.
            const WriteResult w = writeFileAtomically(
                path.toStdString(), std::span<const char>(text.data(), text.size()), Overwrite::Replace);
            return std::make_shared<std::tuple<bool, bool, QString>>(w.ok, source.has_value(),
                                                                     QString::fromStdString(w.ok ? error : w.error));
        },
        [this, path](std::shared_ptr<std::tuple<bool, bool, QString>> r) {
            const auto &[written, asSource, why] = *r;
            const QString message = !written   ? tr("Not saved: %1").arg(why)
                                    : asSource ? tr("Saved the Halide schedule source to %1").arg(path)
                                               : tr("Saved %1 (loop nest only: %2)").arg(path, why);
            m_status->setText(message);
            Q_EMIT statusMessage(message, 0);
            Q_EMIT scheduleExported(path, written, asSource);
        });
}

} // namespace beamscope::ui
