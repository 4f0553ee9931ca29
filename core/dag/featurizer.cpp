#include "core/dag/featurizer.h"

#include <map>
#include <utility>

namespace beamscope::dag {

using namespace Halide;
using namespace Halide::Internal;

bool JacobianEntry::operator==(const JacobianEntry &o) const
{
    return known == o.known && numerator * o.denominator == denominator * o.numerator;
}

namespace {
// Halide's gcd (Util): a and b swapped so that a >= b, then Euclid.
int64_t halideGcd(int64_t a, int64_t b)
{
    if (a < b)
        std::swap(a, b);
    while (b != 0) {
        const int64_t t = b;
        b = a % b;
        a = t;
    }
    return a;
}
} // namespace

void addOptionalRational(int64_t &numerator, int64_t &denominator, int64_t otherNumerator, int64_t otherDenominator)
{
    if ((denominator & otherDenominator) == 0) {
        numerator = denominator = 0;
        return;
    }
    if (denominator == otherDenominator) {
        numerator += otherNumerator;
        return;
    }
    const int64_t l = denominator * otherDenominator / halideGcd(denominator, otherDenominator);
    numerator = numerator * (l / denominator) + otherNumerator * (l / otherDenominator);
    denominator = l;
    const int64_t g = halideGcd(numerator, denominator);
    if (g != 0) {
        numerator /= g;
        denominator /= g;
    }
}

namespace {

ScalarType classify(Type t)
{
    if (t.is_float())
        return t.bits() > 32 ? ScalarType::Double : ScalarType::Float;
    if (t.bits() == 1)
        return ScalarType::Bool;
    if (t.bits() <= 8)
        return ScalarType::UInt8;
    if (t.bits() <= 16)
        return ScalarType::UInt16;
    if (t.bits() <= 32)
        return ScalarType::UInt32;
    return ScalarType::UInt64;
}

JacobianEntry known(int64_t n, int64_t d) { return JacobianEntry{true, n, d}; }

void addInto(JacobianEntry &a, const JacobianEntry &b)
{
    int64_t n = a.known ? a.numerator : 0, d = a.known ? a.denominator : 0;
    addOptionalRational(n, d, b.known ? b.numerator : 0, b.known ? b.denominator : 0);
    a = d == 0 ? JacobianEntry{} : JacobianEntry{true, n, d};
}

class Featurizer : public IRVisitor {
public:
    Featurizer(FunctionDAG &dag, Node &node, Stage &stage) : m_dag(dag), m_node(node), m_stage(stage) {}

    void visitStore(Type t, std::vector<Expr> args)
    {
        for (Expr &e : args)
            e = common_subexpression_elimination(simplify(e));
        memoryAccess(m_node.name, t, args, AccessType::Store);
    }

private:
    using IRVisitor::visit;

    int &bucket(OpType op, Type t)
    {
        const ScalarType s = classify(t);
        m_stage.features.typesInUse[static_cast<int>(s)] = 1;
        return m_stage.features.op(op, s);
    }

    void visit(const Variable *op) override
    {
        bucket(op->param.defined() ? OpType::Param : OpType::Variable, op->type)++;
    }
    void visit(const IntImm *op) override { bucket(OpType::Const, op->type)++; }
    void visit(const UIntImm *op) override { bucket(OpType::Const, op->type)++; }
    void visit(const FloatImm *op) override { bucket(OpType::Const, op->type)++; }
    // Casts are deliberately not counted: Halide's featurizer has no Cast case,
    // so the Cast row is always zero in the features the model was trained on.
    void visit(const Add *op) override { count(OpType::Add, op); }
    void visit(const Sub *op) override { count(OpType::Sub, op); }
    void visit(const Mul *op) override { count(OpType::Mul, op); }
    void visit(const Mod *op) override { count(OpType::Mod, op); }
    void visit(const Div *op) override { count(OpType::Div, op); }
    void visit(const Min *op) override { count(OpType::Min, op); }
    void visit(const Max *op) override { count(OpType::Max, op); }
    void visit(const EQ *op) override { count(OpType::EQ, op); }
    void visit(const NE *op) override { count(OpType::NE, op); }
    void visit(const LT *op) override { count(OpType::LT, op); }
    void visit(const LE *op) override { count(OpType::LE, op); }
    void visit(const GT *op) override { count(OpType::LT, op); } // a flipped LT
    void visit(const GE *op) override { count(OpType::LE, op); }
    void visit(const And *op) override { count(OpType::And, op); }
    void visit(const Or *op) override { count(OpType::Or, op); }
    void visit(const Not *op) override { count(OpType::Not, op); }
    void visit(const Select *op) override { count(OpType::Select, op); }

    void visit(const Let *op) override
    {
        ScopedBinding<Expr> bind(m_lets, op->name, op->value);
        count(OpType::Let, op);
    }

    void visit(const Call *op) override
    {
        IRVisitor::visit(op);
        if (op->call_type == Call::Halide) {
            const bool self = op->name == m_node.name;
            memoryAccess(op->name, op->type, op->args, self ? AccessType::LoadSelf : AccessType::LoadFunc);
            bucket(self ? OpType::SelfCall : OpType::FuncCall, op->type)++;
        } else if (op->call_type == Call::Extern || op->call_type == Call::PureExtern ||
                   op->call_type == Call::Intrinsic || op->call_type == Call::PureIntrinsic) {
            bucket(OpType::ExternCall, op->type)++;
        } else if (op->call_type == Call::Image) {
            memoryAccess(op->name, op->type, op->args, AccessType::LoadImage);
            bucket(OpType::ImageCall, op->type)++;
        }
    }

    template <typename T>
    void count(OpType type, const T *op)
    {
        bucket(type, op->type)++;
        IRVisitor::visit(op);
    }

    bool isLoopVar(const std::string &name) const
    {
        for (const Loop &l : m_stage.loop)
            if (l.var == name)
                return true;
        return false;
    }

    // d(e)/d(v) when it is a rational constant; unknown otherwise.
    JacobianEntry differentiate(const Expr &e, const std::string &v)
    {
        if (!expr_uses_var(e, v, m_lets))
            return known(0, 1);
        if (const Variable *var = e.as<Variable>()) {
            if (var->name == v)
                return known(1, 1);
            if (isLoopVar(var->name) || var->param.defined())
                return known(0, 1);
            if (m_lets.contains(var->name)) {
                // Cached for the life of the stage, as Halide does.
                const std::string key = v + " " + var->name;
                auto it = m_letDerivatives.find(key);
                if (it != m_letDerivatives.end())
                    return it->second;
                JacobianEntry d = differentiate(m_lets.get(var->name), v);
                m_letDerivatives.emplace(key, d);
                return d;
            }
            return {};
        }
        if (const Add *op = e.as<Add>()) {
            JacobianEntry a = differentiate(op->a, v);
            addInto(a, differentiate(op->b, v));
            return a;
        }
        if (const Sub *op = e.as<Sub>()) {
            JacobianEntry a = differentiate(op->a, v);
            JacobianEntry b = differentiate(op->b, v);
            b.numerator = -b.numerator;
            addInto(a, b);
            return a;
        }
        if (const Mul *op = e.as<Mul>()) {
            JacobianEntry a = differentiate(op->a, v);
            if (const int64_t *c = as_const_int(op->b)) {
                a.numerator *= *c;
                return a;
            }
            return {};
        }
        if (const Div *op = e.as<Div>()) {
            JacobianEntry a = differentiate(op->a, v);
            if (const int64_t *c = as_const_int(op->b)) {
                if (a.numerator != 0)
                    a.denominator *= *c;
                return a;
            }
            return {};
        }
        if (const Call *op = e.as<Call>()) {
            if (op->is_intrinsic(Call::likely))
                return differentiate(op->args[0], v);
        }
        return {};
    }

    void memoryAccess(const std::string &name, Type t, const std::vector<Expr> &args, AccessType access)
    {
        const size_t loops = m_stage.loop.size();
        std::vector<std::vector<JacobianEntry>> matrix(args.size(), std::vector<JacobianEntry>(loops));
        std::vector<size_t> onesRow(args.size()), zerosRow(args.size()), onesCol(loops), zerosCol(loops);
        bool pointwise = args.size() == loops;
        for (size_t i = 0; i < args.size(); i++) {
            for (size_t j = 0; j < loops; j++) {
                const JacobianEntry d = differentiate(args[i], m_stage.loop[j].var);
                zerosRow[i] += d.isZero();
                onesRow[i] += d.isOne();
                zerosCol[j] += d.isZero();
                onesCol[j] += d.isOne();
                pointwise = pointwise && (i == j ? d.isOne() : d.isZero());
                matrix[i][j] = d;
            }
        }
        bool transpose = args.size() == loops;
        bool broadcast = true, slice = true;
        for (size_t i = 0; i < args.size(); i++) {
            const bool singleOne = onesRow[i] == 1 && zerosRow[i] == loops - 1;
            const bool allZero = zerosRow[i] == loops;
            transpose = transpose && singleOne;
            broadcast = broadcast && singleOne;
            slice = slice && (singleOne || allZero);
        }
        for (size_t j = 0; j < loops; j++) {
            const bool singleOne = onesCol[j] == 1 && zerosCol[j] == args.size() - 1;
            const bool allZero = zerosCol[j] == args.size();
            transpose = transpose && (singleOne || allZero);
            broadcast = broadcast && singleOne;
            slice = slice && singleOne;
        }
        const ScalarType s = classify(t);
        PipelineFeatures &f = m_stage.features;
        f.access(AccessPattern::Pointwise, access, s) += pointwise;
        f.access(AccessPattern::Transpose, access, s) += transpose;
        f.access(AccessPattern::Broadcast, access, s) += broadcast;
        f.access(AccessPattern::Slice, access, s) += slice;

        if (access == AccessType::Store)
            m_stage.storeJacobian = matrix; // one per value of a Tuple, all alike
        for (int edgeIndex : m_stage.incomingEdges) {
            Edge &edge = m_dag.edges[static_cast<size_t>(edgeIndex)];
            if (m_dag.nodes[static_cast<size_t>(edge.producer)].name != name)
                continue;
            bool merged = false;
            for (LoadJacobian &j : edge.loadJacobians) {
                if (j.matrix == matrix) {
                    j.count++;
                    merged = true;
                    break;
                }
            }
            if (!merged)
                edge.loadJacobians.push_back(LoadJacobian{matrix, 1});
        }
    }

    FunctionDAG &m_dag;
    Node &m_node;
    Stage &m_stage;
    Scope<Expr> m_lets;
    std::map<std::string, JacobianEntry> m_letDerivatives;
};

} // namespace

void featurizeStage(FunctionDAG &dag, int nodeIndex, int stageIndex)
{
    Node &node = dag.nodes[static_cast<size_t>(nodeIndex)];
    Stage &stage = node.stages[static_cast<size_t>(stageIndex)];
    stage.features = PipelineFeatures{};
    Featurizer featurizer(dag, node, stage);
    const Definition def = stageIndex == 0 ? node.func.definition() : node.func.update(stageIndex - 1);
    for (Expr v : def.values()) {
        featurizer.visitStore(v.type(), def.args());
        v = common_subexpression_elimination(simplify(v));
        v.accept(&featurizer);
    }
    for (Expr a : def.args()) {
        a = common_subexpression_elimination(simplify(a));
        a.accept(&featurizer);
    }
}

} // namespace beamscope::dag
