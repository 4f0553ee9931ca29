#include "core/dag/constant_extents.h"

namespace beamscope::dag {

namespace {

using namespace Halide;
using namespace Halide::Internal;

// Where a bound's, a computed dimension's or a loop's flag comes from: never constant, always
// constant, or (0, 1, ...) the flag of that consumer loop / required dimension / computed dimension.
constexpr int kNever = -2, kAlways = -1;

// Halide's BoundInfo: a number, or an affine function of one consumer loop's min or max.
int boundSource(const Expr &bound, bool usesEstimate, const Node &consumer, const Stage &stage)
{
    if (usesEstimate)
        return kNever;
    if (is_const(bound))
        return kAlways;
    const Add *add = bound.as<Add>();
    const Mul *mul = add ? add->a.as<Mul>() : bound.as<Mul>();
    if ((add && !is_const(add->b)) || (mul && !is_const(mul->b)))
        return kNever;
    const Variable *var = (mul ? mul->a : add ? add->a : bound).as<Variable>();
    if (!var)
        return kNever;
    for (size_t i = 0; i < stage.loop.size(); i++) {
        const std::string prefix = consumer.name + "." + stage.loop[i].var;
        if (var->name == prefix + ".min" || var->name == prefix + ".max")
            return static_cast<int>(i);
    }
    return kNever;
}

bool isVariable(const Expr &e, const std::string &name)
{
    const Variable *v = e.as<Variable>();
    return v && v->name == name;
}

bool flagOf(int source, const ExtentFlags &flags)
{
    return source == kAlways || (source >= 0 && static_cast<size_t>(source) < flags.size() && flags[source]);
}

} // namespace

ExtentConstancy::ExtentConstancy(const FunctionDAG &dag)
{
    for (const Edge &e : dag.edges) {
        const Node &consumer = dag.nodes[static_cast<size_t>(e.consumerNode)];
        const Stage &stage = consumer.stages[static_cast<size_t>(e.consumerStage)];
        std::vector<std::pair<int, int>> dims;
        for (size_t d = 0; d < e.bounds.size(); d++) {
            const auto [minUsesEstimate, maxUsesEstimate] =
                d < e.boundsUseEstimates.size() ? e.boundsUseEstimates[d] : std::pair(true, true);
            dims.emplace_back(boundSource(e.bounds[d].first, minUsesEstimate, consumer, stage),
                              boundSource(e.bounds[d].second, maxUsesEstimate, consumer, stage));
        }
        m_edgeBounds.push_back(std::move(dims));
    }
    for (const Node &n : dag.nodes) {
        std::vector<bool> equals;
        for (size_t j = 0; j < n.regionComputed.size() && j < n.regionRequired.size(); j++)
            equals.push_back(isVariable(n.regionComputed[j].min, n.regionRequired[j].min.name()) &&
                             isVariable(n.regionComputed[j].max, n.regionRequired[j].max.name()));
        m_computedEqualsRequired.push_back(std::move(equals));
        std::vector<std::vector<int>> stages;
        for (const Stage &s : n.stages) {
            std::vector<int> loops;
            for (const Loop &l : s.loop) {
                int source = is_const(l.min) && is_const(l.max) ? kAlways : kNever;
                for (size_t j = 0; j < n.regionRequired.size() && source == kNever; j++)
                    if (isVariable(l.min, n.regionRequired[j].min.name()) &&
                        isVariable(l.max, n.regionRequired[j].max.name()))
                        source = static_cast<int>(j);
                loops.push_back(source);
            }
            stages.push_back(std::move(loops));
        }
        m_loopSource.push_back(std::move(stages));
    }

    // At root, consumers before producers (node order): an output's flags from its bounds, every
    // other Func's the union of what its consumers ask.
    const size_t nodes = dag.nodes.size();
    std::vector<ExtentFlags> required(nodes);
    m_rootComputed.resize(nodes);
    m_rootLoops.resize(nodes);
    for (const Node &n : dag.nodes) {
        const size_t ni = static_cast<size_t>(n.id);
        const size_t dims = static_cast<size_t>(n.func.dimensions());
        if (n.isOutput && n.estimatedRegionIsBound.size() == dims)
            required[ni] = n.estimatedRegionIsBound;
        if (required[ni].size() != dims)
            required[ni].assign(dims, true);
        m_rootComputed[ni] = computed(n.id, required[ni]);
        for (const Stage &s : n.stages) {
            m_rootLoops[ni].push_back(loops(n.id, s.index, m_rootComputed[ni]));
            for (int e : s.incomingEdges) {
                const ExtentFlags fp = footprint(e, m_rootLoops[ni].back());
                ExtentFlags &p = required[static_cast<size_t>(dag.edges[static_cast<size_t>(e)].producer)];
                if (p.empty())
                    p.assign(fp.size(), true);
                for (size_t d = 0; d < p.size() && d < fp.size(); d++)
                    p[d] = p[d] && fp[d];
            }
        }
    }
}

ExtentFlags ExtentConstancy::footprint(int edge, const ExtentFlags &consumerLoops) const
{
    ExtentFlags out;
    for (const auto &[minSource, maxSource] : m_edgeBounds[static_cast<size_t>(edge)])
        out.push_back(flagOf(minSource, consumerLoops) && flagOf(maxSource, consumerLoops));
    return out;
}

ExtentFlags ExtentConstancy::computed(int node, const ExtentFlags &required) const
{
    const std::vector<bool> &equals = m_computedEqualsRequired[static_cast<size_t>(node)];
    ExtentFlags out(equals.size(), false);
    for (size_t j = 0; j < equals.size() && j < required.size(); j++)
        out[j] = equals[j] && required[j];
    return out;
}

ExtentFlags ExtentConstancy::loops(int node, int stage, const ExtentFlags &computed) const
{
    ExtentFlags out;
    for (const int source : m_loopSource[static_cast<size_t>(node)][static_cast<size_t>(stage)])
        out.push_back(flagOf(source, computed));
    return out;
}

} // namespace beamscope::dag
