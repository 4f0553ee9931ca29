#include "core/search/state_from_decisions.h"
#include "core/util/halide_names.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace beamscope::search {

// Halide makes names unique per process: a second build of the same pipeline
// gets "repeat_edge$1" for "repeat_edge" and "lambda_7" for "lambda_3" (one
// counter for every lambda). A trace recorded in another process, or before
// a rebuild, must still fit, so names are compared without either.
std::string canonicalFuncName(const std::string &name)
{
    std::string base = baseFuncName(name);
    const std::string lambda = "lambda_";
    if (base.size() > lambda.size() && base.compare(0, lambda.size(), lambda) == 0 &&
        base.find_first_not_of("0123456789", lambda.size()) == std::string::npos)
        return lambda + "*";
    return base;
}

namespace {

// The consumer of a decision: a Func an earlier decision named (consumers are
// scheduled before their producers), else the only Func with that canonical name.
int consumerNode(const SearchDag &dag, const std::map<std::string, int> &decided, const std::string &name)
{
    if (const auto it = decided.find(name); it != decided.end())
        return it->second;
    int found = -1;
    for (int n = 0; n < dag.nodeCount(); n++)
        if (canonicalFuncName(dag.node(n).name) == canonicalFuncName(name)) {
            if (found >= 0)
                return -1; // ambiguous (several lambdas): only a decided Func can be meant
            found = n;
        }
    return found;
}

std::vector<int64_t> integers(const Json *array, const std::string &where)
{
    std::vector<int64_t> out;
    if (!array)
        return out;
    if (!array->isArray())
        throw std::invalid_argument(where + ": expected an array of integers");
    for (const Json &v : array->items()) {
        if (!v.isNumber())
            throw std::invalid_argument(where + ": expected an array of integers, found " + v.dump());
        out.push_back(v.toInt());
    }
    return out;
}

} // namespace

State stateFromDecisions(const SearchDag &dag, const std::vector<Json> &decisions, const std::string &pipeline)
{
    State state(dag);
    std::map<std::string, int> decided; // a decision's "func" as the trace spells it -> node
    for (size_t i = 0; i < decisions.size(); i++) {
        const Json &d = decisions[i];
        const std::string where = "decision " + std::to_string(i + 1);
        const Json *func = d.isObject() ? d.find("func") : nullptr;
        if (!func)
            throw std::invalid_argument(where + ": field \"func\" missing");
        // A step where Halide had nothing to decide (an input node, or the second step of a Func
        // not computed at root) leaves the state as it is.
        if (const Json *p = d.find("pass_through"); p && p->toBool())
            continue;
        // Decisions follow the schedule order, so the i-th decides the i-th
        // Func of scheduleOrder(); its name only confirms that the decision
        // belongs to this pipeline. The one exception is Halide's second step for a Func placed
        // at root and not yet tiled: it decides that Func again, with its tiling.
        FuncSchedule f;
        const bool tilesLast =
            !state.funcs().empty() && state.funcs().back().awaitingGpuTiling &&
            canonicalFuncName(dag.node(state.funcs().back().node).name) == canonicalFuncName(func->toString());
        f.node = tilesLast ? state.funcs().back().node : state.nextNode();
        if (f.node < 0)
            throw std::invalid_argument(where + ": field \"func\": expected no more decisions (" + pipeline +
                                        " schedules " + std::to_string(dag.nodeCount()) + " Funcs), found '" +
                                        func->toString() + "'");
        if (canonicalFuncName(dag.node(f.node).name) != canonicalFuncName(func->toString()))
            throw std::invalid_argument(where + ": field \"func\": expected '" + dag.node(f.node).name +
                                        "', the next Func " + pipeline + " schedules (names compared without " +
                                        "Halide's $N suffix and lambda numbering), found '" + func->toString() + "'");
        decided[func->toString()] = f.node;
        const std::string location = d.find("location") ? d.find("location")->toString() : "";
        if (location == "inline")
            f.location = ComputeLocation::Inlined;
        else if (location == "root")
            f.location = ComputeLocation::Root;
        else if (location == "block")
            f.location = ComputeLocation::BlockLevel;
        else if (location == "thread")
            f.location = ComputeLocation::ThreadLevel;
        else
            throw std::invalid_argument(
                where + ": field \"location\": expected inline, root, block or thread, found '" + location + "'");
        if (const Json *c = d.find("consumer")) {
            f.consumer = consumerNode(dag, decided, c->toString());
            if (f.consumer < 0)
                throw std::invalid_argument(where + ": field \"consumer\": expected a Func decided before it, found '" +
                                            c->toString() + "'");
            f.consumerStage = d.find("consumer_stage") ? static_cast<int>(d.find("consumer_stage")->toInt()) : 0;
        } else if (f.location == ComputeLocation::BlockLevel || f.location == ComputeLocation::ThreadLevel) {
            throw std::invalid_argument(where + ": field \"consumer\" missing (a " + location +
                                        "-level Func needs the Func it is computed in)");
        }
        f.storedAtRoot = d.find("stored_at_root") && d.find("stored_at_root")->toBool();
        f.insideSerialLoop = d.find("inside_serial_loop") && d.find("inside_serial_loop")->toBool();
        if (f.insideSerialLoop && f.location != ComputeLocation::ThreadLevel)
            throw std::invalid_argument(where +
                                        ": field \"inside_serial_loop\": only a thread-level Func is computed "
                                        "inside its reader's serial loop, found " +
                                        location);
        f.awaitingGpuTiling = d.find("awaiting_gpu_tiling") && d.find("awaiting_gpu_tiling")->toBool();
        if (f.awaitingGpuTiling && f.location != ComputeLocation::Root)
            throw std::invalid_argument(where + ": field \"awaiting_gpu_tiling\": only a Func computed at root " +
                                        "waits for its GPU tiling, found " + location);
        if (f.storedAtRoot && f.location != ComputeLocation::BlockLevel && f.location != ComputeLocation::ThreadLevel)
            throw std::invalid_argument(where +
                                        ": field \"stored_at_root\": only a Func computed inside a kernel "
                                        "(block or thread level) is also stored at root, found " +
                                        location);
        if (const Json *stages = d.find("stages")) {
            for (size_t s = 0; s < stages->items().size(); s++) {
                const Json &st = stages->items()[s];
                const std::string at = where + ": stages[" + std::to_string(s) + "]";
                StageTiling t;
                t.threads = integers(st.find("threads"), at + ".threads");
                t.serial = integers(st.find("serial"), at + ".serial");
                t.vectorLoop = st.find("vector_loop") ? static_cast<int>(st.find("vector_loop")->toInt()) : 0;
                // The vector loop is one of the tiling's loops; a tiling without loops (a
                // zero-dimensional Func) has none, and says 0.
                if (t.threads.empty() ? t.vectorLoop != 0
                                      : (t.vectorLoop < 0 || static_cast<size_t>(t.vectorLoop) >= t.threads.size()))
                    throw std::invalid_argument(at + ".vector_loop: expected a loop index below " +
                                                std::to_string(std::max<size_t>(1, t.threads.size())) + ", found " +
                                                std::to_string(t.vectorLoop));
                t.hasVectorLoop =
                    !t.threads.empty() && !(st.find("has_vector_loop") && !st.find("has_vector_loop")->toBool());
                t.unrolled = st.find("unrolled") && st.find("unrolled")->toBool();
                f.stages.push_back(std::move(t));
            }
        }
        const size_t expectedStages = f.location == ComputeLocation::Inlined ? 0 : dag.node(f.node).stages.size();
        if (f.stages.size() != expectedStages)
            throw std::invalid_argument(where + ": field \"stages\": expected " + std::to_string(expectedStages) +
                                        " tilings for " + func->toString() + " (" + location + "), found " +
                                        std::to_string(f.stages.size()));
        if (tilesLast)
            state.replaceLast(std::move(f));
        else
            state.add(std::move(f));
    }
    return state;
}

} // namespace beamscope::search
