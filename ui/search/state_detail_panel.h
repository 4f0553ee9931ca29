#pragma once
// Everything about one state of the beam tree (and, optionally, a second one
// to compare with): its decision path from the root, its loop nest (loops
// marked as GPU block / thread / serial / unrolled, memory types coloured),
// its 73 features per stage as a table and a log(1 + x) chart, its predicted
// cost per stage with the cost model's named terms per stage as stacked bars in
// the rows of one table (a stage's name never drops, whatever the stage count).
//
// Compared with a second state B, every view answers "where do they differ":
// the header names the first decision where A's and B's paths part, the stage
// table puts the largest |B − A| first, the features open on the stage that
// differs most with "Differing only" on, and the loop nest shows the changed
// lines with a little context, the unchanged runs folded to one line.
//
// Only states that stayed in the beam carry features and a loop nest in the
// trace (the recorder keeps traces bounded that way); for a pruned state the
// panel says so and shows what the trace holds (decision, cost, path).

#include "core/session/search_session.h"

#include <QWidget>

#include <cstdint>
#include <memory>

class QCheckBox;
class QComboBox;
class QSplitter;
class QLabel;
class QListWidget;
class QPushButton;
class QTabWidget;
class QTableView;
class QTextBrowser;

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QBarSeries;
QT_END_NAMESPACE

namespace beamscope::ui {

class FeatureDiffProxy;
class FeatureTableModel;
class SearchTreeData;
class StageCostModel;

class StateDetailPanel : public QWidget {
    Q_OBJECT
public:
    explicit StateDetailPanel(QWidget *parent = nullptr);

    void setData(const SearchTreeData *data);
    // The cost breakdown needs the pipeline and the weights (built off the GUI thread).
    // The session whose model gives the cost terms (the search's own), or null with why not.
    void setSession(std::shared_ptr<const session::SearchSession> session, const QString &status);
    // Why there are no cost terms (no session), as the cost tab says it.
    QString sessionStatus() const { return m_sessionStatus; }
    void showState(int64_t a, int64_t b = -1);
    int64_t stateA() const { return m_a; }
    int64_t stateB() const { return m_b; }
    void setStage(int stage);
    // Shown beside the prediction once a measurement came back ("" clears);
    // details (a worker's full error) sit behind a "details" link.
    void setMeasurement(const QString &text, const QString &details = {});

    // For tests and the screenshot tool.
    FeatureTableModel *featureModel() const { return m_featureModel; }
    StageCostModel *stageCostModel() const { return m_costModel; }
    QTableView *costTable() const { return m_costTable; }
    QTableView *featureTable() const { return m_featureTable; }
    QBarSeries *featureSeries() const { return m_featureSeries; }
    QListWidget *pathList() const { return m_path; }
    QString loopNestText() const;
    // State A's loop nest as text (what Copy puts on the clipboard); empty when A has none.
    QString plainLoopNest() const;
    QPushButton *copyLoopNestButton() const { return m_copyNest; }
    QString termLegendText() const;
    QString costNoteText() const; // the Cost breakdown's note: the totals and the term that matters most
    QString summaryText() const;
    // Compared: where A's and B's decision paths first part ("" without B).
    QString divergenceText() const { return m_divergence; }
    QString measurementText() const;
    QTabWidget *tabs() const { return m_tabs; }
    QPushButton *measureButton() const { return m_measure; }
    QPushButton *continueButton() const { return m_continue; }
    // Whether "Continue" may start a search now (not while one runs).
    void setContinueAllowed(bool allowed);
    QPushButton *exportButton() const { return m_export; }
    QPushButton *benchmarkButton() const { return m_benchmark; }
    QPushButton *compareButton() const { return m_compareButton; }
    FeatureDiffProxy *featureProxy() const { return m_featureProxy; }
    QCheckBox *differingOnlyBox() const { return m_differingOnly; }
    // While the workspace rebuilds a pruned state's details, the panel says so.
    void setRecomputing(bool on);
    bool isRecomputing() const { return m_recomputing; }

Q_SIGNALS:
    void compareRequested(); // the next state clicked becomes B
    void clearCompareRequested();
    void measureRequested(qint64 id);
    void continueRequested(qint64 id);
    void exportRequested(qint64 id);
    void benchmarkRequested(qint64 id); // time the state in the Pipeline workspace
    void pathStateActivated(qint64 id);

private:
    QString mainTermSentence(const std::vector<session::StageTerms> &a, const std::vector<session::StageTerms> &b,
                             const std::vector<std::string> &termNames) const;
    void refreshFeatures();
    void refreshCosts();
    QString describeDivergence() const;
    int mostDifferingStage() const;
    // The nests' Funcs are named as shown (SearchTreeData::shown) by the caller.
    static QString loopNestHtml(const std::string &nest);
    static QString loopNestDiffHtml(const std::string &a, const std::string &b);

    const SearchTreeData *m_data = nullptr;
    std::shared_ptr<const session::SearchSession> m_session;
    QString m_sessionStatus;
    int64_t m_a = -1, m_b = -1;
    int m_stage = 0;

    QLabel *m_summary;
    QLabel *m_measured;
    QPushButton *m_compareButton, *m_clearCompare, *m_measure, *m_continue, *m_export, *m_benchmark;
    QPushButton *m_copyNest = nullptr;
    bool m_continueAllowed = true;
    QTabWidget *m_tabs;
    QListWidget *m_path;
    QTextBrowser *m_loopNest;
    QLabel *m_nestTitle;
    bool m_recomputing = false;
    QString m_measurementDetails;
    QComboBox *m_stageCombo;
    QLabel *m_featureNote;
    QTableView *m_featureTable;
    FeatureTableModel *m_featureModel;
    FeatureDiffProxy *m_featureProxy;
    QCheckBox *m_differingOnly;
    QChart *m_featureChart;
    QChartView *m_featureChartView;
    QBarSeries *m_featureSeries = nullptr;
    QLabel *m_costNote;
    QTableView *m_costTable;
    StageCostModel *m_costModel;
    QLabel *m_termLegend;
    QString m_divergence;
    bool m_focusDifference = false; // a new comparison waits to open on its most differing stage
};

} // namespace beamscope::ui
