#include "core/search/expr_branching.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace beamscope::search {

using namespace Halide;
using namespace Halide::Internal;

namespace {

// A Func's pure values and store arguments after simplify + CSE, as Halide
// measures them. Computed once per Func per process: the search measures the
// same Funcs under many inlining choices. The entry holds the Function so its
// address cannot be reused by another Func while the cache lives.
struct Canonical {
    Function func;
    std::vector<Expr> values, args;
};

const Canonical &canonical(const Function &f)
{
    static std::mutex lock;
    static std::map<FunctionPtr, Canonical> cache;
    std::lock_guard<std::mutex> guard(lock);
    auto it = cache.find(f.get_contents());
    if (it != cache.end())
        return it->second;
    Canonical c;
    c.func = f;
    const Definition &def = f.definition();
    for (const Expr &v : def.values())
        c.values.push_back(common_subexpression_elimination(simplify(v)));
    for (const Expr &a : def.args())
        c.args.push_back(common_subexpression_elimination(simplify(a)));
    return cache.emplace(f.get_contents(), std::move(c)).first->second;
}

class Measure {
public:
    explicit Measure(const InlinedBranching &inlined) : m_inlined(inlined) {}

    int of(const Expr &e) const
    {
        switch (e->node_type) {
        case IRNodeType::IntImm:
        case IRNodeType::UIntImm:
        case IRNodeType::FloatImm:
        case IRNodeType::StringImm:
        case IRNodeType::Variable: return 1;
        case IRNodeType::Broadcast: return of(e.as<Broadcast>()->value);
        case IRNodeType::Cast: return of(e.as<Cast>()->value);
        case IRNodeType::Not: return of(e.as<Not>()->a);
        case IRNodeType::VectorReduce: return of(e.as<VectorReduce>()->value);
        case IRNodeType::Add: return binaryOf<Add>(e);
        case IRNodeType::Sub: return binaryOf<Sub>(e);
        case IRNodeType::Mod: return binaryOf<Mod>(e);
        case IRNodeType::Mul: return binaryOf<Mul>(e);
        case IRNodeType::Div: return binaryOf<Div>(e);
        case IRNodeType::Min: return binaryOf<Min>(e);
        case IRNodeType::Max: return binaryOf<Max>(e);
        case IRNodeType::EQ: return binaryOf<EQ>(e);
        case IRNodeType::NE: return binaryOf<NE>(e);
        case IRNodeType::LT: return binaryOf<LT>(e);
        case IRNodeType::LE: return binaryOf<LE>(e);
        case IRNodeType::GT: return binaryOf<GT>(e);
        case IRNodeType::GE: return binaryOf<GE>(e);
        case IRNodeType::And: return binaryOf<And>(e);
        case IRNodeType::Or: return binaryOf<Or>(e);
        case IRNodeType::Select: {
            const Select *s = e.as<Select>();
            return std::max(binary(s->condition, s->true_value), binary(s->condition, s->false_value));
        }
        case IRNodeType::Ramp: return binary(e.as<Ramp>()->base, e.as<Ramp>()->stride);
        case IRNodeType::Load: return binary(e.as<Load>()->predicate, e.as<Load>()->index);
        case IRNodeType::Let: return binary(e.as<Let>()->value, e.as<Let>()->body);
        case IRNodeType::Shuffle: return nary(e.as<Shuffle>()->vectors);
        case IRNodeType::Call: {
            const Call *c = e.as<Call>();
            int inlinedValue = 0;
            if (c->call_type == Call::Halide && m_inlined(c->name, inlinedValue))
                return inlinedValue;
            return nary(c->args);
        }
        default: return 1;
        }
    }

    // Equal operands need one more register; otherwise the larger one wins.
    int binary(const Expr &a, const Expr &b) const
    {
        const int ba = of(a), bb = of(b);
        return ba == bb ? ba + 1 : std::max(ba, bb);
    }

    int nary(const std::vector<Expr> &exprs) const
    {
        int total = 0;
        for (const Expr &e : exprs) {
            const int b = of(e);
            if (b == 0)
                continue;
            total = b == total ? total + 1 : std::max(total, b);
        }
        return total;
    }

private:
    template <typename T>
    int binaryOf(const Expr &e) const
    {
        const T *op = e.as<T>();
        return binary(op->a, op->b);
    }

    const InlinedBranching &m_inlined;
};

} // namespace

int exprBranching(const Function &func, const InlinedBranching &inlinedMeasure)
{
    const Canonical &c = canonical(func);
    const Measure m(inlinedMeasure);
    return std::max(m.nary(c.values), m.nary(c.args));
}

} // namespace beamscope::search
