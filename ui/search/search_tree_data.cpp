#include "ui/search/search_tree_data.h"

#include "core/util/halide_names.h"

#include <QObject>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

namespace beamscope::ui {

void SearchTreeData::reset(const search::SearchTrace &header)
{
    *this = SearchTreeData();
    m_pipeline = QString::fromStdString(header.pipeline);
    m_stageNames = header.stageNames;
    m_funcNames = FuncNames::fromStageNames(header.stageNames);
    m_params = header.params;
}

void SearchTreeData::append(std::vector<search::TraceNode> nodes)
{
    std::vector<int> touched;
    for (search::TraceNode &n : nodes) {
        if (n.id != static_cast<int64_t>(m_nodes.size()))
            continue; // ids must continue the current ones; anything else is not ours
        const int pass = std::max(0, n.pass), depth = std::max(1, n.depth);
        if (static_cast<int>(m_rowIndex.size()) <= pass)
            m_rowIndex.resize(static_cast<size_t>(pass) + 1);
        auto &byDepth = m_rowIndex[static_cast<size_t>(pass)];
        if (static_cast<int>(byDepth.size()) <= depth)
            byDepth.resize(static_cast<size_t>(depth) + 1, -1);
        int &r = byDepth[static_cast<size_t>(depth)];
        if (r < 0) {
            r = static_cast<int>(m_rows.size());
            Row row;
            row.pass = pass;
            row.depth = depth;
            row.minCost = std::numeric_limits<double>::infinity();
            m_rows.push_back(row);
        }
        Row &row = m_rows[static_cast<size_t>(r)];
        row.nodes.push_back(n.id);
        if (std::isfinite(n.cost) && n.cost < row.minCost)
            row.minCost = n.cost;
        if (n.inBeam)
            row.beamCount++;
        if (touched.empty() || touched.back() != r)
            touched.push_back(r);
        m_passCount = std::max(m_passCount, pass + 1);
        m_maxDepth = std::max(m_maxDepth, depth);
        m_rowOf.push_back(r);
        m_x.push_back(0);
        m_funcMatch.push_back(false);
        m_onWinnerPath.push_back(false);
        m_nodes.push_back(std::move(n));
        if (!m_funcFilter.isEmpty())
            m_funcMatch.back() = matches(m_nodes.back());
    }
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (int r : touched)
        place(m_rows[static_cast<size_t>(r)]);
}

void SearchTreeData::place(Row &row)
{
    const double w = slotWidth(row);
    for (size_t i = 0; i < row.nodes.size(); ++i)
        m_x[static_cast<size_t>(row.nodes[i])] = bandLeft(row.pass) + (double(i) + 0.5) * w;
}

void SearchTreeData::setSummary(const search::TraceSummary &summary)
{
    m_summary = summary;
    m_hasSummary = true;
    updateWinnerPath();
}

void SearchTreeData::load(const search::SearchTrace &trace)
{
    reset(trace);
    append(trace.nodes());
    setSummary(trace.summary);
}

bool SearchTreeData::fillRecomputed(int64_t id, std::vector<std::array<float, 73>> features,
                                    std::vector<float> stageCosts, std::string loopNest)
{
    if (id < 0 || id >= static_cast<int64_t>(m_nodes.size()) || hasDetails(id))
        return false;
    search::TraceNode &n = m_nodes[static_cast<size_t>(id)];
    n.features = std::move(features);
    n.stageCosts = std::move(stageCosts);
    n.loopNest = std::move(loopNest);
    m_recomputed.resize(m_nodes.size(), false);
    m_recomputed[static_cast<size_t>(id)] = true;
    return true;
}

bool SearchTreeData::isRecomputed(int64_t id) const
{
    return id >= 0 && id < static_cast<int64_t>(m_recomputed.size()) && m_recomputed[static_cast<size_t>(id)];
}

void SearchTreeData::markMeasured(int64_t id, double medianMs)
{
    if (!node(id))
        return;
    if (!isMeasured(id))
        m_measured.push_back(id);
    m_measuredMs[id] = medianMs;
    m_measureFailures.erase(id);
}

void SearchTreeData::markMeasurementFailed(int64_t id, const QString &why)
{
    if (node(id))
        m_measureFailures[id] = why;
}

QString SearchTreeData::measurementFailure(int64_t id) const
{
    const auto it = m_measureFailures.find(id);
    return it == m_measureFailures.end() ? QString() : it->second;
}

double SearchTreeData::measuredMs(int64_t id) const
{
    const auto it = m_measuredMs.find(id);
    return it == m_measuredMs.end() ? 0.0 : it->second;
}

bool SearchTreeData::isMeasured(int64_t id) const
{
    return std::find(m_measured.begin(), m_measured.end(), id) != m_measured.end();
}

bool SearchTreeData::hasDetails(int64_t id) const
{
    const search::TraceNode *n = node(id);
    return n && !n->loopNest.empty() && (!n->features.empty() || n->depth == 0);
}

const search::TraceNode *SearchTreeData::node(int64_t id) const
{
    return id >= 0 && id < static_cast<int64_t>(m_nodes.size()) ? &m_nodes[static_cast<size_t>(id)] : nullptr;
}

const SearchTreeData::Row *SearchTreeData::row(int pass, int depth) const
{
    if (pass < 0 || pass >= static_cast<int>(m_rowIndex.size()))
        return nullptr;
    const auto &byDepth = m_rowIndex[static_cast<size_t>(pass)];
    if (depth < 0 || depth >= static_cast<int>(byDepth.size()) || byDepth[static_cast<size_t>(depth)] < 0)
        return nullptr;
    return &m_rows[static_cast<size_t>(byDepth[static_cast<size_t>(depth)])];
}

int SearchTreeData::countAt(int pass, int depth) const
{
    const Row *r = row(pass, depth);
    return r ? static_cast<int>(r->nodes.size()) : 0;
}

int SearchTreeData::beamCountAt(int pass, int depth) const
{
    const Row *r = row(pass, depth);
    return r ? r->beamCount : 0;
}

QPointF SearchTreeData::position(int64_t id) const
{
    const search::TraceNode *n = node(id);
    if (!n)
        return {};
    const Row &r = m_rows[static_cast<size_t>(m_rowOf[static_cast<size_t>(id)])];
    return {m_x[static_cast<size_t>(id)], rowTop(r.depth) + kRowHeight / 2};
}

QRectF SearchTreeData::bounds() const
{
    if (m_nodes.empty())
        return {0, 0, kBandWidth, kRowHeight};
    return QRectF(0, 0, bandLeft(m_passCount - 1) + kBandWidth, m_maxDepth * kRowHeight);
}

int64_t SearchTreeData::hitTest(QPointF world, double tolerance) const
{
    const double stride = kBandWidth + kBandGap;
    const int pass = static_cast<int>(std::floor(world.x() / stride));
    const int depth = static_cast<int>(std::floor(world.y() / kRowHeight)) + 1;
    const Row *r = row(pass, depth);
    if (!r || r->nodes.empty())
        return -1;
    const double w = slotWidth(*r);
    const double local = world.x() - bandLeft(pass);
    const auto slot = static_cast<int64_t>(std::floor(local / w));
    if (slot < 0 || slot >= static_cast<int64_t>(r->nodes.size()))
        return -1;
    const int64_t id = r->nodes[static_cast<size_t>(slot)];
    const QPointF p = position(id);
    if (std::abs(p.x() - world.x()) > std::max(tolerance, w / 2) ||
        std::abs(p.y() - world.y()) > std::max(tolerance, kRowHeight / 2))
        return -1;
    return id;
}

double SearchTreeData::relativeCost(int64_t id) const
{
    const search::TraceNode *n = node(id);
    if (!n)
        return 1;
    const Row &r = m_rows[static_cast<size_t>(m_rowOf[static_cast<size_t>(id)])];
    if (!std::isfinite(n->cost) || !std::isfinite(r.minCost))
        return std::numeric_limits<double>::infinity();
    if (r.minCost <= 0)
        return n->cost <= r.minCost ? 1.0 : 1.0 + (n->cost - r.minCost);
    return n->cost / r.minCost;
}

std::vector<Json> SearchTreeData::decisionsTo(int64_t id) const
{
    return search::decisionPath(node(id), [this](int64_t parent) { return node(parent); });
}

std::vector<int64_t> SearchTreeData::pathTo(int64_t id) const
{
    std::vector<int64_t> path;
    for (const search::TraceNode *n = node(id); n; n = node(n->parent)) {
        path.push_back(n->id);
        if (path.size() > m_nodes.size())
            break; // a malformed trace with a cycle cannot hang the view
    }
    std::reverse(path.begin(), path.end());
    return path;
}

void SearchTreeData::updateWinnerPath()
{
    std::fill(m_onWinnerPath.begin(), m_onWinnerPath.end(), false);
    for (int64_t id : pathTo(winner()))
        m_onWinnerPath[static_cast<size_t>(id)] = true;
}

QString SearchTreeData::depthLabel(int depth) const
{
    const Row *r = row(0, depth);
    const search::TraceNode *first = r && !r->nodes.empty() ? node(r->nodes.front()) : nullptr;
    if (!first)
        return {};
    // The same names in every view, the CLI's and the schedule's too.
    const QString func = shown(decisionFunc(*first).toStdString());
    if (!m_params.halideSteps)
        return func;
    return depth % 2 == 1 ? QObject::tr("%1 · place").arg(func) : QObject::tr("%1 · tile").arg(func);
}

std::pair<int, int> SearchTreeData::rankInRow(int64_t id) const
{
    const search::TraceNode *n = node(id);
    if (!n)
        return {0, 0};
    const Row &r = m_rows[static_cast<size_t>(m_rowOf[static_cast<size_t>(id)])];
    int cheaper = 0;
    for (int64_t other : r.nodes)
        if (node(other)->cost < n->cost)
            ++cheaper;
    return {cheaper + 1, static_cast<int>(r.nodes.size())};
}

QString SearchTreeData::describe(int64_t id) const
{
    const search::TraceNode *n = node(id);
    if (!n)
        return {};
    const QString decision = shown(n->decision);
    const auto [rank, of] = rankInRow(id);
    return QObject::tr("#%1 · %2\n%3\npredicted cost %4 · %5 of %6 in its row by cost · %7")
        .arg(id)
        .arg(depthLabel(n->depth).isEmpty() ? decisionFunc(*n) : depthLabel(n->depth), decision)
        .arg(QString::number(n->cost, 'g', 6))
        .arg(rank)
        .arg(of)
        .arg((n->id == winner() ? QObject::tr("the winner")
              : n->inBeam       ? QObject::tr("kept in the beam")
                                : QObject::tr("pruned")) +
             (isMeasured(id) ? QObject::tr(" · measured: %1 ms median").arg(measuredMs(id), 0, 'g', 4) : QString()));
}

QString SearchTreeData::decisionFunc(const search::TraceNode &n)
{
    if (const Json *f = n.detail.isObject() ? n.detail.find("func") : nullptr)
        return QString::fromStdString(f->toString());
    const auto colon = n.decision.find(':');
    return QString::fromStdString(colon == std::string::npos ? std::string() : n.decision.substr(0, colon));
}

bool SearchTreeData::matches(const search::TraceNode &n) const
{
    // The decision's Func, or its text ("root, threads 16x8", "inline"), compared
    // without making a string per state: a filter runs over millions of them.
    if (decisionFunc(n).contains(m_funcFilter, Qt::CaseInsensitive))
        return true;
    const auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
    return std::search(n.decision.begin(), n.decision.end(), m_filterUtf8.begin(), m_filterUtf8.end(),
                       [&](char a, char b) { return lower(a) == lower(b); }) != n.decision.end();
}

int SearchTreeData::setFuncFilter(const QString &text)
{
    m_funcFilter = text.trimmed();
    m_filterUtf8 = m_funcFilter.toStdString();
    int count = 0;
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        m_funcMatch[i] = !m_funcFilter.isEmpty() && matches(m_nodes[i]);
        count += m_funcMatch[i] ? 1 : 0;
    }
    return count;
}

} // namespace beamscope::ui
