#include "core/bench/float_check.h"

#include <algorithm>
#include <set>

namespace beamscope::bench {

namespace {

class MathCallFinder : public Halide::Internal::IRVisitor {
public:
    std::set<std::string> found;

private:
    using IRVisitor::visit;
    void visit(const Halide::Internal::Call *call) override
    {
        static const std::set<std::string> inexact = {"exp", "log", "pow", "sin", "cos", "tan", "asin", "acos", "atan",
                                                      "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
                                                      "sqrt",
                                                      // approximate reciprocals: host and GPU instructions differ
                                                      "fast_inverse", "fast_inverse_sqrt"};
        if (call->call_type == Halide::Internal::Call::PureExtern) {
            std::string name = call->name;
            for (const char *suffix : {"_f16", "_f32", "_f64"})
                if (name.size() > 4 && name.compare(name.size() - 4, 4, suffix) == 0)
                    name.resize(name.size() - 4);
            if (inexact.count(name))
                found.insert(name);
        }
        IRVisitor::visit(call);
    }
};

bool isIntegerType(const std::string &type)
{
    return type.rfind("int", 0) == 0 || type.rfind("uint", 0) == 0 || type == "bool";
}

} // namespace

std::vector<std::string> inexactMathCalls(const std::vector<Halide::Func> &outputs)
{
    MathCallFinder finder;
    for (const Halide::Func &o : outputs)
        for (const auto &[name, f] : Halide::Internal::find_transitive_calls(o.function()))
            f.accept(&finder);
    return {finder.found.begin(), finder.found.end()};
}

bool withinMathLibraryTolerance(const Measurement &m, const std::vector<std::string> &mathCalls)
{
    if (mathCalls.empty() || m.failure != Failure::WrongOutput || !m.checked || !(m.values > 0))
        return false;
    if (!m.outputs.isArray() || m.outputs.items().empty())
        return false;
    for (const Json &o : m.outputs.items()) {
        const Json *type = o.find("type");
        if (!type || !isIntegerType(type->toString()))
            return false;
    }
    return m.maxAbsError <= kMathToleranceUnits && m.mismatches <= kMathToleranceShare * m.values;
}

bool callsApproximateReciprocal(const std::vector<std::string> &mathCalls)
{
    return std::any_of(mathCalls.begin(), mathCalls.end(),
                       [](const std::string &c) { return c == "fast_inverse" || c == "fast_inverse_sqrt"; });
}

} // namespace beamscope::bench
