#include "core/search/compiled_expr.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace beamscope::search {

using namespace Halide;
using namespace Halide::Internal;

namespace {

int64_t floorDiv(int64_t a, int64_t b)
{
    if (b == 0)
        return 0; // Halide defines x / 0 == 0
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

int64_t euclidMod(int64_t a, int64_t b)
{
    if (b == 0)
        return 0;
    int64_t r = a % b;
    if (r < 0)
        r += b < 0 ? -b : b;
    return r;
}

} // namespace

CompiledExpr::CompiledExpr(const Expr &e, const std::map<std::string, int> &slots)
{
    bool ok = true;
    m_root = compile(e, slots, ok);
    if (!ok) {
        m_nodes.clear();
        m_root = -1;
        m_expr = e;
        int count = 0;
        for (const auto &[name, slot] : slots)
            count = std::max(count, slot + 1);
        m_fallback.assign(static_cast<size_t>(count), std::string());
        for (const auto &[name, slot] : slots)
            m_fallback[static_cast<size_t>(slot)] = name;
        if (m_fallback.empty())
            m_fallback.push_back(std::string()); // marks "not compiled" even with no slots
    }
}

int CompiledExpr::compile(const Expr &e, const std::map<std::string, int> &slots, bool &ok)
{
    if (!ok || !e.defined()) {
        ok = false;
        return -1;
    }
    auto add = [&](Node n) {
        m_nodes.push_back(n);
        return static_cast<int>(m_nodes.size()) - 1;
    };
    auto binary = [&](Op op, const Expr &a, const Expr &b) {
        const int ia = compile(a, slots, ok);
        const int ib = compile(b, slots, ok);
        return add(Node{op, 0, ia, ib, -1});
    };
    if (const int64_t *i = as_const_int(e))
        return add(Node{Op::Const, *i, -1, -1, -1});
    if (const uint64_t *u = as_const_uint(e))
        return add(Node{Op::Const, static_cast<int64_t>(*u), -1, -1, -1});
    if (e.type().is_float()) {
        ok = false;
        return -1;
    }
    if (const Variable *v = e.as<Variable>()) {
        auto it = slots.find(v->name);
        if (it == slots.end()) {
            ok = false;
            return -1;
        }
        return add(Node{Op::Var, it->second, -1, -1, -1});
    }
    if (const Cast *c = e.as<Cast>()) {
        if (c->value.type().is_float()) {
            ok = false;
            return -1;
        }
        return compile(c->value, slots, ok);
    }
    if (const Add *o = e.as<Add>())
        return binary(Op::Add, o->a, o->b);
    if (const Sub *o = e.as<Sub>())
        return binary(Op::Sub, o->a, o->b);
    if (const Mul *o = e.as<Mul>())
        return binary(Op::Mul, o->a, o->b);
    if (const Div *o = e.as<Div>())
        return binary(Op::Div, o->a, o->b);
    if (const Mod *o = e.as<Mod>())
        return binary(Op::Mod, o->a, o->b);
    if (const Min *o = e.as<Min>())
        return binary(Op::Min, o->a, o->b);
    if (const Max *o = e.as<Max>())
        return binary(Op::Max, o->a, o->b);
    if (const LT *o = e.as<LT>())
        return binary(Op::LT, o->a, o->b);
    if (const LE *o = e.as<LE>())
        return binary(Op::LE, o->a, o->b);
    if (const GT *o = e.as<GT>())
        return binary(Op::LT, o->b, o->a);
    if (const GE *o = e.as<GE>())
        return binary(Op::LE, o->b, o->a);
    if (const EQ *o = e.as<EQ>())
        return binary(Op::EQ, o->a, o->b);
    if (const NE *o = e.as<NE>())
        return binary(Op::NE, o->a, o->b);
    if (const And *o = e.as<And>())
        return binary(Op::And, o->a, o->b);
    if (const Or *o = e.as<Or>())
        return binary(Op::Or, o->a, o->b);
    if (const Not *o = e.as<Not>()) {
        const int ia = compile(o->a, slots, ok);
        return add(Node{Op::Not, 0, ia, -1, -1});
    }
    if (const Select *o = e.as<Select>()) {
        const int ic = compile(o->condition, slots, ok);
        const int ia = compile(o->true_value, slots, ok);
        const int ib = compile(o->false_value, slots, ok);
        return add(Node{Op::Select, 0, ia, ib, ic});
    }
    ok = false;
    return -1;
}

int64_t CompiledExpr::eval(int index, std::span<const int64_t> v) const
{
    const Node &n = m_nodes[static_cast<size_t>(index)];
    switch (n.op) {
    case Op::Const: return n.value;
    case Op::Var: return v[static_cast<size_t>(n.value)];
    case Op::Add: return eval(n.a, v) + eval(n.b, v);
    case Op::Sub: return eval(n.a, v) - eval(n.b, v);
    case Op::Mul: return eval(n.a, v) * eval(n.b, v);
    case Op::Div: return floorDiv(eval(n.a, v), eval(n.b, v));
    case Op::Mod: return euclidMod(eval(n.a, v), eval(n.b, v));
    case Op::Min: return std::min(eval(n.a, v), eval(n.b, v));
    case Op::Max: return std::max(eval(n.a, v), eval(n.b, v));
    case Op::LT: return eval(n.a, v) < eval(n.b, v);
    case Op::LE: return eval(n.a, v) <= eval(n.b, v);
    case Op::EQ: return eval(n.a, v) == eval(n.b, v);
    case Op::NE: return eval(n.a, v) != eval(n.b, v);
    case Op::And: return eval(n.a, v) && eval(n.b, v);
    case Op::Or: return eval(n.a, v) || eval(n.b, v);
    case Op::Not: return !eval(n.a, v);
    case Op::Select: return eval(n.c, v) ? eval(n.a, v) : eval(n.b, v);
    }
    return 0;
}

int64_t CompiledExpr::evaluate(std::span<const int64_t> values) const
{
    if (m_root >= 0)
        return eval(m_root, values);
    if (m_fallback.empty())
        throw std::logic_error("evaluating an empty CompiledExpr");
    std::map<std::string, Expr> subs;
    for (size_t i = 0; i < m_fallback.size() && i < values.size(); i++)
        if (!m_fallback[i].empty())
            subs[m_fallback[i]] = Expr(values[i]);
    const Expr r = simplify(substitute(subs, m_expr));
    if (const int64_t *i = as_const_int(r))
        return *i;
    std::ostringstream s;
    s << "bound is not constant after substitution: " << m_expr << " -> " << r;
    throw std::runtime_error(s.str());
}

} // namespace beamscope::search
