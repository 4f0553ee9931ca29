#pragma once
// The explorer's copy of a search trace, arranged for drawing: nodes grouped
// into rows by (pass, depth), a position for every node, per-row cost ranges,
// the path to the winner and Func-name matches. No widgets here, so tests and
// the paint benchmark use it directly.
//
// Layout: each pass is a vertical band kBandWidth wide (passes side by side),
// each decision depth a row kRowHeight tall; a row's nodes are spread evenly
// across its band in arrival order (children grouped by parent, parents in
// beam order, so the cheap branches sit on the left). Because rows are evenly
// spaced, the layout is itself the spatial index: a point maps to (band, row,
// slot) by division, no tree or grid to maintain.

#include "core/search/search_trace.h"
#include "core/util/halide_names.h"

#include <QPointF>
#include <QRectF>
#include <QString>

#include <array>
#include <cstdint>
#include <utility>
#include <string>
#include <map>
#include <vector>

namespace beamscope::ui {

class SearchTreeData {
public:
    static constexpr double kBandWidth = 1000.0;
    static constexpr double kBandGap = 80.0;
    static constexpr double kRowHeight = 40.0;

    struct Row {
        int pass = 0;
        int depth = 0;
        std::vector<int64_t> nodes; // ids, in slot order
        double minCost = 0;         // cheapest finite cost in the row (colour reference)
        int beamCount = 0;
    };

    // Starts over with a trace's header (no nodes yet).
    void reset(const search::SearchTrace &header);
    // Appends nodes whose ids continue the current ones (live batches, or a whole trace).
    void append(std::vector<search::TraceNode> nodes);
    void setSummary(const search::TraceSummary &summary);
    // The finished search's parameters (what it wrote after the first batch: weights, generator source).
    void setParams(const search::TraceParams &params) { m_params = params; }
    // reset + append + setSummary.
    void load(const search::SearchTrace &trace);

    const std::vector<search::TraceNode> &nodes() const { return m_nodes; }
    const search::TraceNode *node(int64_t id) const;
    const std::vector<Row> &rows() const { return m_rows; }
    const Row *row(int pass, int depth) const;
    const QString &pipeline() const { return m_pipeline; }
    const std::vector<std::string> &stageNames() const { return m_stageNames; }
    // Text (a stage name, a decision, a loop nest) with every Func named as the
    // explorer, the CLI and the emitted schedule name it (halide_names.h FuncNames).
    QString shown(const std::string &text) const { return QString::fromStdString(m_funcNames.rewrite(text)); }
    const FuncNames &funcNames() const { return m_funcNames; }
    const search::TraceParams &params() const { return m_params; }
    const search::TraceSummary &summary() const { return m_summary; }
    bool hasSummary() const { return m_hasSummary; }
    int passCount() const { return m_passCount; }
    int maxDepth() const { return m_maxDepth; }
    int countAt(int pass, int depth) const;
    int beamCountAt(int pass, int depth) const;

    // Geometry (world coordinates).
    QPointF position(int64_t id) const;
    double slotWidth(const Row &row) const
    {
        return row.nodes.empty() ? kBandWidth : kBandWidth / double(row.nodes.size());
    }
    static double bandLeft(int pass) { return pass * (kBandWidth + kBandGap); }
    static double rowTop(int depth) { return (depth - 1) * kRowHeight; }
    QRectF bounds() const;
    // The node under a world point within `tolerance` world units, else -1.
    int64_t hitTest(QPointF world, double tolerance) const;

    // Cost relative to its row's cheapest (>= 1), the colour scale's input.
    double relativeCost(int64_t id) const;

    // Root-first path of ids ending at id.
    std::vector<int64_t> pathTo(int64_t id) const;
    // The decisions on that path, root first (search::decisionPath).
    std::vector<Json> decisionsTo(int64_t id) const;
    // Marks of the winner's path (empty before the summary names a winner).
    const std::vector<bool> &onWinnerPath() const { return m_onWinnerPath; }
    int64_t winner() const { return m_hasSummary ? m_summary.bestId : -1; }

    // Nodes whose decision schedules a Func whose name contains `text`, or whose
    // decision's text contains it (case-insensitive); returns how many matched.
    // Empty text clears.
    int setFuncFilter(const QString &text);
    const std::vector<bool> &funcMatches() const { return m_funcMatch; }
    bool hasFuncFilter() const { return !m_funcFilter.isEmpty(); }

    // Fills a node the trace kept no features, stage costs or loop nest for
    // (a pruned state) with what replaying its decisions gave; such a node is
    // marked recomputed. False for an unknown id or a node that has them.
    bool fillRecomputed(int64_t id, std::vector<std::array<float, 73>> features, std::vector<float> stageCosts,
                        std::string loopNest);
    bool isRecomputed(int64_t id) const;
    // States measured on a device this session (the tree rings them).
    void markMeasured(int64_t id, double medianMs);
    // A measurement that failed (a crash, a wrong output, a compile error), said beside the state.
    void markMeasurementFailed(int64_t id, const QString &why);
    QString measurementFailure(int64_t id) const; // "" unless its last measurement failed
    // Its median runtime in ms, 0 when not measured.
    double measuredMs(int64_t id) const;
    bool isMeasured(int64_t id) const;
    const std::vector<int64_t> &measured() const { return m_measured; }
    // A node the panel can show whole (features, stage costs, loop nest).
    bool hasDetails(int64_t id) const;

    // What a depth decides, for its row label: "blur_x · place" / "blur_x · tile"
    // on Halide's steps (placement, then a root Func's tiling), the Func alone
    // on per-Func steps; "" before any node of that depth arrived.
    QString depthLabel(int depth) const;
    // A state's place among its row's states by cost (1 = cheapest) and the row's size.
    std::pair<int, int> rankInRow(int64_t id) const;
    // The hover text of a state: id, Func, decision, cost, rank, beam.
    QString describe(int64_t id) const;

    // The Func a node's decision scheduled ("" for none).
    static QString decisionFunc(const search::TraceNode &n);

private:
    void place(Row &row);
    void updateWinnerPath();
    bool matches(const search::TraceNode &n) const;

    QString m_pipeline;
    std::vector<std::string> m_stageNames;
    FuncNames m_funcNames;
    search::TraceParams m_params;
    search::TraceSummary m_summary;
    bool m_hasSummary = false;
    std::vector<search::TraceNode> m_nodes;
    std::vector<double> m_x;  // per node
    std::vector<int> m_rowOf; // per node: index into m_rows
    std::vector<Row> m_rows;
    std::vector<std::vector<int>> m_rowIndex; // [pass][depth] -> index into m_rows, -1
    int m_passCount = 0;
    int m_maxDepth = 0;
    std::vector<bool> m_onWinnerPath;
    std::vector<bool> m_funcMatch;
    std::vector<bool> m_recomputed; // per node
    std::vector<int64_t> m_measured;
    std::map<int64_t, double> m_measuredMs; // median runtime of each measured state
    std::map<int64_t, QString> m_measureFailures;
    QString m_funcFilter;
    std::string m_filterUtf8; // m_funcFilter, for matching decision text without conversions
};

} // namespace beamscope::ui
