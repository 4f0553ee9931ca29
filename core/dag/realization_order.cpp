#include "core/dag/realization_order.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <tuple>

namespace beamscope::dag {

using namespace Halide::Internal;

namespace {

// The Funcs a Func calls, each once, in the order a walk of its definitions
// first meets them (calls inside a call's arguments before the call itself).
class CallsInOrder : public IRVisitor {
public:
    std::vector<Function> found;

private:
    std::set<std::string> m_seen;
    using IRVisitor::visit;

    void visit(const Call *op) override
    {
        IRVisitor::visit(op);
        if (op->call_type == Call::Halide && op->func.defined()) {
            Function f(op->func);
            if (m_seen.insert(f.name()).second)
                found.push_back(f);
        }
    }
};

std::vector<Function> directCalls(const Function &f)
{
    CallsInOrder calls;
    f.accept(&calls);
    return calls.found;
}

// Each Func's position in a pre-order walk from the outputs through what it
// calls (wrappers included, as Halide's environment has them).
std::map<std::string, uint64_t> firstMeetings(const std::vector<Function> &outputs)
{
    std::map<std::string, uint64_t> order;
    auto walk = [&](auto &&self, const Function &f) -> void {
        if (order.count(f.name()))
            return;
        order.emplace(f.name(), order.size());
        std::vector<Function> next = directCalls(f);
        for (const auto &wrapper : f.schedule().wrappers()) {
            Function w(wrapper.second);
            if (std::none_of(next.begin(), next.end(), [&](const Function &g) { return g.name() == w.name(); }))
                next.push_back(w);
        }
        for (const Function &g : next)
            self(self, g);
    };
    for (const Function &f : outputs)
        walk(walk, f);
    return order;
}

std::string namePrefix(const std::string &name)
{
    std::string prefix = name.substr(0, name.find('$'));
    while (!prefix.empty() && std::isdigit(static_cast<unsigned char>(prefix.back())))
        prefix.pop_back();
    return prefix;
}

} // namespace

std::vector<std::string> realizationOrder(const std::vector<Function> &outputs,
                                          const std::map<std::string, Function> &env)
{
    const std::map<std::string, uint64_t> met = firstMeetings(outputs);
    std::map<std::string, std::vector<std::string>> callees;
    for (const auto &[name, func] : env) {
        std::vector<std::tuple<std::string, uint64_t, std::string>> keyed;
        for (const Function &g : directCalls(func)) {
            if (g.name() == name)
                continue; // an update reading the Func itself
            const auto at = met.find(g.name());
            keyed.emplace_back(namePrefix(g.name()), at == met.end() ? 0 : at->second, g.name());
        }
        std::sort(keyed.begin(), keyed.end());
        std::vector<std::string> &list = callees[name];
        for (auto &k : keyed)
            list.push_back(std::get<2>(k));
    }

    // Post-order from each output: a Func after everything it calls.
    std::vector<std::string> order;
    std::set<std::string> visited;
    auto visit = [&](auto &&self, const std::string &name) -> void {
        if (!visited.insert(name).second)
            return;
        for (const std::string &callee : callees[name])
            self(self, callee);
        order.push_back(name);
    };
    for (const Function &f : outputs)
        visit(visit, f.name());
    return order;
}

} // namespace beamscope::dag
