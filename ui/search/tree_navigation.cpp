#include "ui/search/tree_navigation.h"

#include "ui/search/search_tree_data.h"

#include <algorithm>

namespace beamscope::ui::navigation {

namespace {

// The row a state's children land in: the next depth of the same pass.
const SearchTreeData::Row *childRow(const SearchTreeData &data, const search::TraceNode &n)
{
    return data.row(n.pass, n.depth + 1);
}

// A state's siblings in the tree's order, itself included. Children are
// grouped by parent within a row, so this is one contiguous run of the row.
std::vector<int64_t> siblingsOf(const SearchTreeData &data, const search::TraceNode &n)
{
    std::vector<int64_t> out;
    const SearchTreeData::Row *row = data.row(n.pass, n.depth);
    if (!row)
        return out;
    for (int64_t other : row->nodes)
        if (data.node(other)->parent == n.parent)
            out.push_back(other);
    return out;
}

} // namespace

int64_t parent(const SearchTreeData &data, int64_t id)
{
    const search::TraceNode *n = data.node(id);
    return n && data.node(n->parent) ? n->parent : -1;
}

std::vector<int64_t> children(const SearchTreeData &data, int64_t id)
{
    std::vector<int64_t> out;
    const search::TraceNode *n = data.node(id);
    if (!n)
        return out;
    if (const SearchTreeData::Row *row = childRow(data, *n))
        for (int64_t other : row->nodes)
            if (data.node(other)->parent == id)
                out.push_back(other);
    return out;
}

int64_t preferredChild(const SearchTreeData &data, int64_t id)
{
    const std::vector<int64_t> kids = children(data, id);
    if (kids.empty())
        return -1;
    const auto &onPath = data.onWinnerPath();
    for (int64_t k : kids)
        if (onPath[static_cast<size_t>(k)])
            return k;
    // Beam survivors before pruned states, then by cost; ties keep the tree's order.
    return *std::min_element(kids.begin(), kids.end(), [&](int64_t a, int64_t b) {
        const search::TraceNode &x = *data.node(a), &y = *data.node(b);
        if (x.inBeam != y.inBeam)
            return x.inBeam;
        return x.cost < y.cost;
    });
}

int64_t sibling(const SearchTreeData &data, int64_t id, int step, bool prunedOnly)
{
    const search::TraceNode *n = data.node(id);
    if (!n || step == 0)
        return -1;
    const std::vector<int64_t> run = siblingsOf(data, *n);
    const auto at = std::find(run.begin(), run.end(), id);
    if (at == run.end())
        return -1;
    const int direction = step > 0 ? 1 : -1;
    int remaining = step > 0 ? step : -step;
    for (auto i = static_cast<std::ptrdiff_t>(at - run.begin()) + direction;
         i >= 0 && i < static_cast<std::ptrdiff_t>(run.size()); i += direction) {
        const int64_t candidate = run[static_cast<size_t>(i)];
        if (prunedOnly && data.node(candidate)->inBeam)
            continue;
        if (--remaining == 0)
            return candidate;
    }
    return -1;
}

double effectiveCost(const SearchTreeData &data, int64_t id)
{
    const search::TraceNode *n = data.node(id);
    for (size_t hops = 0; n && n->passThrough && hops <= data.nodes().size(); ++hops)
        n = data.node(n->parent);
    return n ? n->cost : 0.0;
}

std::vector<int64_t> finalBeam(const SearchTreeData &data)
{
    const SearchTreeData::Row *last = nullptr;
    for (const SearchTreeData::Row &row : data.rows())
        if (!last || row.pass > last->pass || (row.pass == last->pass && row.depth > last->depth))
            last = &row;
    if (!last)
        return {};
    // The complete states of the last pass, cheapest first: the search's last step
    // keeps only its winner in the beam, so its row's states are the candidates.
    std::vector<int64_t> complete = last->nodes;
    std::stable_sort(complete.begin(), complete.end(),
                     [&](int64_t a, int64_t b) { return effectiveCost(data, a) < effectiveCost(data, b); });
    // The winner is the best of every pass, so it may come from an earlier one; it leads either way.
    const int64_t winner = data.winner();
    std::vector<int64_t> out;
    out.reserve(complete.size() + 1);
    if (winner >= 0)
        out.push_back(winner);
    for (int64_t id : complete)
        if (id != winner)
            out.push_back(id);
    if (const int beam = data.params().beamSize; beam > 0 && out.size() > static_cast<size_t>(beam))
        out.resize(static_cast<size_t>(beam));
    return out;
}

} // namespace beamscope::ui::navigation
