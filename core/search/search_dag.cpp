#include "core/search/search_dag.h"

#include "core/util/halide_names.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace beamscope::search {

using namespace Halide;
using namespace Halide::Internal;

namespace {

// Regions and loop bounds are evaluated from a fixed array of (min, max) slots.
constexpr size_t kMaxRegionDims = 16;
constexpr size_t kMaxLoops = 32;

} // namespace

SearchDag::SearchDag(const dag::FunctionDAG &d) : m_dag(d), m_constancy(d)
{
    const size_t nodes = d.nodes.size();
    m_computedMin.resize(nodes);
    m_computedMax.resize(nodes);
    m_loopMin.resize(nodes);
    m_loopMax.resize(nodes);
    m_loopDim.resize(nodes);
    m_storeJacobian.resize(nodes);
    m_vectorSize.resize(nodes, 1);
    m_stageSlot.resize(nodes);
    m_consumers.resize(nodes);

    for (const dag::Node &n : d.nodes) {
        const size_t ni = static_cast<size_t>(n.id);
        std::map<std::string, int> slots;
        for (size_t i = 0; i < n.regionRequired.size(); i++) {
            slots[n.regionRequired[i].min.name()] = static_cast<int>(2 * i);
            slots[n.regionRequired[i].max.name()] = static_cast<int>(2 * i + 1);
        }
        for (const Interval &in : n.regionComputed) {
            m_computedMin[ni].emplace_back(in.min, slots);
            m_computedMax[ni].emplace_back(in.max, slots);
        }
        int widest = 1;
        for (const Type &t : n.func.output_types())
            widest = std::max(widest, t.bytes());
        m_vectorSize[ni] = std::max(1, 16 / widest);
        const std::vector<std::string> args = n.func.args();
        for (const dag::Stage &s : n.stages) {
            std::vector<CompiledExpr> mins, maxs;
            std::vector<int> dims;
            for (const dag::Loop &l : s.loop) {
                mins.emplace_back(l.min, slots);
                maxs.emplace_back(l.max, slots);
                int dim = -1;
                if (!l.rvar)
                    for (size_t a = 0; a < args.size(); a++)
                        if (args[a] == l.var)
                            dim = static_cast<int>(a);
                dims.push_back(dim);
            }
            // Store Jacobian: Halide's, from the DAG's featurizer (args.size() rows, a row of
            // unknowns where a Func has more args than its definition writes, which Halide 14 rejects).
            std::vector<std::vector<dag::JacobianEntry>> store(args.size(),
                                                               std::vector<dag::JacobianEntry>(s.loop.size()));
            for (size_t a = 0; a < s.storeJacobian.size() && a < args.size(); a++)
                for (size_t j = 0; j < s.storeJacobian[a].size() && j < s.loop.size(); j++)
                    store[a][j] = s.storeJacobian[a][j];
            m_loopMin[ni].push_back(std::move(mins));
            m_loopMax[ni].push_back(std::move(maxs));
            m_loopDim[ni].push_back(std::move(dims));
            m_storeJacobian[ni].push_back(std::move(store));
            m_stageSlot[ni].push_back(-1);
        }
        if (!n.isInput)
            m_scheduleOrder.push_back(n.id);
    }

    for (const dag::Edge &e : d.edges) {
        const dag::Node &consumer = d.nodes[static_cast<size_t>(e.consumerNode)];
        const dag::Stage &stage = consumer.stages[static_cast<size_t>(e.consumerStage)];
        std::map<std::string, int> slots;
        for (size_t i = 0; i < stage.loop.size(); i++) {
            slots[consumer.name + "." + stage.loop[i].var + ".min"] = static_cast<int>(2 * i);
            slots[consumer.name + "." + stage.loop[i].var + ".max"] = static_cast<int>(2 * i + 1);
        }
        std::vector<CompiledExpr> mins, maxs;
        for (const auto &[mn, mx] : e.bounds) {
            mins.emplace_back(mn, slots);
            maxs.emplace_back(mx, slots);
        }
        m_edgeMin.push_back(std::move(mins));
        m_edgeMax.push_back(std::move(maxs));
        auto &cons = m_consumers[static_cast<size_t>(e.producer)];
        if (std::find(cons.begin(), cons.end(), e.consumerNode) == cons.end())
            cons.push_back(e.consumerNode);
    }

    // What each stage reads, directly or through other Funcs (Halide's Stage::downstream_of).
    // A producer always comes after its consumers in node order, so one backward sweep
    // sees every producer's set complete before its consumers need it.
    std::vector<std::vector<char>> nodeReads(nodes, std::vector<char>(nodes, 0));
    m_stageReads.resize(nodes);
    for (size_t ni = nodes; ni-- > 0;) {
        for (const dag::Stage &s : d.nodes[ni].stages) {
            std::vector<char> reads(nodes, 0);
            for (int e : s.incomingEdges) {
                const size_t p = static_cast<size_t>(d.edges[static_cast<size_t>(e)].producer);
                reads[p] = 1;
                for (size_t q = 0; q < nodes; q++)
                    reads[q] |= nodeReads[p][q];
            }
            for (size_t q = 0; q < nodes; q++)
                nodeReads[ni][q] |= reads[q];
            m_stageReads[ni].push_back(std::move(reads));
        }
    }
    m_nodeReads = std::move(nodeReads);

    m_costStages = d.costModelStages();
    for (size_t i = 0; i < m_costStages.size(); i++) {
        const dag::StageRef &r = m_costStages[i];
        m_stageSlot[static_cast<size_t>(r.node)][static_cast<size_t>(r.stage)] = static_cast<int>(i);
        const dag::PipelineFeatures &pf = d.stage(r).features;
        for (int row = 0; row < dag::kFeatureRows; row++)
            for (int t = 0; t < dag::kScalarTypeCount; t++)
                m_pipelineFeatures.push_back(
                    static_cast<float>(pf.matrix[static_cast<size_t>(row)][static_cast<size_t>(t)]));
    }

    // Dump names: the k-th Func of a base name, in this process's making order, as a fresh process
    // names it.
    std::map<std::string, std::vector<std::pair<int64_t, int>>> byBase; // base -> (suffix number, node)
    for (const dag::Node &n : d.nodes)
        byBase[baseFuncName(n.name)].emplace_back(uniqueSuffixNumber(n.name), n.id);
    m_dumpNames.resize(nodes);
    for (auto &[base, group] : byBase) {
        std::sort(group.begin(), group.end());
        for (size_t k = 0; k < group.size(); k++)
            m_dumpNames[static_cast<size_t>(group[k].second)] = k == 0 ? base : base + "$" + std::to_string(k);
    }

    // Root regions, consumers before producers (node order).
    m_rootRequired.resize(nodes);
    m_rootComputed.resize(nodes);
    m_rootLoops.resize(nodes);
    for (const dag::Node &n : d.nodes) {
        const size_t ni = static_cast<size_t>(n.id);
        if (n.isOutput)
            m_rootRequired[ni] = n.estimatedRegion;
        if (m_rootRequired[ni].empty() && n.func.dimensions() > 0)
            m_rootRequired[ni].assign(static_cast<size_t>(n.func.dimensions()), Span{0, 0});
        m_rootComputed[ni] = requiredToComputed(n.id, m_rootRequired[ni]);
        for (const dag::Stage &s : n.stages) {
            m_rootLoops[ni].push_back(loopBounds(n.id, s.index, m_rootComputed[ni]));
            for (int e : s.incomingEdges) {
                const Region fp = producerRegion(e, m_rootLoops[ni].back());
                Region &p = m_rootRequired[static_cast<size_t>(d.edges[static_cast<size_t>(e)].producer)];
                if (p.empty())
                    p = fp;
                else
                    for (size_t k = 0; k < p.size(); k++)
                        p[k].unionWith(fp[k]);
            }
        }
    }
}

void SearchDag::replacePipelineFeatures(std::vector<float> features)
{
    if (features.size() != m_pipelineFeatures.size())
        throw std::invalid_argument("replacePipelineFeatures: " + std::to_string(features.size()) + " values for the " +
                                    std::to_string(m_pipelineFeatures.size()) + " of " +
                                    std::to_string(m_costStages.size()) + " stages");
    m_pipelineFeatures = std::move(features);
}

std::span<const int64_t> SearchDag::regionSlots(int node, const Region &region, const char *table,
                                                std::span<int64_t> slots) const
{
    // Compiled bounds read one (min, max) slot pair per dimension of the Func.
    const size_t dims = region.size(), expected = m_dag.nodes[nodeAt(node, table)].regionRequired.size();
    if (dims != expected)
        badRegion(table, node, dims, expected, "dimensions");
    if (2 * dims > slots.size())
        badRegion(table, node, dims, slots.size() / 2, "dimensions at most");
    for (size_t i = 0; i < dims; i++) {
        slots[2 * i] = region[i].min;
        slots[2 * i + 1] = region[i].max;
    }
    return slots.first(2 * dims);
}

Region SearchDag::requiredToComputed(int node, const Region &required) const
{
    int64_t values[2 * kMaxRegionDims];
    const std::span<const int64_t> v = regionSlots(node, required, "requiredToComputed", values);
    const size_t ni = static_cast<size_t>(node);
    Region out(m_computedMin[ni].size());
    for (size_t i = 0; i < out.size(); i++)
        out[i] = Span{m_computedMin[ni][i].evaluate(v), m_computedMax[ni][i].evaluate(v)};
    return out;
}

Region SearchDag::loopBounds(int node, int stage, const Region &computed) const
{
    // Loop bounds are in terms of the region computed.
    int64_t values[2 * kMaxRegionDims];
    const std::span<const int64_t> v = regionSlots(node, computed, "loopBounds", values);
    const size_t ni = static_cast<size_t>(node), si = stageAt(node, stage, "loopBounds");
    Region out(m_loopMin[ni][si].size());
    for (size_t i = 0; i < out.size(); i++)
        out[i] = Span{m_loopMin[ni][si][i].evaluate(v), m_loopMax[ni][si][i].evaluate(v)};
    return out;
}

Region SearchDag::producerRegion(int edge, const Region &loops) const
{
    const size_t ei = edgeAt(edge, "producerRegion");
    // The edge's bounds are in terms of the consumer stage's loops, one slot pair per loop.
    const dag::Edge &e = m_dag.edges[ei];
    const size_t n = loops.size();
    const size_t consumerLoops =
        m_dag.nodes[static_cast<size_t>(e.consumerNode)].stages[static_cast<size_t>(e.consumerStage)].loop.size();
    if (n != consumerLoops)
        badRegion("producerRegion", e.consumerNode, n, consumerLoops, "loops (the consumer stage's)");
    if (n > kMaxLoops)
        badRegion("producerRegion", e.consumerNode, n, kMaxLoops, "loops at most");
    int64_t values[2 * kMaxLoops];
    for (size_t i = 0; i < n; i++) {
        values[2 * i] = loops[i].min;
        values[2 * i + 1] = loops[i].max;
    }
    const std::span<const int64_t> v(values, 2 * n);
    Region out(m_edgeMin[ei].size());
    for (size_t i = 0; i < out.size(); i++)
        out[i] = Span{m_edgeMin[ei][i].evaluate(v), m_edgeMax[ei][i].evaluate(v)};
    return out;
}

// The internal errors of the checked indexes: which table, which Func, which index.
void SearchDag::badNode(const char *table, int node) const
{
    throw std::logic_error(std::string("SearchDag::") + table + ": node " + std::to_string(node) +
                           " is out of range (the pipeline has " + std::to_string(nodeCount()) + " Funcs)");
}

void SearchDag::badStage(const char *table, int node, int stage) const
{
    const dag::Node &n = m_dag.nodes[nodeAt(node, table)];
    throw std::logic_error(std::string("SearchDag::") + table + ": Func \"" + n.name + "\" has " +
                           std::to_string(n.stages.size()) + " stages, no stage " + std::to_string(stage));
}

void SearchDag::badLoop(const char *table, int node, int stage, int loop) const
{
    const dag::Node &n = m_dag.nodes[nodeAt(node, table)];
    const size_t loops = n.stages[stageAt(node, stage, table)].loop.size();
    throw std::logic_error(std::string("SearchDag::") + table + ": Func \"" + n.name + "\" stage " +
                           std::to_string(stage) + " has " + std::to_string(loops) + " loops, no loop " +
                           std::to_string(loop) +
                           (n.func.dimensions() == 0 ? " (a zero-dimensional Func has none)" : ""));
}

void SearchDag::badEdge(const char *table, int edge) const
{
    throw std::logic_error(std::string("SearchDag::") + table + ": edge " + std::to_string(edge) +
                           " is out of range (the pipeline has " + std::to_string(m_dag.edges.size()) + " edges)");
}

void SearchDag::badRegion(const char *table, int node, size_t given, size_t expected, const char *what) const
{
    throw std::logic_error(std::string("SearchDag::") + table + ": Func \"" + m_dag.nodes[nodeAt(node, table)].name +
                           "\" was given " + std::to_string(given) + " spans, expected " + std::to_string(expected) +
                           " " + what);
}

} // namespace beamscope::search
