#pragma once
// A Halide integer expression turned into a tiny evaluable tree over numbered
// variable slots. The DAG's bounds are symbolic Exprs that the search must
// evaluate millions of times; substitute + simplify costs tens of microseconds
// per call, this costs tens of nanoseconds. Expressions using something the
// compiler does not know (a call, a float) fall back to substitute + simplify.

#include <Halide.h>

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace beamscope::search {

class CompiledExpr {
public:
    CompiledExpr() = default;
    // slots: variable name -> index into the values passed to evaluate().
    CompiledExpr(const Halide::Expr &e, const std::map<std::string, int> &slots);

    int64_t evaluate(std::span<const int64_t> values) const;
    bool compiled() const { return m_fallback.empty() ? true : false; }

private:
    enum class Op : uint8_t { Const, Var, Add, Sub, Mul, Div, Mod, Min, Max, Select, LT, LE, EQ, NE, And, Or, Not };
    struct Node {
        Op op = Op::Const;
        int64_t value = 0; // Const value or Var slot
        int a = -1, b = -1, c = -1;
    };
    int compile(const Halide::Expr &e, const std::map<std::string, int> &slots, bool &ok);
    int64_t eval(int index, std::span<const int64_t> values) const;

    std::vector<Node> m_nodes;
    int m_root = -1;
    // Fallback: the original expression and slot names.
    Halide::Expr m_expr;
    std::vector<std::string> m_fallback; // slot index -> name, non-empty when not compiled
};

} // namespace beamscope::search
