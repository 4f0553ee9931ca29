#include "core/pipelines/pipeline_summary.h"

#include "core/dag/function_dag.h"
#include "core/pipelines/pipeline.h"
#include "core/util/halide_names.h"

#include <Halide.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

namespace beamscope::pipelines {

namespace {

using Halide::Internal::Function;

// Stages the cost model sees, counted from the Funcs alone: every definition
// of every Func except the wrappers Halide puts around inputs (FunctionDAG
// treats those as inputs too: a wrapper that calls no other Func).
int countStages(const PipelineInstance &instance)
{
    std::vector<Function> outputs;
    for (const Halide::Func &f : instance.outputs)
        outputs.push_back(f.function());
    const std::map<std::string, Function> env = Halide::Internal::build_environment(outputs);
    int count = 0;
    for (const auto &entry : env) {
        const Function &f = entry.second;
        if (f.is_wrapper() && !f.has_update_definition() && Halide::Internal::find_direct_calls(f).empty())
            continue;
        count += 1 + static_cast<int>(f.updates().size());
    }
    return count;
}

} // namespace

std::string displayName(const std::string &text) { return withoutUniqueSuffixes(text); }

namespace {

std::string definitionText(const Function &func, int definition)
{
    const Halide::Internal::Definition &def = definition == 0 ? func.definition() : func.update(definition - 1);
    std::ostringstream os;
    os << displayName(func.name()) << "(";
    for (size_t i = 0; i < def.args().size(); i++)
        os << (i ? ", " : "") << def.args()[i];
    os << ") = ";
    const auto &values = def.values();
    if (values.size() == 1) {
        os << values[0];
    } else {
        os << "{";
        for (size_t i = 0; i < values.size(); i++)
            os << (i ? ", " : "") << values[i];
        os << "}";
    }
    if (def.predicate().defined() && !Halide::Internal::is_const_one(def.predicate()))
        os << "\n  where " << def.predicate();
    for (const auto &rv : def.schedule().rvars())
        os << "\n  " << rv.var << " in [" << rv.min << ", " << rv.min << " + " << rv.extent << ")";
    return displayName(os.str());
}

} // namespace

std::vector<PipelineListing> listPipelines()
{
    std::vector<PipelineListing> out;
    std::vector<PipelineInfo> all = builtinPipelines();
    for (PipelineInfo &info : userPipelines())
        all.push_back(std::move(info));
    for (const PipelineInfo &info : all) {
        PipelineListing l;
        l.name = info.name;
        l.description = info.description;
        l.origin = originName(info.origin);
        try {
            const PipelineInstance instance = info.build();
            l.stageCount = countStages(instance);
            l.hasGpuSchedule = info.origin != Origin::Generator && static_cast<bool>(instance.applyGpuSchedule);
        } catch (const std::exception &) {
            l.stageCount = 0; // shown as unknown; picking it reports the error
        }
        out.push_back(std::move(l));
    }
    return out;
}

PipelineSummary summarizePipeline(const std::string &registryName)
{
    const auto info = findPipeline(registryName);
    if (!info)
        throw SummaryError("no pipeline named '" + registryName + "' in the registry");
    try {
        const PipelineInstance instance = info->build();
        const dag::FunctionDAG dag(instance.outputs);

        PipelineSummary s;
        s.name = instance.name;
        s.funcCount = static_cast<int>(dag.nodes.size());
        // first stage index of each node in s.stages
        std::vector<int> firstStage(dag.nodes.size());
        for (const dag::Node &n : dag.nodes) {
            firstStage[static_cast<size_t>(n.id)] = static_cast<int>(s.stages.size());
            for (const dag::Stage &st : n.stages) {
                StageSummary ss;
                ss.name = displayName(st.name);
                ss.func = displayName(n.name);
                ss.definition = st.index;
                ss.updateCount = static_cast<int>(n.stages.size()) - 1;
                ss.isInput = n.isInput;
                ss.isOutput = n.isOutput;
                ss.definitionText = definitionText(n.func, st.index);
                ss.features = st.features;
                s.stages.push_back(std::move(ss));
            }
        }
        const auto refs = dag.costModelStages();
        for (size_t i = 0; i < refs.size(); i++)
            s.stages[static_cast<size_t>(firstStage[static_cast<size_t>(refs[i].node)] + refs[i].stage)]
                .costModelIndex = static_cast<int>(i);

        // A producer Func is complete after its last definition: edges leave from there.
        for (const dag::Edge &e : dag.edges) {
            const dag::Node &producer = dag.nodes[static_cast<size_t>(e.producer)];
            StageEdge se;
            se.producer = firstStage[static_cast<size_t>(e.producer)] + static_cast<int>(producer.stages.size()) - 1;
            se.consumer = firstStage[static_cast<size_t>(e.consumerNode)] + e.consumerStage;
            se.calls = e.calls;
            s.edges.push_back(se);
        }
        for (const dag::Node &n : dag.nodes)
            for (size_t k = 1; k < n.stages.size(); k++) {
                StageEdge se;
                se.producer = firstStage[static_cast<size_t>(n.id)] + static_cast<int>(k) - 1;
                se.consumer = se.producer + 1;
                se.sameFunc = true;
                s.edges.push_back(se);
            }

        // Depth: longest path from a source. Producers come after consumers in
        // node order, so relaxing in reverse stage order settles each stage once
        // its producers are done... except update chains run forward within a
        // node, hence a fixed-point loop (a DAG: at most |stages| rounds).
        bool changed = true;
        for (size_t round = 0; changed && round <= s.stages.size(); round++) {
            changed = false;
            for (const StageEdge &e : s.edges) {
                const int d = s.stages[static_cast<size_t>(e.producer)].depth + 1;
                int &target = s.stages[static_cast<size_t>(e.consumer)].depth;
                if (d > target) {
                    target = d;
                    changed = true;
                }
            }
        }
        for (const StageSummary &st : s.stages)
            s.depthCount = std::max(s.depthCount, st.depth + 1);
        return s;
    } catch (const dag::DagError &e) {
        throw SummaryError(registryName + ": " + e.what());
    } catch (const Halide::Error &e) {
        throw SummaryError(registryName + ": Halide: " + e.what());
    }
}

} // namespace beamscope::pipelines
