// Walking the Search workspace's tree: going to, selecting and comparing states (the details of a
// state the trace did not keep are rebuilt on demand), and narrowing the tree by Func or to the
// winner's path.

#include "ui/search/final_beam_panel.h"
#include "ui/search/search_tree_view.h"
#include "ui/search/search_workspace.h"
#include "ui/search/state_detail_panel.h"

#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>

namespace beamscope::ui {

bool SearchWorkspace::goToState(const QString &text)
{
    QString digits = text.trimmed();
    if (digits.startsWith(QLatin1Char('#')))
        digits.remove(0, 1);
    bool ok = false;
    const qint64 id = digits.toLongLong(&ok);
    if (!ok || !m_data.node(id))
        return false;
    m_view->ensureVisible(id);
    selectState(id);
    m_view->setFocus(Qt::OtherFocusReason); // the arrows walk on from here
    return true;
}

void SearchWorkspace::selectState(qint64 id)
{
    m_view->setSelected(id);
    if (m_beamPanel->isVisible())
        m_beamPanel->showSelected(id);
    showNode(id, m_view->compared());
}

void SearchWorkspace::compareState(qint64 id)
{
    m_view->setCompared(id);
    showNode(m_view->selected(), id);
}

void SearchWorkspace::showNode(qint64 a, qint64 b)
{
    m_panel->showState(a, b);
    if (const auto it = m_measurements.constFind(a); it != m_measurements.constEnd())
        m_panel->setMeasurement(it->first, it->second);
    recomputeMissingDetails(a, b);
}

// The trace keeps features, costs and loop nests for beam states only; the
// states the winner beat are rebuilt from their decisions in the session, off
// the GUI thread, once each (the data keeps what was recomputed).
void SearchWorkspace::recomputeMissingDetails(qint64 a, qint64 b)
{
    std::vector<std::pair<qint64, std::vector<Json>>> wanted;
    for (const qint64 id : {a, b})
        if (const search::TraceNode *n = m_data.node(id); n && n->depth > 0 && !m_data.hasDetails(id))
            wanted.push_back({id, m_data.decisionsTo(id)});
    if (wanted.empty() || !m_session)
        return;
    m_panel->setRecomputing(true);
    struct Replayed {
        std::vector<std::pair<qint64, std::optional<session::ReplayedState>>> states;
        std::string error;
    };
    const quint64 generation = m_generation;
    m_replayJob.start(
        this,
        [session = m_session, wanted] {
            auto r = std::make_shared<Replayed>();
            for (const auto &[id, decisions] : wanted)
                r->states.push_back({id, session->replay(decisions, &r->error)});
            return r;
        },
        [this, generation](std::shared_ptr<Replayed> r) {
            m_panel->setRecomputing(false);
            if (generation != m_generation)
                return; // another tree by now
            bool filled = false;
            for (auto &[id, state] : r->states)
                if (state)
                    filled |= m_data.fillRecomputed(id, std::move(state->features), std::move(state->stageCosts),
                                                    std::move(state->loopNest));
            if (!r->error.empty())
                m_panel->setMeasurement(tr("Could not rebuild the state: %1").arg(QString::fromStdString(r->error)));
            if (filled) {
                m_panel->showState(m_view->selected(), m_view->compared());
                Q_EMIT detailsRecomputed();
            }
        });
}

void SearchWorkspace::setFuncSearch(const QString &text)
{
    if (m_funcSearch->text() != text)
        m_funcSearch->setText(text); // comes back here through textChanged
    const int n = m_data.setFuncFilter(text);
    m_matchLabel->setText(text.trimmed().isEmpty() ? QString() : tr("%n decision(s)", nullptr, n));
    m_view->dataChanged();
}

void SearchWorkspace::setPathOnly(bool on)
{
    if (m_pathOnly->isChecked() != on)
        m_pathOnly->setChecked(on);
    m_view->setPathOnly(on);
}

} // namespace beamscope::ui
