#include "ui/search/search_workspace.h"

#include "core/weights/shipped_weights.h"
#include "ui/common/cuda_availability.h"
#include "ui/common/form_beside_results.h"
#include "ui/common/app_settings.h"
#include "ui/common/number_format.h"
#include "ui/common/relay_progress.h"
#include "ui/common/weights_combo_box.h"
#include "ui/search/final_beam_panel.h"
#include "ui/search/search_tree_view.h"
#include "ui/search/state_detail_panel.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QRegularExpressionValidator>
#include <QPushButton>
#include <QScrollArea>
#include <QShortcut>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QThreadPool>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace beamscope::ui {

namespace {
const QString kWorkspaceId = QStringLiteral("search");
const char *const kMeasureWhy =
    "Compiles the state (core/schedule applies it to the Funcs) for the measurement target and times it in the "
    "bench worker, output checked against the compute_root host reference. Complete states only.";
const char *const kContinueWhy =
    "Starts a new search from this state: its decisions stay fixed (dashed squares in the tree) and the search "
    "schedules only the remaining Funcs, with the controls' weights, beam and passes.";
} // namespace

// Nodes handed out by the search thread, with the trace's header (the first
// batch of a search sets up the tree).
struct SearchWorkspace::Batch {
    search::SearchTrace header{0};
    std::vector<search::TraceNode> nodes;
};

SearchWorkspace::SearchWorkspace(AppSettings &settings, QWidget *parent) : Workspace(settings, parent)
{
    setObjectName(kWorkspaceId);
    setAcceptDrops(false); // the main window routes drops through canOpen/open
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_splitter = new QSplitter(Qt::Horizontal, this);
    layout->addWidget(m_splitter);

    auto *scroll = new QScrollArea(m_splitter);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *controls = new QWidget(scroll);
    buildControls(controls);
    scroll->setWidget(controls);
    fitScrollAreaToForm(scroll, controls);
    m_splitter->addWidget(scroll);

    auto *centre = new QWidget(m_splitter);
    auto *cl = new QVBoxLayout(centre);
    cl->setContentsMargins(0, 0, 0, 0);
    auto *toolbar = new QHBoxLayout;
    auto *fit = new QPushButton(tr("Fit (F)"), centre);
    // Wheel and +/- keys zoom too; the buttons say that zooming exists.
    auto *zoomOut = new QPushButton(QStringLiteral("−"), centre);
    auto *zoomIn = new QPushButton(QStringLiteral("+"), centre);
    for (QPushButton *b : {zoomOut, zoomIn}) {
        b->setFixedWidth(b->sizeHint().height());
        b->setToolTip(tr("Zoom about the centre (also the mouse wheel, or the - and + keys); drag to pan"));
    }
    m_pathOnly = new QCheckBox(tr("Winner's path only"), centre);
    m_funcSearch = new QLineEdit(centre);
    m_funcSearch->setPlaceholderText(tr("Find a Func or decision…"));
    m_funcSearch->setToolTip(tr("Marks the states whose decision names this Func or contains this text "
                                "(\"inline\", \"threads 16x8\"), case-insensitive"));
    m_funcSearch->setClearButtonEnabled(true);
    m_matchLabel = new QLabel(centre);
    m_hideUnmatched = new QCheckBox(tr("Hide the rest"), centre);
    m_hideUnmatched->setToolTip(tr("Draw only the states the find matches, and the winner's path"));
    m_goTo = new QLineEdit(centre);
    m_goTo->setPlaceholderText(tr("Go to #"));
    m_goTo->setToolTip(tr("Select a state by its id (Ctrl+G). In the tree: Up parent, Down child, Left/Right "
                          "siblings, Shift+Left/Right pruned siblings"));
    m_goTo->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("#?\\d{0,12}")), m_goTo));
    m_goTo->setMinimumWidth(m_goTo->fontMetrics().horizontalAdvance(QStringLiteral("Go to #00")) + 16);
    m_goTo->setMaximumWidth(m_goTo->fontMetrics().horizontalAdvance(QStringLiteral("Go to #0000000")) + 16);
    m_showBeam = new QPushButton(tr("Final beam"), centre);
    m_showBeam->setCheckable(true);
    m_showBeam->setToolTip(tr("The states of the search's last beam with their costs, below the tree"));
    // Two rows, so the tree's column keeps to the width a 1280 px window leaves it: the view and
    // where to go, then what to find.
    toolbar->addWidget(zoomOut);
    toolbar->addWidget(zoomIn);
    toolbar->addWidget(fit);
    toolbar->addWidget(m_pathOnly);
    toolbar->addStretch(1);
    toolbar->addWidget(m_goTo);
    toolbar->addWidget(m_showBeam);
    cl->addLayout(toolbar);
    auto *findRow = new QHBoxLayout;
    findRow->addWidget(m_funcSearch, 1);
    findRow->addWidget(m_matchLabel);
    findRow->addWidget(m_hideUnmatched);
    cl->addLayout(findRow);
    auto *treeAndBeam = new QSplitter(Qt::Vertical, centre);
    m_view = new SearchTreeView(treeAndBeam);
    m_view->setData(&m_data);
    m_beamPanel = new FinalBeamPanel(treeAndBeam);
    m_beamPanel->hide();
    treeAndBeam->addWidget(m_view);
    treeAndBeam->addWidget(m_beamPanel);
    treeAndBeam->setStretchFactor(0, 3);
    treeAndBeam->setStretchFactor(1, 1);
    cl->addWidget(treeAndBeam, 1);
    m_counts = new QLabel(centre);
    m_counts->setWordWrap(true); // one long line would set the window's minimum width (over 1,500 px)
    cl->addWidget(m_counts);
    m_splitter->addWidget(centre);

    m_panel = new StateDetailPanel(m_splitter);
    m_panel->setData(&m_data);
    m_panel->setMinimumWidth(380);
    m_splitter->addWidget(m_panel);
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 3);
    m_splitter->setStretchFactor(2, 2);
    m_splitter->setSizes({290, 740, 560});

    m_panel->measureButton()->setToolTip(tr(kMeasureWhy));
    m_panel->continueButton()->setToolTip(tr(kContinueWhy));
    m_panel->exportButton()->setToolTip(tr("Saves the state's Halide C++ schedule (core/schedule's emitter); a partial "
                                           "state gets its loop nest as comments."));

    connect(fit, &QPushButton::clicked, m_view, &SearchTreeView::fit);
    connect(zoomIn, &QPushButton::clicked, m_view, [this] { m_view->zoomBy(1.25, QPointF(m_view->rect().center())); });
    connect(zoomOut, &QPushButton::clicked, m_view, [this] { m_view->zoomBy(0.8, QPointF(m_view->rect().center())); });
    connect(m_pathOnly, &QCheckBox::toggled, this, &SearchWorkspace::setPathOnly);
    connect(m_funcSearch, &QLineEdit::textChanged, this, &SearchWorkspace::setFuncSearch);
    connect(m_hideUnmatched, &QCheckBox::toggled, m_view, &SearchTreeView::setHideUnmatched);
    connect(m_goTo, &QLineEdit::returnPressed, this, [this] {
        if (!goToState(m_goTo->text()))
            Q_EMIT statusMessage(tr("No state %1 in this tree.").arg(m_goTo->text()), 5000);
    });
    auto *goToShortcut = new QShortcut(QKeySequence(tr("Ctrl+G")), this);
    connect(goToShortcut, &QShortcut::activated, this, [this] {
        m_goTo->setFocus(Qt::ShortcutFocusReason);
        m_goTo->selectAll();
    });
    connect(m_showBeam, &QPushButton::toggled, m_beamPanel, [this, treeAndBeam](bool on) {
        m_beamPanel->setVisible(on);
        if (!on)
            return;
        m_beamPanel->refresh(&m_data);
        // A third of the column: about eight rows at 1280x800, the tree keeps the rest.
        const int height = treeAndBeam->height();
        treeAndBeam->setSizes({height * 2 / 3, height - height * 2 / 3});
    });
    connect(m_beamPanel, &FinalBeamPanel::stateActivated, this, [this](qint64 id) {
        m_view->ensureVisible(id);
        selectState(id);
    });
    connect(m_beamPanel, &FinalBeamPanel::measureRequested, this, &SearchWorkspace::measureStates);
    connect(m_beamPanel, &FinalBeamPanel::cancelRequested, this, [this] {
        m_measureQueue.clear();
        cancelMeasurement();
    });
    // One state after another: the next starts when the last one's time (or failure) is in.
    connect(this, &SearchWorkspace::measured, this, [this] {
        if (m_beamPanel->isVisible())
            m_beamPanel->refresh(&m_data);
        if (m_measureQueue.isEmpty()) {
            m_beamPanel->setMeasuring(false);
            return;
        }
        measureState(m_measureQueue.takeFirst());
    });
    connect(m_view, &SearchTreeView::nodeSelected, this, [this](qint64 id) {
        if (m_pickCompare) {
            m_pickCompare = false;
            compareState(id);
        } else {
            selectState(id);
        }
    });
    connect(m_view, &SearchTreeView::compareSelected, this, &SearchWorkspace::compareState);
    connect(m_panel, &StateDetailPanel::compareRequested, this, [this] {
        m_pickCompare = true;
        Q_EMIT statusMessage(tr("Click the state to compare with."), 5000);
    });
    connect(m_panel, &StateDetailPanel::clearCompareRequested, this, [this] { compareState(-1); });
    connect(m_panel, &StateDetailPanel::pathStateActivated, this, &SearchWorkspace::selectState);
    connect(m_panel, &StateDetailPanel::exportRequested, this, &SearchWorkspace::exportSchedule);
    connect(m_panel, &StateDetailPanel::benchmarkRequested, this, &SearchWorkspace::benchmarkInPipeline);
    connect(m_panel, &StateDetailPanel::measureRequested, this, [this](qint64 id) {
        if (m_measureProgress)
            cancelMeasurement();
        else
            measureState(id);
    });
    connect(m_panel, &StateDetailPanel::continueRequested, this, &SearchWorkspace::continueFrom);

    m_openAction = new QAction(tr("Open Search Trace…"), this);
    connect(m_openAction, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a search trace"), QString(),
                                                          tr("Search traces (*.jsonl *.trace);;All files (*)"));
        if (!path.isEmpty())
            open(path);
    });
    m_openLibraryAction = new QAction(tr("Open Generator Library…"), this);
    m_openLibraryAction->setToolTip(tr("A shared library of your Halide 14 generators: search, explore, measure and "
                                       "autotune them as the built-in apps"));
    connect(m_openLibraryAction, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a generator library"), QString(),
                                                          tr("Generator libraries (*.so);;All files (*)"));
        if (!path.isEmpty())
            openGeneratorLibrary(path);
    });
    m_saveAction = new QAction(tr("Save Search Trace…"), this);
    m_saveAction->setEnabled(false);
    connect(m_saveAction, &QAction::triggered, this, &SearchWorkspace::saveTrace);
    createLoopNestActions();
    refreshCounts();
}

SearchWorkspace::~SearchWorkspace()
{
    // The workers notice at their next safe point; nothing they post lands here.
    if (m_progress)
        m_progress->cancel();
    cancelMeasurement();
}

void SearchWorkspace::buildControls(QWidget *box)
{
    auto *v = new QVBoxLayout(box);
    auto *what = new QGroupBox(tr("Search"), box);
    auto *form = new QFormLayout(what);
    m_app = new QComboBox(what);
    for (const session::AppChoice &a : session::builtinApps()) {
        m_app->addItem(QString::fromStdString(a.name), QString::fromStdString(a.name));
        m_app->setItemData(m_app->count() - 1, QString::fromStdString(a.description), Qt::ToolTipRole);
    }
    form->addRow(tr("App:"), m_app);
    // A user's generator's GeneratorParams, shown while one is selected.
    m_genParamsLabel = new QLabel(what);
    m_genParamsLabel->setWordWrap(true);
    m_genParams = new QTableWidget(0, 3, what);
    m_genParams->setHorizontalHeaderLabels({tr("Parameter"), tr("Value"), tr("Type")});
    m_genParams->verticalHeader()->hide();
    m_genParams->horizontalHeader()->setStretchLastSection(true);
    m_genParams->setMaximumHeight(150);
    form->addRow(m_genParamsLabel);
    form->addRow(m_genParams);
    m_genParamsLabel->hide();
    m_genParams->hide();
    connect(m_genParams, &QTableWidget::itemChanged, this, &SearchWorkspace::checkGeneratorParamEdit);
    setApp(QStringLiteral("box_blur"));
    m_weights = new WeightsComboBox(settings(), what);
    m_weights->setToolTip(tr("Anderson2021 (GPU) weights from the library"));
    m_weights->setPipelines({currentPipelineName()});
    form->addRow(tr("Weights:"), m_weights);
    m_weightsNote = new QLabel(what);
    m_weightsNote->setWordWrap(true);
    QFont noteFont = m_weightsNote->font(); // a note about the choice above, not a control
    noteFont.setItalic(true);
    m_weightsNote->setFont(noteFont);
    form->addRow(QString(), m_weightsNote);
    m_profile = new QComboBox(what);
    for (const std::string &p : session::profileChoices())
        m_profile->addItem(QString::fromStdString(p));
    m_profile->setCurrentIndex(std::max(0, m_profile->findText(QStringLiteral("v100"), Qt::MatchFixedString)));
    m_profile->setToolTip(tr("Device limits the search respects (V100 is what Halide's weights were trained on)"));
    form->addRow(tr("Profile:"), m_profile);
    m_beam = new QSpinBox(what);
    m_beam->setRange(1, 100000);
    m_beam->setValue(8);
    form->addRow(tr("Beam size:"), m_beam);
    m_passes = new QSpinBox(what);
    m_passes->setRange(0, 100);
    m_passes->setSpecialValueText(tr("auto (1 or 5)"));
    form->addRow(tr("Passes:"), m_passes);
    m_seed = new QSpinBox(what);
    m_seed->setRange(0, 1 << 30);
    form->addRow(tr("Seed:"), m_seed);
    m_dropout = new QSpinBox(what);
    m_dropout->setRange(1, 100);
    m_dropout->setValue(100);
    m_dropout->setSuffix(tr(" % kept"));
    form->addRow(tr("Dropout:"), m_dropout);
    v->addWidget(what);

    auto *space = new QGroupBox(tr("Search space"), box);
    auto *sl = new QVBoxLayout(space);
    m_optRoot = new QCheckBox(tr("compute_root"), space);
    m_optInline = new QCheckBox(tr("inline"), space);
    m_optBlock = new QCheckBox(tr("compute at block level"), space);
    m_optThread = new QCheckBox(tr("compute at thread level"), space);
    for (QCheckBox *c : {m_optRoot, m_optInline, m_optBlock, m_optThread}) {
        c->setChecked(true);
        sl->addWidget(c);
    }
    m_noSubtiling = new QCheckBox(tr("disable subtiling"), space);
    m_randomTilings = new QCheckBox(tr("randomize tilings"), space);
    m_freeze = new QCheckBox(tr("freeze inline / compute_root"), space);
    for (QCheckBox *c : {m_noSubtiling, m_randomTilings, m_freeze})
        sl->addWidget(c);
    v->addWidget(space);

    auto *measureBox = new QGroupBox(tr("Measure"), box);
    auto *mf = new QFormLayout(measureBox);
    m_measureTarget = new QComboBox(measureBox);
    m_measureTarget->addItems({QStringLiteral("opencl"), QStringLiteral("cuda")});
    offerCudaOnlyWithDevice(m_measureTarget);
    m_measureTarget->setToolTip(tr("Where \"Measure\" compiles and times a selected state (bench worker process)"));
    mf->addRow(tr("Target:"), m_measureTarget);
    v->addWidget(measureBox);

    auto *run = new QHBoxLayout;
    m_start = new QPushButton(tr("Start"), box);
    m_start->setDefault(true);
    m_cancel = new QPushButton(tr("Cancel"), box);
    m_cancel->setEnabled(false);
    run->addWidget(m_start);
    run->addWidget(m_cancel);
    v->addLayout(run);
    m_progressBar = new QProgressBar(box);
    m_progressBar->setRange(0, 1000);
    m_progressBar->setValue(0);
    v->addWidget(m_progressBar);
    m_status = new QLabel(box);
    m_status->setWordWrap(true);
    v->addWidget(m_status);
    v->addStretch(1);
    connect(m_app, &QComboBox::currentIndexChanged, this, [this] {
        onGeneratorSelected();                            // its parameters, or none for an app
        m_weights->setPipelines({currentPipelineName()}); // the app's own hold-one-out file
        updateWeightsNote();
    });
    connect(m_weights, &WeightsComboBox::pathChanged, this, [this] {
        updateWeightsNote();
        // A searched tree keeps its search's model; an opened trace whose own
        // weights are not here takes the weights chosen.
        if (m_treeFromFile && !m_searching)
            openSessionForTrace();
    });
    // Choosing weights by hand after opening a trace whose file is missing is
    // the user's decision, not a fallback: from then on that file is used.
    connect(m_weights, &QComboBox::activated, this, [this] {
        if (m_missingTraceWeights.isEmpty())
            return;
        m_missingTraceWeights.clear();
        updateWeightsNote();
        if (m_treeFromFile && !m_searching)
            openSessionForTrace();
    });
    connect(m_start, &QPushButton::clicked, this, qOverload<>(&SearchWorkspace::startSearch));
    connect(m_cancel, &QPushButton::clicked, this, &SearchWorkspace::cancelSearch);
}

session::SearchRequest SearchWorkspace::optionsFromControls() const
{
    session::SearchRequest o;
    o.pipeline.app = m_app->currentData().toString().toStdString();
    if (const LoadedGenerator *g = currentGenerator()) {
        o.pipeline.app.clear();
        o.pipeline.generatorLibrary = g->library.toStdString();
        o.pipeline.generatorName = g->info.name.toStdString();
        // The values set that differ from the generator's defaults, as --param takes them.
        for (int r = 0; r < m_genParams->rowCount() && r < g->info.params.size(); ++r) {
            const QString value = m_genParams->item(r, 1) ? m_genParams->item(r, 1)->text().trimmed() : QString();
            if (!value.isEmpty() && value != g->info.params[r].defaultValue)
                o.pipeline.generatorParams.push_back({g->info.params[r].name.toStdString(), value.toStdString()});
        }
    }
    o.weightsPath = m_weights->path().toStdString();
    o.profile = m_profile->currentText().toStdString();
    o.beamSize = m_beam->value();
    o.passes = m_passes->value();
    o.seed = static_cast<uint64_t>(m_seed->value());
    o.dropout = m_dropout->value();
    o.searchSpaceOptions.clear();
    for (const QCheckBox *c : {m_optRoot, m_optInline, m_optBlock, m_optThread})
        o.searchSpaceOptions += c->isChecked() ? '1' : '0';
    o.disableSubtiling = m_noSubtiling->isChecked();
    o.randomizeTilings = m_randomTilings->isChecked();
    o.freezeInlineComputeRoot = m_freeze->isChecked();
    return o;
}

void SearchWorkspace::updateWeightsNote()
{
    if (!m_missingTraceWeights.isEmpty()) {
        m_weightsNote->setText(
            tr("The trace's weights are missing: %1. Choose a file to search with.").arg(m_missingTraceWeights));
        m_weightsNote->setVisible(true);
        return;
    }
    const std::string note = beamscope::weights::describeShippedWeightsFor(m_weights->path().toStdString(),
                                                                           currentPipelineName().toStdString());
    QString text = QString::fromStdString(note);
    if (const QString reason = m_weights->defaultReason(); !reason.isEmpty())
        text = text.isEmpty() ? tr("Default: %1.").arg(reason) : tr("%1. Default: %2.").arg(text, reason);
    m_weightsNote->setText(text);
    m_weightsNote->setVisible(!text.isEmpty());
}

QString SearchWorkspace::weightsNote() const { return m_weightsNote->isHidden() ? QString() : m_weightsNote->text(); }

void SearchWorkspace::setApp(const QString &name)
{
    int i = m_app->findData(name);
    for (qsizetype g = 0; i < 0 && g < m_generators.size(); ++g)
        if (m_generators[g].info.name == name)
            i = m_app->findData(QStringLiteral("generator:%1").arg(g));
    if (i >= 0)
        m_app->setCurrentIndex(i);
}

QString SearchWorkspace::statusText() const { return m_status->text(); }

void SearchWorkspace::setWeightsPath(const QString &path)
{
    m_missingTraceWeights.clear(); // a file named on purpose
    m_weights->setPath(path);
    updateWeightsNote();
}
void SearchWorkspace::setBeamSize(int beam) { m_beam->setValue(beam); }
void SearchWorkspace::setPasses(int passes) { m_passes->setValue(passes); }

void SearchWorkspace::startSearch()
{
    if (refusedForMissingWeights())
        return;
    // The weights list is still being scanned: start once the chosen file is known.
    if (m_weights->scanPending()) {
        connect(
            m_weights, &WeightsComboBox::scanned, this, [this] { startSearch(optionsFromControls()); },
            Qt::SingleShotConnection);
        return;
    }
    startSearch(optionsFromControls());
}

bool SearchWorkspace::weightsScanPending() const { return m_weights->scanPending(); }

bool SearchWorkspace::continueFrom(qint64 id)
{
    const search::TraceNode *n = m_data.node(id);
    if (!n || m_data.pipeline().isEmpty())
        return false;
    if (refusedForMissingWeights())
        return false;
    // The path's decisions, root first, taken before the new search resets the tree.
    const std::vector<Json> decisions = m_data.decisionsTo(id);
    // The tree's own pipeline: an app, or a user's generator with the values it was built with.
    session::PipelineChoice pipeline;
    const search::TraceParams &params = m_data.params();
    if (!params.generator.empty()) {
        pipeline.generatorLibrary = m_traceLibrary.isEmpty() ? params.generatorLibrary : m_traceLibrary.toStdString();
        pipeline.generatorName = params.generator;
        for (const auto &[k, v] : params.generatorParams)
            pipeline.generatorParams.push_back({k, v});
        if (pipeline.generatorLibrary.empty() ||
            !QFileInfo::exists(QString::fromStdString(pipeline.generatorLibrary))) {
            const QString why = tr("Continue needs a generator library that registers %1: File › Open Generator "
                                   "Library…")
                                    .arg(QString::fromStdString(params.generator));
            m_status->setText(why);
            Q_EMIT statusMessage(why, 0);
            return false;
        }
    } else {
        pipeline.app = m_data.pipeline().toStdString();
    }
    const auto start = [this, decisions, pipeline, id] {
        session::SearchRequest o = optionsFromControls();
        o.pipeline = pipeline;
        o.startDecisions = decisions;
        startSearch(o);
        m_status->setText(tr("Continuing from state #%1 (%2 decisions fixed)…").arg(id).arg(decisions.size()));
    };
    if (m_weights->scanPending())
        connect(m_weights, &WeightsComboBox::scanned, this, start, Qt::SingleShotConnection);
    else
        start();
    return true;
}

void SearchWorkspace::startSearch(const session::SearchRequest &options)
{
    // A user's generator is built in a child process first, with these values: code that crashes or
    // hangs ends that process and is reported, and the explorer keeps running.
    if (!options.pipeline.generatorLibrary.empty()) {
        QString key = QString::fromStdString(options.pipeline.generatorLibrary + "\n" + options.pipeline.generatorName);
        GeneratorParamValues values;
        for (const auto &[k, v] : options.pipeline.generatorParams) {
            values.append({QString::fromStdString(k), QString::fromStdString(v)});
            key += QStringLiteral("\n%1=%2").arg(values.back().first, values.back().second);
        }
        if (!m_verifiedBuilds.contains(key)) {
            const QString library = QString::fromStdString(options.pipeline.generatorLibrary);
            const QString name = QString::fromStdString(options.pipeline.generatorName);
            m_status->setText(tr("Building generator %1 in a separate process first…").arg(name));
            m_start->setEnabled(false);
            const auto cancel = startProbe();
            m_generatorJob.start(
                this,
                [library, name, values, cancel] { return probeGeneratorLibrary(library, name, values, cancel.get()); },
                [this, options, key](GeneratorProbe probe) {
                    probeEnded();
                    m_start->setEnabled(!m_searching);
                    if (!probe.ok) {
                        m_status->setText(tr("Not searched: %1").arg(probe.error));
                        Q_EMIT statusMessage(m_status->text(), 0);
                        Q_EMIT searchFinished(false, false);
                        return;
                    }
                    m_verifiedBuilds.insert(key);
                    startSearch(options);
                });
            return;
        }
    }
    if (m_progress)
        m_progress->cancel(); // the old search stops at its next depth; its posts are stale from here on
    const quint64 generation = ++m_generation;
    m_loadJob.cancel();
    m_data = SearchTreeData();
    m_measurements.clear(); // ids of another tree
    m_view->setData(&m_data);
    m_panel->setData(&m_data);
    m_lastTrace.reset();
    m_saveAction->setEnabled(false);
    m_tracePath.clear();
    m_treeFromFile = false;
    m_missingTraceWeights.clear();
    m_sessionJob.cancel();
    setSession(nullptr, tr("The cost terms come with the search's model…"));
    setSearching(true);
    m_traceLibrary.clear();
    Q_EMIT statusMessage(QString(), 0); // an earlier refusal ("Not searched: …") is no longer the news (G10)
    m_status->setText(tr("Building %1…")
                          .arg(QString::fromStdString(options.pipeline.app.empty() ? options.pipeline.generatorName
                                                                                   : options.pipeline.app)));
    m_progressBar->setValue(0);
    refreshCounts();

    QPointer<QObject> guard(this);
    auto isCurrent = [this, guard, generation] { return guard && m_generation == generation; };
    m_progress = std::make_shared<RelayProgress>(this, isCurrent, [this](double fraction, const QString &message) {
        m_progressBar->setValue(int(fraction * 1000));
        m_status->setText(message);
    });
    auto progress = m_progress;
    auto future = QtConcurrent::run([this, guard, generation, options, progress] {
        const session::NodeBatchSink sink = [this, guard, generation](const search::SearchTrace &trace, size_t first,
                                                                      size_t count) {
            auto batch = std::make_shared<Batch>();
            batch->header.pipeline = trace.pipeline;
            batch->header.stageNames = trace.stageNames;
            batch->header.params = trace.params;
            batch->nodes.assign(trace.nodes().begin() + static_cast<std::ptrdiff_t>(first),
                                trace.nodes().begin() + static_cast<std::ptrdiff_t>(first + count));
            postToGui(guard, [this, generation, batch] { onBatch(generation, batch); });
        };
        // One session builds the pipeline and the model once: the GUI gets it
        // before the first batch, so cost terms, export and measuring use the
        // search's own model and DAG.
        auto outcome = std::make_shared<session::SearchOutcome>();
        std::shared_ptr<session::SearchSession> search = session::SearchSession::open(options, &outcome->error);
        if (search) {
            postToGui(guard, [this, generation, search] {
                if (generation == m_generation)
                    setSession(search, QString());
            });
            *outcome = search->run(progress.get(), sink);
        }
        postToGui(guard, [this, generation, outcome] { onFinished(generation, outcome); });
    });
    Q_UNUSED(future);
}

void SearchWorkspace::onBatch(quint64 generation, const std::shared_ptr<Batch> &batch)
{
    if (generation != m_generation)
        return; // a replaced search
    if (m_data.nodes().empty() && m_data.stageNames().empty())
        m_data.reset(batch->header);
    const int count = static_cast<int>(batch->nodes.size());
    m_data.append(std::move(batch->nodes));
    if (!m_funcSearch->text().isEmpty())
        m_data.setFuncFilter(m_funcSearch->text());
    m_view->dataChanged();
    refreshCounts();
    Q_EMIT nodesAdded(count);
}

void SearchWorkspace::onFinished(quint64 generation, const std::shared_ptr<session::SearchOutcome> &outcome)
{
    if (generation != m_generation)
        return;
    setSearching(false);
    m_progress.reset();
    if (!outcome->ok) {
        m_status->setText(tr("Search failed: %1").arg(QString::fromStdString(outcome->error)));
        Q_EMIT statusMessage(m_status->text(), 0);
        Q_EMIT searchFinished(false, false);
        return;
    }
    if (m_data.nodes().empty())
        m_data.reset(outcome->trace);
    m_data.setParams(outcome->trace.params);
    m_data.setSummary(outcome->trace.summary);
    m_progressBar->setValue(1000);
    const auto &s = outcome->trace.summary;
    m_status->setText(
        outcome->cancelled
            ? tr("Cancelled after %1 states (%2 s).").arg(s.statesEvaluated).arg(s.searchSeconds, 0, 'f', 2)
            : tr("Done: predicted cost %1; %2 states costed by the model (Halide's num_states_evaluated) in %3 s%4.")
                  .arg(formatNumber(outcome->predictedCost, 6))
                  .arg(s.statesEvaluated)
                  .arg(s.searchSeconds, 0, 'f', 2)
                  .arg(s.nodesDropped ? tr(" (trace capped: %1 states not recorded)").arg(s.nodesDropped) : QString()));
    m_lastTrace = std::move(outcome->trace);
    m_saveAction->setEnabled(true);
    m_view->dataChanged();
    refreshCounts();
    if (!outcome->cancelled && m_data.winner() >= 0 && m_panel->stateA() < 0)
        selectState(m_data.winner());
    Q_EMIT searchFinished(true, outcome->cancelled);
}

void SearchWorkspace::cancelSearch()
{
    if (m_probeCancel) {
        // The child process is killed at once; what it would have said is dropped.
        m_probeCancel->cancel();
        m_generatorJob.cancel();
        probeEnded();
        m_start->setEnabled(!m_searching);
        m_status->setText(tr("Cancelled: the generator library was not loaded."));
        return;
    }
    if (m_progress)
        m_progress->cancel();
    m_status->setText(tr("Cancelling…"));
}

void SearchWorkspace::setSearching(bool on)
{
    m_searching = on;
    m_start->setEnabled(!on);
    m_cancel->setEnabled(on);
    m_panel->setContinueAllowed(!on);
}

void SearchWorkspace::refreshCounts()
{
    int64_t beam = 0;
    for (const auto &row : m_data.rows())
        beam += row.beamCount;
    if (m_data.nodes().empty()) {
        m_counts->setText(tr("No states yet."));
        return;
    }
    QString text = tr("%1 — %2 states added, the tree's nodes (Halide's num_states_added), %3 kept in the beam, "
                      "%4 passes, %5 decisions deep")
                       .arg(m_data.pipeline())
                       .arg(m_data.nodes().size())
                       .arg(beam)
                       .arg(m_data.passCount())
                       .arg(m_data.maxDepth());
    if (m_data.winner() >= 0)
        if (const auto *w = m_data.node(m_data.winner()))
            text += tr(" · winner #%1, predicted cost %2").arg(w->id).arg(formatNumber(w->cost, 6));
    if (!m_tracePath.isEmpty())
        text += tr(" · %1").arg(QFileInfo(m_tracePath).fileName());
    m_counts->setText(text);
    if (m_beamPanel->isVisible())
        m_beamPanel->refresh(&m_data);
}

void SearchWorkspace::setSession(std::shared_ptr<session::SearchSession> session, const QString &why)
{
    m_session = session;
    m_panel->setSession(std::move(session), why);
    if (m_session) {
        Q_EMIT breakdownReady();
        recomputeMissingDetails(m_view->selected(), m_view->compared()); // chosen before the model was there
    }
}

QList<QAction *> SearchWorkspace::fileActions() const
{
    return {m_openAction, m_openLibraryAction, m_openNestAction, m_saveAction, m_saveNestAction};
}

void SearchWorkspace::saveLayout()
{
    settings().setLayoutValue(kWorkspaceId, QStringLiteral("splitter"), m_splitter->saveState());
}

void SearchWorkspace::restoreLayout()
{
    m_splitter->restoreState(settings().layoutValue(kWorkspaceId, QStringLiteral("splitter")));
}

} // namespace beamscope::ui
