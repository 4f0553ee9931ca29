#include "core/search/state_from_decisions.h"

#include <stdexcept>

namespace beamscope::search {

namespace {

std::string baseName(const std::string &name) { return name.substr(0, name.find('$')); }

int nodeNamed(const SearchDag &dag, const std::string &name) {
    for (int n = 0; n < dag.nodeCount(); n++)
        if (baseName(dag.node(n).name) == baseName(name))
            return n;
    return -1;
}

std::vector<int64_t> integers(const Json *array, const std::string &where) {
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

State stateFromDecisions(const SearchDag &dag, const std::vector<Json> &decisions, const std::string &pipeline) {
    State state(dag);
    for (size_t i = 0; i < decisions.size(); i++) {
        const Json &d = decisions[i];
        const std::string where = "decision " + std::to_string(i + 1);
        const Json *func = d.isObject() ? d.find("func") : nullptr;
        if (!func)
            throw std::invalid_argument(where + ": field \"func\" missing");
        FuncSchedule f;
        f.node = nodeNamed(dag, func->toString());
        if (f.node < 0 || f.node != state.nextNode())
            throw std::invalid_argument(where + ": field \"func\": expected '" +
                                        (state.nextNode() >= 0 ? dag.node(state.nextNode()).name : std::string("(none)")) +
                                        "', the next Func " + pipeline + " schedules, found '" + func->toString() + "'");
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
            throw std::invalid_argument(where + ": field \"location\": expected inline, root, block or thread, found '" +
                                        location + "'");
        if (const Json *c = d.find("consumer")) {
            f.consumer = nodeNamed(dag, c->toString());
            if (f.consumer < 0)
                throw std::invalid_argument(where + ": field \"consumer\": no Func named '" + c->toString() + "'");
            f.consumerStage = d.find("consumer_stage") ? static_cast<int>(d.find("consumer_stage")->toInt()) : 0;
        } else if (f.location == ComputeLocation::BlockLevel || f.location == ComputeLocation::ThreadLevel) {
            throw std::invalid_argument(where + ": field \"consumer\" missing (a " + location +
                                        "-level Func needs the Func it is computed in)");
        }
        f.storedAtRoot = d.find("stored_at_root") && d.find("stored_at_root")->toBool();
        if (f.storedAtRoot && f.location != ComputeLocation::BlockLevel)
            throw std::invalid_argument(where + ": field \"stored_at_root\": only a block-level Func is stored at root, found " +
                                        location);
        if (const Json *stages = d.find("stages")) {
            for (size_t s = 0; s < stages->items().size(); s++) {
                const Json &st = stages->items()[s];
                const std::string at = where + ": stages[" + std::to_string(s) + "]";
                StageTiling t;
                t.threads = integers(st.find("threads"), at + ".threads");
                t.serial = integers(st.find("serial"), at + ".serial");
                t.vectorLoop = st.find("vector_loop") ? static_cast<int>(st.find("vector_loop")->toInt()) : 0;
                t.unrolled = st.find("unrolled") && st.find("unrolled")->toBool();
                f.stages.push_back(std::move(t));
            }
        }
        const size_t expectedStages = f.location == ComputeLocation::Inlined ? 0 : dag.node(f.node).stages.size();
        if (f.stages.size() != expectedStages)
            throw std::invalid_argument(where + ": field \"stages\": expected " + std::to_string(expectedStages) +
                                        " tilings for " + func->toString() + " (" + location + "), found " +
                                        std::to_string(f.stages.size()));
        state.add(std::move(f));
    }
    return state;
}

} // namespace beamscope::search
