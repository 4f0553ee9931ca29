#include "core/dag/constant_extents.h"

namespace beamscope::dag {

namespace {

using namespace Halide;
using namespace Halide::Internal;

// Whether one bound of an edge gives a constant extent, given the consumer stage's loops' flags:
// Halide's BoundInfo takes a bound as affine when it is a number, or "v", "v * c", "v + c" or
// "v * c1 + c2" for a consumer loop's min or max v; any other form evaluates to no constant.
bool boundIsConstant(const Expr &bound, bool usesEstimate, const Node &consumer, const Stage &stage,
                     const std::vector<bool> &consumerLoopsConstant)
{
    if (usesEstimate)
        return false;
    if (is_const(bound))
        return true;
    const Add *add = bound.as<Add>();
    const Mul *mul = add ? add->a.as<Mul>() : bound.as<Mul>();
    if ((add && !is_const(add->b)) || (mul && !is_const(mul->b)))
        return false;
    const Expr v = mul ? mul->a : add ? add->a : bound;
    const Variable *var = v.as<Variable>();
    if (!var)
        return false;
    for (size_t i = 0; i < stage.loop.size(); i++) {
        const std::string prefix = consumer.name + "." + stage.loop[i].var;
        if (var->name == prefix + ".min" || var->name == prefix + ".max")
            return consumerLoopsConstant[i];
    }
    return false;
}

bool isVariable(const Expr &e, const std::string &name)
{
    const Variable *v = e.as<Variable>();
    return v && v->name == name;
}

} // namespace

RootConstantExtents rootConstantExtents(const FunctionDAG &dag)
{
    RootConstantExtents out;
    const size_t nodes = dag.nodes.size();
    out.computed.resize(nodes);
    out.loops.resize(nodes);
    // The required region's flags, built up consumers first (node order): an output's from its
    // bounds, everything else's as the union (AND) of what its consumers ask; a Func nobody asks
    // for keeps Halide's empty span, which is constant.
    std::vector<std::vector<bool>> required(nodes);
    for (const Node &n : dag.nodes) {
        const size_t ni = static_cast<size_t>(n.id);
        const size_t dims = static_cast<size_t>(n.func.dimensions());
        if (n.isOutput && n.estimatedRegionIsBound.size() == dims)
            required[ni] = n.estimatedRegionIsBound;
        if (required[ni].empty())
            required[ni].assign(dims, true);

        std::vector<bool> &computed = out.computed[ni];
        computed.assign(dims, false);
        for (size_t j = 0; j < dims && j < n.regionComputed.size(); j++)
            computed[j] = isVariable(n.regionComputed[j].min, n.regionRequired[j].min.name()) &&
                          isVariable(n.regionComputed[j].max, n.regionRequired[j].max.name()) && required[ni][j];

        for (const Stage &s : n.stages) {
            std::vector<bool> loops(s.loop.size(), false);
            for (size_t i = 0; i < s.loop.size(); i++) {
                const Loop &l = s.loop[i];
                if (is_const(l.min) && is_const(l.max)) {
                    loops[i] = true;
                    continue;
                }
                for (size_t j = 0; j < dims; j++)
                    if (isVariable(l.min, n.regionRequired[j].min.name()) &&
                        isVariable(l.max, n.regionRequired[j].max.name()))
                        loops[i] = computed[j];
            }
            for (int e : s.incomingEdges) {
                const Edge &edge = dag.edges[static_cast<size_t>(e)];
                std::vector<bool> &p = required[static_cast<size_t>(edge.producer)];
                const size_t pd = edge.bounds.size();
                if (p.empty())
                    p.assign(pd, true);
                for (size_t d = 0; d < pd && d < p.size(); d++) {
                    const auto [minUsesEstimate, maxUsesEstimate] =
                        d < edge.boundsUseEstimates.size() ? edge.boundsUseEstimates[d] : std::pair(true, true);
                    p[d] = p[d] && boundIsConstant(edge.bounds[d].first, minUsesEstimate, n, s, loops) &&
                           boundIsConstant(edge.bounds[d].second, maxUsesEstimate, n, s, loops);
                }
            }
            out.loops[ni].push_back(std::move(loops));
        }
    }
    return out;
}

} // namespace beamscope::dag
