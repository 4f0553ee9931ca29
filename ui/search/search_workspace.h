#pragma once
// The Search workspace, the explorer's main view: run Beamscope's GPU beam
// search on a pipeline of the registry (the same core call as
// `beamscope-cli autoschedule`) and watch its tree grow, or open a recorded
// trace; select a state for its decision path, loop nest, features and cost
// breakdown, and compare two states.
//
// The search runs on a worker thread; nodes arrive in batches (one per
// decision depth) through queued calls that carry the search's generation, so
// a search that was replaced or cancelled never paints into the current tree.

#include "core/session/search_session.h"
#include "core/util/progress.h"
#include "ui/common/generator_probe.h"
#include "ui/common/latest_job.h"
#include "ui/mainwindow/workspace.h"
#include "ui/search/search_tree_data.h"

#include <QHash>
#include <QPair>
#include <QSet>

#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTableWidget;
class QTableWidgetItem;

namespace beamscope::ui {

class FinalBeamPanel;
class RelayProgress;
class SearchTreeView;
class StateDetailPanel;
class WeightsComboBox;

class SearchWorkspace : public Workspace {
    Q_OBJECT
public:
    SearchWorkspace(AppSettings &settings, QWidget *parent);
    ~SearchWorkspace() override;

    bool canOpen(const QString &path) const override;
    void open(const QString &path) override;
    QList<QAction *> fileActions() const override;
    void saveLayout() override;
    void restoreLayout() override;

    // The search the controls describe (app, weights, beam, ...).
    session::SearchRequest optionsFromControls() const;
    void setApp(const QString &name);

    // A user's generator library (a .so of Halide 14 generators): looked at in a child process
    // first (ui/common/generator_probe.h), then its generators join the App list, each with its
    // GeneratorParams to set, and the Pipeline and Autotune workspaces list them too. `generator`
    // selects one (else the first). generatorLibraryOpened follows, ok or with the reason.
    void openGeneratorLibrary(const QString &library, const QString &generator = {},
                              const GeneratorParamValues &values = {});
    bool isOpeningLibrary() const { return m_generatorJob.pending(); }
    // The App list's generator entries, for tests: "GEN (LIB.so)".
    QStringList generatorEntries() const;
    // Sets a GeneratorParam of the selected generator (false: no such parameter).
    bool setGeneratorParam(const QString &name, const QString &value);
    QTableWidget *generatorParamsTable() const { return m_genParams; }
    // What the status line says.
    QString statusText() const;
    void setWeightsPath(const QString &path);
    void setBeamSize(int beam);
    void setPasses(int passes);
    void startSearch(const session::SearchRequest &options);
    void startSearch(); // from the controls
    void cancelSearch();
    // Starts a new search from a recorded state (its decisions fixed, the rest
    // searched with the controls' settings), off the GUI thread like any search;
    // false when there is no such state.
    bool continueFrom(qint64 id);
    bool isSearching() const { return m_searching; }
    // Parses a trace file off the GUI thread; traceLoaded or loadFailed follows.
    void openTrace(const QString &path);

    // Halide's loop-nest dumps (search_workspace_loop_nest.cpp). A dump, or a whole
    // HL_DEBUG_AUTOSCHEDULE log, starts a search on the controls' pipeline with its Funcs' decisions
    // fixed: a complete dump is then the tree's one complete state, with its loop nest, features and
    // cost terms under the chosen weights. A state is saved in the form `beamscope-cli state` and
    // Halide's partial-schedule input read back. statusMessage says what failed.
    static bool isLoopNestDump(const QString &path);
    bool openLoopNest(const QString &path);
    bool saveStateAsLoopNest(qint64 id, const QString &path);

    // Writes the state's Halide schedule source (or, for a partial state, its
    // loop nest as comments) off the GUI thread; scheduleExported follows.
    void exportScheduleTo(qint64 id, const QString &path);

    // Hands a complete state to the Pipeline workspace's benchmark (searchStateForWorkspace);
    // false, with a status message, for a partial state or before the search's session is built.
    bool benchmarkInPipeline(qint64 id);

    // Compiles and times a complete state off the GUI thread; measured follows.
    void measureState(qint64 id);
    // Measures these states one after another (the final beam's "Measure the beam").
    void measureStates(const QList<qint64> &ids);
    void cancelMeasurement();
    void setMeasureTarget(const QString &target);

    // Selects a state by its id ("123" or "#123") and shows it; false when the tree has no such state.
    bool goToState(const QString &text);
    void selectState(qint64 id);
    void compareState(qint64 id);
    void setFuncSearch(const QString &text);
    void setPathOnly(bool on);

    const SearchTreeData &treeData() const { return m_data; }
    SearchTreeView *treeView() const { return m_view; }
    StateDetailPanel *detailPanel() const { return m_panel; }
    QLabel *countsLabel() const { return m_counts; }
    QLabel *matchLabel() const { return m_matchLabel; }
    QCheckBox *hideUnmatchedBox() const { return m_hideUnmatched; }
    QLineEdit *goToField() const { return m_goTo; }
    QPushButton *finalBeamButton() const { return m_showBeam; }
    QPushButton *startButton() const { return m_start; }
    QTableWidget *generatorParamTable() const { return m_genParams; }
    QPushButton *cancelButton() const { return m_cancel; }
    FinalBeamPanel *finalBeamPanel() const { return m_beamPanel; }
    // The session of the tree shown (its model gives the cost terms; it emits and
    // measures states): the search's own, or, for an opened trace, one opened on
    // the trace's pipeline and weights. Pending while it is being built.
    bool breakdownPending() const { return m_sessionJob.pending(); }
    bool weightsScanPending() const;
    // The line under the weights saying what the chosen shipped file is for this app ("" if none).
    QString weightsNote() const;
    // The opened trace's weights file when it is missing here ("" otherwise).
    QString missingTraceWeights() const { return m_missingTraceWeights; }

Q_SIGNALS:
    void nodesAdded(int count);
    void searchFinished(bool ok, bool cancelled);
    void traceLoaded();
    void loadFailed(const QString &error);
    void breakdownReady();
    // A pruned state's features, costs and loop nest were rebuilt from its decisions.
    void detailsRecomputed();
    void measured(bool ok, double medianMs);
    void scheduleExported(const QString &path, bool written, bool asSource);
    void generatorLibraryOpened(bool ok, const QString &message);

private:
    std::shared_ptr<SilentProgress> startProbe();
    void probeEnded();
    struct LoadedGenerator {
        QString library; // absolute
        GeneratorInfo info;
    };
    const LoadedGenerator *currentGenerator() const;
    // The app's name, or the selected generator's.
    QString currentPipelineName() const;
    void onGeneratorSelected();
    void checkGeneratorParamEdit(QTableWidgetItem *item);
    // The generator library a generator trace needs: the one it names, one opened, or one beside the
    // trace or its generator program that registers the generator; "" when none is here.
    void findTraceGeneratorLibrary();
    void updateWeightsNote();
    struct Batch;
    void buildControls(QWidget *box);
    void onBatch(quint64 generation, const std::shared_ptr<Batch> &batch);
    void onFinished(quint64 generation, const std::shared_ptr<session::SearchOutcome> &outcome);
    void setSearching(bool on);
    void refreshCounts();
    void setSession(std::shared_ptr<session::SearchSession> session, const QString &why);
    void openSessionForTrace();
    void exportSchedule(qint64 id);
    void saveTrace();
    void createLoopNestActions();
    void showTraceParamsInControls();
    // True (and says why) while an opened trace's own weights file is missing
    // and the user has chosen no other: nothing is searched with a stand-in.
    bool refusedForMissingWeights();
    void showNode(qint64 a, qint64 b);
    void recomputeMissingDetails(qint64 a, qint64 b);

    SearchTreeData m_data;
    std::optional<search::SearchTrace> m_lastTrace; // the last finished search, for "Save trace…"
    QString m_tracePath;
    quint64 m_generation = 0;
    quint64 m_measureGeneration = 0;
    std::shared_ptr<RelayProgress> m_measureProgress;
    QComboBox *m_measureTarget = nullptr;
    bool m_searching = false;
    bool m_pickCompare = false;
    std::shared_ptr<RelayProgress> m_progress;
    LatestJob m_loadJob;
    LatestJob m_sessionJob;
    LatestJob m_exportJob;
    LatestJob m_replayJob;
    std::shared_ptr<session::SearchSession> m_session;
    bool m_treeFromFile = false;   // the tree is an opened trace (its session follows the weights chosen)
    QString m_missingTraceWeights; // the opened trace's weights file, when it is not here

    QSplitter *m_splitter = nullptr;
    QComboBox *m_app = nullptr;
    WeightsComboBox *m_weights = nullptr;
    QLabel *m_weightsNote = nullptr; // what the chosen shipped file is, for this app
    QSpinBox *m_beam = nullptr, *m_passes = nullptr, *m_seed = nullptr, *m_dropout = nullptr;
    QComboBox *m_profile = nullptr;
    QCheckBox *m_optRoot = nullptr, *m_optInline = nullptr, *m_optBlock = nullptr, *m_optThread = nullptr;
    QCheckBox *m_noSubtiling = nullptr, *m_randomTilings = nullptr, *m_freeze = nullptr;
    QPushButton *m_start = nullptr, *m_cancel = nullptr;
    QProgressBar *m_progressBar = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_counts = nullptr;
    QLineEdit *m_funcSearch = nullptr;
    QLabel *m_matchLabel = nullptr;
    QCheckBox *m_pathOnly = nullptr;
    QCheckBox *m_hideUnmatched = nullptr;
    QLineEdit *m_goTo = nullptr;
    QPushButton *m_showBeam = nullptr;
    FinalBeamPanel *m_beamPanel = nullptr;
    SearchTreeView *m_view = nullptr;
    StateDetailPanel *m_panel = nullptr;
    QAction *m_openAction = nullptr, *m_saveAction = nullptr, *m_openLibraryAction = nullptr;
    QAction *m_openNestAction = nullptr, *m_saveNestAction = nullptr;
    QList<LoadedGenerator> m_generators;
    QTableWidget *m_genParams = nullptr;
    QLabel *m_genParamsLabel = nullptr;
    LatestJob m_generatorJob;
    // Set while a generator library is looked at in its child process: Cancel kills that process.
    std::shared_ptr<SilentProgress> m_probeCancel;
    QList<qint64> m_measureQueue;   // states still to measure after the current one
    QSet<QString> m_verifiedBuilds; // library, generator and values a child process built without trouble
    QString m_traceLibrary;         // the generator library an opened generator trace is built from
    // Each state's last measurement line (and its details), shown again when it is selected again.
    QHash<qint64, QPair<QString, QString>> m_measurements;
};

} // namespace beamscope::ui
