// Recorded search traces in the Search workspace: opened (the controls then describe the trace's
// search, so Start does not contradict the tree) and saved, and the session an opened trace needs for
// cost terms, rebuilt states, Continue and Measure, with its own weights and generator library.

#include "core/gpu/device_facts.h"
#include "core/util/sha256.h"
#include "core/weights/shipped_weights.h"
#include "ui/common/relay_progress.h"
#include "ui/common/weights_combo_box.h"
#include "ui/search/search_tree_view.h"
#include "ui/search/search_workspace.h"
#include "ui/search/state_detail_panel.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QSpinBox>

#include <algorithm>
#include <filesystem>

namespace beamscope::ui {

namespace {
bool isSharedLibrary(const QString &path)
{
    const QString name = QFileInfo(path).fileName();
    return name.endsWith(QLatin1String(".so")) || name.contains(QLatin1String(".so."));
}
} // namespace

bool SearchWorkspace::canOpen(const QString &path) const
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    return QFileInfo(path).isFile() && (suffix == QLatin1String("jsonl") || suffix == QLatin1String("trace") ||
                                        isSharedLibrary(path) || isLoopNestDump(path));
}

void SearchWorkspace::open(const QString &path)
{
    if (isSharedLibrary(path))
        openGeneratorLibrary(path);
    else if (isLoopNestDump(path))
        openLoopNest(path);
    else
        openTrace(path);
}

void SearchWorkspace::openTrace(const QString &path)
{
    if (m_progress)
        m_progress->cancel();
    ++m_generation; // a running search's batches are stale now
    setSearching(false);
    m_status->setText(tr("Reading %1…").arg(QFileInfo(path).fileName()));
    struct Loaded {
        std::optional<search::SearchTrace> trace;
        std::string error;
    };
    m_loadJob.start(
        this,
        [path] {
            Loaded l;
            l.trace = search::SearchTrace::read(path.toStdString(), &l.error);
            return std::make_shared<Loaded>(std::move(l));
        },
        [this, path](std::shared_ptr<Loaded> l) {
            if (!l->trace) {
                const QString error = QString::fromStdString(l->error);
                m_status->setText(error);
                Q_EMIT statusMessage(error, 0);
                Q_EMIT loadFailed(error);
                return;
            }
            m_data.load(*l->trace);
            m_measurements.clear();
            m_traceLibrary.clear();
            showTraceParamsInControls();
            m_view->setData(&m_data);
            m_panel->setData(&m_data);
            if (!m_funcSearch->text().isEmpty())
                setFuncSearch(m_funcSearch->text());
            m_tracePath = path;
            m_lastTrace = std::move(*l->trace);
            m_saveAction->setEnabled(false); // it is a file already
            m_status->setText(tr("Opened %1.").arg(QFileInfo(path).fileName()));
            m_progressBar->setValue(0);
            refreshCounts();
            m_treeFromFile = true;
            openSessionForTrace();
            if (m_data.winner() >= 0)
                selectState(m_data.winner());
            Q_EMIT fileOpened(path);
            Q_EMIT traceLoaded();
        });
}

// The controls describe the opened trace's search, so they do not contradict
// the tree (and Start runs that search again).
void SearchWorkspace::showTraceParamsInControls()
{
    setApp(m_data.pipeline());
    const search::TraceParams &p = m_data.params();
    if (p.beamSize > 0)
        m_beam->setValue(p.beamSize);
    if (p.numPasses > 0)
        m_passes->setValue(p.numPasses); // the passes asked for (the pre-pass is one of them)
    m_dropout->setValue(p.randomDropout);
    // The seed is a uint64; the box holds what fits in it (a larger one from the CLI shows as the box's maximum).
    m_seed->setValue(int(std::min<uint64_t>(p.randomDropoutSeed, uint64_t(m_seed->maximum()))));
    if (p.searchSpaceOptions.size() == 4) {
        QCheckBox *const boxes[] = {m_optRoot, m_optInline, m_optBlock, m_optThread};
        for (size_t i = 0; i < 4; ++i)
            boxes[i]->setChecked(p.searchSpaceOptions[i] == '1');
    }
    m_noSubtiling->setChecked(p.disableSubtiling);
    m_randomTilings->setChecked(p.randomizeTilings);
    m_freeze->setChecked(p.freezeInlineComputeRoot);
    if (const int i = m_profile->findText(QString::fromStdString(p.profile), Qt::MatchFixedString); i >= 0)
        m_profile->setCurrentIndex(i);
    // The trace's own weights, or none at all: Start and Continue must not
    // quietly search with a file the trace was not searched with.
    // By content where the trace records it: the same file under another path (a trace made with the
    // installed package, opened from a build tree) is found, and a file changed since is not taken for it.
    m_missingTraceWeights.clear();
    const QString traceWeights = QString::fromStdString(p.weights);
    const bool sameContent =
        p.weightsSha256.empty() || sha256FileHex(p.weights) == std::optional<std::string>(p.weightsSha256);
    const std::optional<std::filesystem::path> shipped = beamscope::weights::shippedWeightsWithDigest(p.weightsSha256);
    if (!traceWeights.isEmpty() && QFileInfo(traceWeights).exists() && sameContent)
        m_weights->setPath(traceWeights);
    else if (shipped)
        m_weights->setPath(QString::fromStdString(shipped->string()));
    else if (!traceWeights.isEmpty())
        m_missingTraceWeights = QFileInfo(traceWeights).exists()
                                    ? tr("%1 (changed since the search: its content is not "
                                         "the trace's)")
                                          .arg(traceWeights)
                                    : traceWeights;
    updateWeightsNote();
}

bool SearchWorkspace::refusedForMissingWeights()
{
    if (m_missingTraceWeights.isEmpty())
        return false;
    const QString why = tr("This trace was searched with %1, which is not here. Choose weights in the form to "
                           "search with another file.")
                            .arg(m_missingTraceWeights);
    m_status->setText(why);
    Q_EMIT statusMessage(why, 0);
    return true;
}

// An opened trace gets a session on its own pipeline and, when that file is
// here, its own weights (else the weights chosen); built off the GUI thread.
void SearchWorkspace::openSessionForTrace()
{
    session::SearchRequest request = optionsFromControls();
    request.pipeline = session::PipelineChoice{};
    request.pipeline.app = m_data.pipeline().toStdString();
    const search::TraceParams &params = m_data.params();
    // A user's generator (a trace the plugin or the CLI recorded): built from a library that registers it.
    if (!params.generator.empty()) {
        if (m_traceLibrary.isEmpty()) {
            findTraceGeneratorLibrary();
            return;
        }
        request.pipeline.app.clear();
        request.pipeline.generatorLibrary = m_traceLibrary.toStdString();
        request.pipeline.generatorName = params.generator;
        for (const auto &[k, v] : params.generatorParams)
            request.pipeline.generatorParams.push_back({k, v});
    }
    if (!m_missingTraceWeights.isEmpty()) {
        setSession(nullptr,
                   tr("No cost terms: this trace was searched with %1, which is not here.").arg(m_missingTraceWeights));
        Q_EMIT breakdownReady();
        return;
    }
    // The profile only sizes a new run; the trace's may be a device not here.
    if (gpu::findProfile(params.profile))
        request.profile = params.profile;
    setSession(nullptr, tr("Computing the cost terms…"));
    struct Opened {
        std::shared_ptr<session::SearchSession> session;
        std::string error;
    };
    m_sessionJob.start(
        this,
        [request] {
            auto o = std::make_shared<Opened>();
            o->session = session::SearchSession::open(request, &o->error);
            return o;
        },
        [this](std::shared_ptr<Opened> o) {
            setSession(o->session,
                       o->session ? QString() : tr("No cost terms: %1").arg(QString::fromStdString(o->error)));
            if (!o->session)
                Q_EMIT breakdownReady();
        });
}

void SearchWorkspace::findTraceGeneratorLibrary()
{
    const search::TraceParams &params = m_data.params();
    const QString generator = QString::fromStdString(params.generator);
    QStringList candidates;
    if (!params.generatorLibrary.empty())
        candidates << QString::fromStdString(params.generatorLibrary);
    for (const LoadedGenerator &g : m_generators)
        if (g.info.name == generator && !candidates.contains(g.library))
            candidates << g.library;
    // Beside the trace and beside the generator program: where a build puts its generator library.
    for (const QString &folder : {QFileInfo(m_tracePath).absolutePath(),
                                  QFileInfo(QString::fromStdString(params.generatorExecutable)).absolutePath()}) {
        if (folder.isEmpty() || !QFileInfo(folder).isDir())
            continue;
        const QStringList found = QDir(folder).entryList({QStringLiteral("*.so")}, QDir::Files, QDir::Name);
        for (qsizetype i = 0; i < found.size() && i < 8; ++i)
            if (const QString path = QDir(folder).absoluteFilePath(found[i]); !candidates.contains(path))
                candidates << path;
    }
    GeneratorParamValues values;
    for (const auto &[k, v] : params.generatorParams)
        values.append({QString::fromStdString(k), QString::fromStdString(v)});
    setSession(nullptr, tr("Looking for a library that builds generator %1…").arg(generator));
    m_sessionJob.start(
        this,
        [candidates, generator, values] {
            for (const QString &candidate : candidates)
                if (QFileInfo(candidate).isFile() && probeGeneratorLibrary(candidate, generator, values).ok)
                    return candidate;
            return QString();
        },
        [this, generator](const QString &library) {
            const search::TraceParams &p = m_data.params();
            if (library.isEmpty()) {
                const QString where = p.generatorExecutable.empty() ? QString::fromStdString(p.generatorLibrary)
                                                                    : QString::fromStdString(p.generatorExecutable);
                setSession(nullptr,
                           tr("This search of generator %1 was recorded in %2. The cost terms, rebuilding pruned "
                              "states, Continue and Measure need a generator library that registers %1 (a .so "
                              "built from the same generator source): File › Open Generator Library…")
                               .arg(generator, where));
                Q_EMIT breakdownReady();
                return;
            }
            // A library found beside the trace or its program joins the App list first, so the form
            // names the trace's generator (Start then searches it, not the app shown before); its
            // opening comes back here once it is listed.
            const bool listed = std::any_of(m_generators.begin(), m_generators.end(), [&](const LoadedGenerator &g) {
                return g.library == library && g.info.name == generator;
            });
            m_traceLibrary = library;
            if (!listed) {
                GeneratorParamValues traceValues;
                for (const auto &[k, v] : p.generatorParams)
                    traceValues.append({QString::fromStdString(k), QString::fromStdString(v)});
                openGeneratorLibrary(library, generator, traceValues);
                return;
            }
            // The form shows the generator and the values the trace was searched with.
            for (qsizetype g = 0; g < m_generators.size(); ++g)
                if (m_generators[g].library == library && m_generators[g].info.name == generator) {
                    m_app->setCurrentIndex(m_app->findData(QStringLiteral("generator:%1").arg(g)));
                    for (const auto &[k, v] : p.generatorParams)
                        setGeneratorParam(QString::fromStdString(k), QString::fromStdString(v));
                }
            openSessionForTrace();
        });
}

void SearchWorkspace::saveTrace()
{
    if (!m_lastTrace)
        return;
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save the search trace"),
                                     QStringLiteral("%1.jsonl").arg(m_data.pipeline()), tr("Search traces (*.jsonl)"));
    if (path.isEmpty())
        return;
    std::string error;
    if (!m_lastTrace->write(path.toStdString(), true, &error))
        Q_EMIT statusMessage(QString::fromStdString(error), 0);
    else {
        m_tracePath = path;
        refreshCounts();
        Q_EMIT fileOpened(path);
    }
}

} // namespace beamscope::ui
