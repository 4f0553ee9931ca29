#include "core/dag/function_dag.h"

#include "core/dag/featurizer.h"
#include "core/dag/realization_order.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

// libHalide exports this (RegionCosts.cpp) but Halide.h does not declare it; Anderson2021 asks it
// which Funcs to always consider inlining, and Beamscope asks the same library rather than
// re-deriving Halide's expression costs.
namespace Halide::Internal {
bool is_func_trivial_to_inline(const Function &func);
}

namespace beamscope::dag {

using namespace Halide;
using namespace Halide::Internal;

void Span::unionWith(const Span &other)
{
    if (other.max < other.min)
        return;
    if (max < min) {
        *this = other;
        return;
    }
    min = std::min(min, other.min);
    max = std::max(max, other.max);
}

namespace {

// Replaces parameters by their estimates, so bounds become numbers; a
// parameter without an estimate is an error naming it.
class ApplyParamEstimates : public IRMutator {
    using IRMutator::visit;

    Expr visit(const Variable *op) override
    {
        if (!op->param.defined())
            return op;
        Expr e;
        if (!op->param.is_buffer()) {
            e = op->param.estimate();
            if (!e.defined())
                throw DagError("parameter \"" + op->param.name() + "\" has no estimate (set_estimate)");
            return e;
        }
        for (int i = 0; i < op->param.dimensions(); i++) {
            if (op->name == op->param.name() + ".min." + std::to_string(i))
                e = op->param.min_constraint_estimate(i);
            else if (op->name == op->param.name() + ".extent." + std::to_string(i))
                e = op->param.extent_constraint_estimate(i);
            if (!e.defined() && (op->name == op->param.name() + ".min." + std::to_string(i) ||
                                 op->name == op->param.name() + ".extent." + std::to_string(i)))
                throw DagError("input \"" + op->param.name() + "\" has no estimate on dimension " + std::to_string(i) +
                               " (set_estimates)");
        }
        if (!e.defined())
            throw DagError("no estimate for \"" + op->name + "\" of input \"" + op->param.name() +
                           "\" (set_estimates)");
        return e;
    }
};

int64_t evaluate(const Expr &e, const std::map<std::string, Expr> &values, const char *what)
{
    const Expr v = simplify(substitute(values, e));
    const int64_t *i = as_const_int(v);
    if (!i) {
        std::ostringstream s;
        s << what << " is not constant: " << e << " -> " << v << " (set estimates on every output and input)";
        throw DagError(s.str());
    }
    return *i;
}

} // namespace

FunctionDAG::FunctionDAG(const std::vector<Func> &outputFuncs)
{
    std::vector<Function> outputs;
    for (const Func &f : outputFuncs)
        outputs.push_back(f.function());
    if (outputs.empty())
        throw DagError("the pipeline has no outputs");
    std::map<std::string, Function> env = build_environment(outputs);
    const std::vector<std::string> order = realizationOrder(outputs, env);

    // Outputs-first node order: the reverse of the realization order.
    nodes.resize(order.size());
    std::map<std::string, int> nodeIds;
    for (size_t i = 0; i < order.size(); i++) {
        Node &n = nodes[i];
        n.func = env.at(order[order.size() - 1 - i]);
        n.name = n.func.name();
        n.id = static_cast<int>(i);
        nodeIds[n.name] = n.id;
    }

    ApplyParamEstimates applyEstimates;
    // The value bounds of Funcs read through clamps of parameters are numbers at the estimates, as
    // Halide's FunctionDAG takes them: a region bound through them is a constant, not one that
    // depends on an estimate (constant_extents.h).
    FuncValueBounds funcValueBounds = compute_function_value_bounds(order, env);
    for (auto &[func, bounds] : funcValueBounds) {
        if (bounds.has_lower_bound())
            bounds.min = simplify(applyEstimates.mutate(bounds.min));
        if (bounds.has_upper_bound())
            bounds.max = simplify(applyEstimates.mutate(bounds.max));
    }

    for (Node &node : nodes) {
        const Function &func = node.func;
        if (func.has_extern_definition())
            throw DagError("Func \"" + node.name + "\" is an extern stage, which the featurizer does not support");
        Scope<Interval> scope;
        for (int j = 0; j < func.dimensions(); j++) {
            Var minVar(node.name + "." + func.args()[j] + ".min");
            Var maxVar(node.name + "." + func.args()[j] + ".max");
            scope.push(func.args()[j], Interval(minVar, maxVar));
            node.regionRequired.push_back(SymbolicInterval{minVar, maxVar});
        }
        node.isOutput = std::any_of(outputs.begin(), outputs.end(), [&](const Function &o) { return o.same_as(func); });
        node.isPointwise = !func.has_update_definition();
        node.isWrapper = func.is_wrapper() != nullptr;
        node.trivialToInline = is_func_trivial_to_inline(func);

        if (node.isOutput) {
            std::map<std::string, Span> estimates;
            std::set<std::string> bound; // a true bound, not an estimate: a constant extent
            for (const Bound &b : func.schedule().estimates()) {
                const int64_t *mn = as_const_int(b.min);
                const int64_t *ex = as_const_int(b.extent);
                if (mn && ex)
                    estimates[b.var] = Span{*mn, *mn + *ex - 1};
            }
            for (const Bound &b : func.schedule().bounds()) {
                const int64_t *mn = as_const_int(b.min);
                const int64_t *ex = as_const_int(b.extent);
                if (mn && ex) {
                    estimates[b.var] = Span{*mn, *mn + *ex - 1};
                    bound.insert(b.var);
                }
            }
            for (int j = 0; j < func.dimensions(); j++) {
                auto it = estimates.find(func.args()[j]);
                if (it == estimates.end())
                    throw DagError("output Func \"" + node.name + "\" has no estimate on dimension " +
                                   std::to_string(j) + " (" + func.args()[j] +
                                   "); call set_estimate / set_estimates on it");
                node.estimatedRegion.push_back(it->second);
                node.estimatedRegionIsBound.push_back(bound.count(func.args()[j]) > 0);
            }
        }

        const int stageCount = 1 + static_cast<int>(func.updates().size());
        bool anyIncoming = false;
        for (int s = 0; s < stageCount; s++) {
            node.stages.emplace_back();
            Stage &stage = node.stages.back();
            stage.index = s;
            stage.name = node.name + "_s" + std::to_string(s);
            const Definition &def = s == 0 ? func.definition() : func.update(s - 1);
            const StageSchedule &sched = def.schedule();
            if (!sched.splits().empty())
                // An autoscheduler schedules Funcs that have no schedule yet (Halide's refuses them too).
                throw DagError("Func \"" + node.name +
                               "\" is already scheduled (it has splits): an autoscheduler "
                               "schedules Funcs without a schedule; skip the generator's own schedule when it is "
                               "autoscheduled (run it with auto_schedule=true and guard its schedule() with "
                               "if (!auto_schedule)), or remove the Func's scheduling directives");

            Scope<Interval> concrete, symbolic;
            concrete.set_containing_scope(&scope);
            symbolic.set_containing_scope(&scope);
            for (const ReductionVariable &rv : sched.rvars()) {
                concrete.push(rv.var, Interval(simplify(applyEstimates.mutate(rv.min)),
                                               simplify(applyEstimates.mutate(rv.min + rv.extent - 1))));
                symbolic.push(rv.var, Interval(Variable::make(Int(32), node.name + "." + rv.var + ".min"),
                                               Variable::make(Int(32), node.name + "." + rv.var + ".max")));
            }

            if (s == 0)
                node.regionComputed.resize(static_cast<size_t>(func.dimensions()));
            for (int j = 0; j < func.dimensions(); j++) {
                Interval in = bounds_of_expr_in_scope(def.args()[j], concrete, funcValueBounds);
                if (!in.is_bounded())
                    throw DagError("the region computed of Func \"" + node.name + "\" is unbounded in dimension " +
                                   std::to_string(j) + " (set estimates on every output and input)");
                if (s == 0)
                    node.regionComputed[j] = in;
                else
                    node.regionComputed[j].include(in);
            }
            if (s == stageCount - 1) {
                for (Interval &in : node.regionComputed) {
                    in.min = simplify(applyEstimates.mutate(in.min));
                    in.max = simplify(applyEstimates.mutate(in.max));
                }
            }

            for (const Dim &d : sched.dims()) {
                if (!symbolic.contains(d.var))
                    continue; // synthetic loops such as __outermost
                const Interval in = concrete.get(d.var);
                Loop l;
                l.var = d.var;
                l.min = in.min;
                l.max = in.max;
                l.pure = d.is_pure();
                l.rvar = d.is_rvar();
                stage.loop.push_back(l);
            }

            if (s == 0) {
                int bytes = 0;
                for (const Expr &v : def.values())
                    bytes += v.type().bytes();
                node.bytesPerPoint = bytes;
            }

            // Everything the definition reads, bundled into one expression.
            std::vector<Expr> all = def.args();
            all.insert(all.end(), def.values().begin(), def.values().end());
            if (def.predicate().defined())
                all.push_back(def.predicate());
            Expr bundle = Call::make(Int(32), "beamscope_bundle", all, Call::Extern);

            class CallCounter : public IRVisitor {
                using IRVisitor::visit;
                void visit(const Call *op) override
                {
                    calls[op->name]++;
                    IRVisitor::visit(op);
                    if (op->call_type == Call::Halide || op->call_type == Call::Image) {
                        bool same = op->args.size() == args.size();
                        for (size_t i = 0; same && i < op->args.size(); i++) {
                            const Variable *v = op->args[i].as<Variable>();
                            same = v && v->name == args[i];
                        }
                        pointwise = pointwise && same;
                    }
                }

            public:
                explicit CallCounter(std::vector<std::string> a) : args(std::move(a)) {}
                std::vector<std::string> args;
                std::map<std::string, int> calls;
                bool pointwise = true;
            } counter(func.args());
            bundle.accept(&counter);
            bundle = applyEstimates.mutate(bundle);

            const auto boxes = boxes_required(bundle, symbolic, funcValueBounds);
            for (const auto &[producerName, box] : boxes) {
                if (producerName == node.name || !env.count(producerName))
                    continue; // self-loads and direct image loads are not edges
                Edge edge;
                edge.producer = nodeIds.at(producerName);
                edge.consumerNode = node.id;
                edge.consumerStage = s;
                for (const Interval &in : box.bounds) {
                    if (!in.is_bounded())
                        throw DagError("the region of \"" + producerName + "\" needed by \"" + stage.name +
                                       "\" is unbounded (set estimates on every output and input)");
                    const Expr mn = applyEstimates.mutate(in.min), mx = applyEstimates.mutate(in.max);
                    edge.bounds.emplace_back(simplify(mn), simplify(mx));
                    // The mutator returns the same expression when it replaced nothing.
                    edge.boundsUseEstimates.emplace_back(!mn.same_as(in.min), !mx.same_as(in.max));
                }
                edge.calls = counter.calls[producerName];
                anyIncoming = true;
                node.isPointwise = node.isPointwise && counter.pointwise;
                edges.push_back(std::move(edge));
            }
        }
        node.isInput = !func.has_update_definition() && node.isWrapper && !anyIncoming;
    }

    for (size_t e = 0; e < edges.size(); e++) {
        nodes[static_cast<size_t>(edges[e].producer)].outgoingEdges.push_back(static_cast<int>(e));
        nodes[static_cast<size_t>(edges[e].consumerNode)]
            .stages[static_cast<size_t>(edges[e].consumerStage)]
            .incomingEdges.push_back(static_cast<int>(e));
    }
    for (Node &n : nodes)
        for (Stage &s : n.stages)
            s.node = &n;
    for (const Function &o : outputs)
        outputNodes.push_back(nodeIds.at(o.name()));
    featurize();
}

void FunctionDAG::featurize()
{
    for (size_t n = 0; n < nodes.size(); n++)
        for (size_t s = 0; s < nodes[n].stages.size(); s++)
            featurizeStage(*this, static_cast<int>(n), static_cast<int>(s));
}

const Stage &FunctionDAG::stage(const StageRef &ref) const
{
    if (ref.node < 0 || static_cast<size_t>(ref.node) >= nodes.size())
        throw std::logic_error("FunctionDAG::stage: node " + std::to_string(ref.node) +
                               " is out of range (the pipeline has " + std::to_string(nodes.size()) + " Funcs)");
    const Node &n = nodes[static_cast<size_t>(ref.node)];
    if (ref.stage < 0 || static_cast<size_t>(ref.stage) >= n.stages.size())
        throw std::logic_error("FunctionDAG::stage: Func \"" + n.name + "\" has " + std::to_string(n.stages.size()) +
                               " stages, no stage " + std::to_string(ref.stage));
    return n.stages[static_cast<size_t>(ref.stage)];
}

std::vector<StageRef> FunctionDAG::costModelStages() const
{
    std::vector<StageRef> out;
    for (const Node &n : nodes) {
        if (n.isInput)
            continue;
        for (int s = static_cast<int>(n.stages.size()) - 1; s >= 0; s--)
            out.push_back(StageRef{n.id, s});
    }
    return out;
}

std::vector<Span> FunctionDAG::requiredToComputed(int nodeIndex, const std::vector<Span> &required) const
{
    const Node &n = nodes.at(static_cast<size_t>(nodeIndex));
    std::map<std::string, Expr> values;
    for (size_t i = 0; i < n.regionRequired.size(); i++) {
        values[n.regionRequired[i].min.name()] = Expr(static_cast<int>(required.at(i).min));
        values[n.regionRequired[i].max.name()] = Expr(static_cast<int>(required.at(i).max));
    }
    std::vector<Span> computed;
    for (const Interval &in : n.regionComputed)
        computed.push_back(
            Span{evaluate(in.min, values, "region computed"), evaluate(in.max, values, "region computed")});
    return computed;
}

std::vector<Span> FunctionDAG::loopBounds(int nodeIndex, int stageIndex, const std::vector<Span> &computed) const
{
    const Node &n = nodes.at(static_cast<size_t>(nodeIndex));
    std::map<std::string, Expr> values;
    for (size_t i = 0; i < n.regionRequired.size(); i++) {
        values[n.regionRequired[i].min.name()] = Expr(static_cast<int>(computed.at(i).min));
        values[n.regionRequired[i].max.name()] = Expr(static_cast<int>(computed.at(i).max));
    }
    std::vector<Span> loops;
    for (const Loop &l : n.stages.at(static_cast<size_t>(stageIndex)).loop)
        loops.push_back(Span{evaluate(l.min, values, "loop bound"), evaluate(l.max, values, "loop bound")});
    return loops;
}

std::vector<Span> FunctionDAG::producerRegion(const Edge &edge, const std::vector<Span> &consumerLoop) const
{
    const Node &consumer = nodes.at(static_cast<size_t>(edge.consumerNode));
    const Stage &stage = consumer.stages.at(static_cast<size_t>(edge.consumerStage));
    std::map<std::string, Expr> values;
    for (size_t i = 0; i < stage.loop.size(); i++) {
        values[consumer.name + "." + stage.loop[i].var + ".min"] = Expr(static_cast<int>(consumerLoop.at(i).min));
        values[consumer.name + "." + stage.loop[i].var + ".max"] = Expr(static_cast<int>(consumerLoop.at(i).max));
    }
    std::vector<Span> region;
    for (const auto &[mn, mx] : edge.bounds)
        region.push_back(Span{evaluate(mn, values, "footprint"), evaluate(mx, values, "footprint")});
    return region;
}

std::vector<std::vector<Span>> FunctionDAG::estimatedRegionsRequired() const
{
    std::vector<std::vector<Span>> regions;
    for (int id : outputNodes)
        regions.push_back(nodes[static_cast<size_t>(id)].estimatedRegion);
    return regionsRequired(regions);
}

std::vector<std::vector<Span>> FunctionDAG::regionsRequired(const std::vector<std::vector<Span>> &outputRegions) const
{
    if (outputRegions.size() != outputNodes.size())
        throw DagError("regionsRequired: " + std::to_string(outputRegions.size()) + " regions for " +
                       std::to_string(outputNodes.size()) + " outputs");
    std::vector<std::vector<Span>> required(nodes.size());
    for (size_t o = 0; o < outputNodes.size(); o++)
        required[static_cast<size_t>(outputNodes[o])] = outputRegions[o];
    for (const Node &n : nodes) {
        std::vector<Span> &req = required[static_cast<size_t>(n.id)];
        if (req.empty() && n.func.dimensions() > 0)
            continue; // not needed by anything
        const std::vector<Span> computed = requiredToComputed(n.id, req);
        for (const Stage &s : n.stages) {
            const std::vector<Span> loops = loopBounds(n.id, s.index, computed);
            for (int e : s.incomingEdges) {
                const Edge &edge = edges[static_cast<size_t>(e)];
                const std::vector<Span> footprint = producerRegion(edge, loops);
                std::vector<Span> &p = required[static_cast<size_t>(edge.producer)];
                if (p.empty())
                    p = footprint;
                else
                    for (size_t d = 0; d < p.size(); d++)
                        p[d].unionWith(footprint[d]);
            }
        }
    }
    return required;
}

std::string FunctionDAG::dump() const
{
    std::ostringstream os;
    for (const Node &n : nodes) {
        os << "Node: " << n.name << "\n  Region computed:\n";
        for (const Interval &i : n.regionComputed)
            os << "    " << i.min << ", " << i.max << "\n";
        for (const Stage &s : n.stages) {
            os << "  Stage " << s.index << " (" << s.name << "):\n";
            for (const Loop &l : s.loop)
                os << "    " << l.var << " " << l.min << " " << l.max << "\n";
        }
        os << "  pointwise: " << n.isPointwise << " wrapper: " << n.isWrapper << " input: " << n.isInput
           << " output: " << n.isOutput << "\n";
    }
    for (const Edge &e : edges) {
        os << "Edge: " << nodes[static_cast<size_t>(e.producer)].name << " -> "
           << nodes[static_cast<size_t>(e.consumerNode)].stages[static_cast<size_t>(e.consumerStage)].name
           << "\n  Footprint:\n";
        for (size_t d = 0; d < e.bounds.size(); d++)
            os << "    Min " << d << ": " << e.bounds[d].first << "\n    Max " << d << ": " << e.bounds[d].second
               << "\n";
        os << "  Load Jacobians:\n";
        for (const LoadJacobian &j : e.loadJacobians) {
            if (j.count > 1)
                os << "  " << j.count << " x\n";
            for (const auto &row : j.matrix) {
                os << "    [";
                for (const JacobianEntry &c : row) {
                    if (!c.known)
                        os << " _ ";
                    else if (c.denominator == 1)
                        os << " " << c.numerator << " ";
                    else
                        os << " " << c.numerator << "/" << c.denominator << " ";
                }
                os << "]\n";
            }
        }
    }
    return os.str();
}

} // namespace beamscope::dag
