#include "core/search/loop_nest_diff.h"
#include "core/search/dump_func_names.h"
#include "core/util/halide_names.h"

#include <vector>

namespace beamscope::search {

namespace {

std::string sizesText(const std::vector<LoopSize> &sizes)
{
    std::string out;
    for (const LoopSize &s : sizes)
        out += " " + std::to_string(s.value) + (s.vectorized ? "v" : "");
    return out;
}

} // namespace

FuncPlacements funcPlacements(const SearchDag &dag, const LoopNestText &dump)
{
    FuncPlacements result;
    if (!dump.ok()) {
        result.error = dump.error;
        return result;
    }
    const std::vector<NestEntry> &entries = dump.entries;
    const DumpFuncNames names(dag, entries);
    std::vector<int> nodeOf(entries.size(), -1);
    for (size_t i = 0; i < entries.size(); i++) {
        if (entries[i].kind == NestLineKind::Root)
            continue;
        const std::vector<int> candidates = names.candidates(entries[i].func);
        if (candidates.size() != 1) {
            result.error = "line " + std::to_string(entries[i].line) + ": '" + entries[i].func + "' names " +
                           std::to_string(candidates.size()) + " Funcs of the pipeline";
            return result;
        }
        nodeOf[i] = candidates.front();
    }
    // A stage's loops form a chain of one Func's Loop entries; a chain starts where the parent is
    // not a loop of the same Func, and a Func's chains come in stage order.
    std::vector<int> stageOf(entries.size(), 0);
    std::map<int, int> chainsSeen;
    auto isLoopOf = [&](int entry, int node) {
        return entry >= 0 && entries[static_cast<size_t>(entry)].kind == NestLineKind::Loop &&
               nodeOf[static_cast<size_t>(entry)] == node;
    };
    auto where = [&](int parent) -> std::string {
        const NestEntry &p = entries[static_cast<size_t>(parent)];
        if (p.kind != NestLineKind::Loop)
            return "root";
        return withoutUniqueSuffixes(dag.node(nodeOf[static_cast<size_t>(parent)]).name) + ".s" +
               std::to_string(stageOf[static_cast<size_t>(parent)]) + " " + p.label;
    };
    std::map<int, std::string> computed, stored;
    std::map<int, bool> inlined;
    for (size_t i = 0; i < entries.size(); i++) {
        const NestEntry &x = entries[i];
        const int node = nodeOf[i];
        if (x.kind == NestLineKind::Root)
            continue;
        if (x.kind == NestLineKind::Inlined) {
            inlined[node] = true;
        } else if (x.kind == NestLineKind::Realize) {
            stored[node] += (stored[node].empty() ? "" : ", ") + where(x.parent);
        } else if (isLoopOf(x.parent, node)) {
            stageOf[i] = stageOf[static_cast<size_t>(x.parent)];
            computed[node] += ", " + x.label + sizesText(x.sizes);
        } else {
            stageOf[i] = chainsSeen[node]++;
            computed[node] += std::string(computed[node].empty() ? "" : "; ") + "s" + std::to_string(stageOf[i]) +
                              " at " + where(x.parent) + ": " + x.label + sizesText(x.sizes) + " (" +
                              std::to_string(x.vectorLoop) + ", " + std::to_string(x.vectorDim) + ")";
        }
    }
    for (const auto &[node, text] : computed)
        result.byNode[node] = text + (stored.count(node) ? "; stored at " + stored[node] : "");
    for (const auto &[node, yes] : inlined)
        if (!computed.count(node))
            result.byNode[node] = "inline";
    return result;
}

FuncPlacementDifference firstDifferingFunc(const SearchDag &dag, const LoopNestText &first, const LoopNestText &second)
{
    FuncPlacementDifference d;
    const FuncPlacements a = funcPlacements(dag, first), b = funcPlacements(dag, second);
    if (!a.error.empty() || !b.error.empty()) {
        d.error = !a.error.empty() ? "first dump: " + a.error : "second dump: " + b.error;
        return d;
    }
    auto placement = [](const FuncPlacements &p, int node) {
        const auto it = p.byNode.find(node);
        return it == p.byNode.end() ? std::string("undecided") : it->second;
    };
    for (int node : dag.scheduleOrder()) {
        const std::string x = placement(a, node), y = placement(b, node);
        if (x != y) {
            d.node = node;
            d.func = withoutUniqueSuffixes(dag.node(node).name);
            d.first = x;
            d.second = y;
            return d;
        }
    }
    return d;
}

} // namespace beamscope::search
