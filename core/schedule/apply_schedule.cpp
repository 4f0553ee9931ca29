#include "core/schedule/apply_schedule.h"

#include <stdexcept>

namespace beamscope::schedule {

namespace {

using Kind = Directive::Kind;

std::vector<Halide::VarOrRVar> varsOf(const std::vector<std::string> &names)
{
    std::vector<Halide::VarOrRVar> out;
    for (const std::string &n : names)
        out.emplace_back(Halide::Var(n));
    return out;
}

const Halide::Func &lookup(const std::map<std::string, Halide::Func> &funcs, const std::string &name)
{
    const auto it = funcs.find(name);
    if (it == funcs.end())
        throw std::invalid_argument("applySchedule: the pipeline has no Func named '" + name +
                                    "' (the state was searched on a different pipeline)");
    return it->second;
}

void applyStage(Halide::Func func, Halide::Stage stage, const StagePlan &plan,
                const std::map<std::string, Halide::Func> &funcs)
{
    for (const Directive &d : plan.directives) {
        const auto v = varsOf(d.vars);
        switch (d.kind) {
        case Kind::ComputeRoot: func.compute_root(); break;
        case Kind::ComputeAt: {
            // Halide 14 checks a location against LoopLevels made without a stage index,
            // and LoopLevel::match compares the index too: one naming a stage (even the
            // right one) is refused. Without it Halide injects the Func at the loop of that
            // name around its uses, the stage the state means (its uses all lie in it). The
            // storage level is set too: a generator's Funcs do not take it from the compute level.
            const Halide::LoopLevel level(lookup(funcs, d.consumer), v[0]);
            func.compute_at(level).store_at(level);
        } break;
        case Kind::StoreIn: func.store_in(d.memory); break;
        case Kind::Split:
            stage.split(v[0], v[1], v[2], static_cast<int>(d.factor), Halide::TailStrategy::GuardWithIf);
            break;
        case Kind::Reorder: stage.reorder(v); break;
        case Kind::Fuse: stage.fuse(v[0], v[1], v[2]); break;
        case Kind::GpuBlocks:
            if (v.size() == 1)
                stage.gpu_blocks(v[0]);
            else if (v.size() == 2)
                stage.gpu_blocks(v[0], v[1]);
            else
                stage.gpu_blocks(v[0], v[1], v[2]);
            break;
        case Kind::GpuThreads:
            if (v.size() == 1)
                stage.gpu_threads(v[0]);
            else if (v.size() == 2)
                stage.gpu_threads(v[0], v[1]);
            else
                stage.gpu_threads(v[0], v[1], v[2]);
            break;
        case Kind::GpuSingleThread: stage.gpu_single_thread(); break;
        case Kind::Unroll: stage.unroll(v[0]); break;
        case Kind::Unscheduled: stage.unscheduled(); break;
        }
    }
}

} // namespace

std::map<std::string, Halide::Func> funcsByName(const std::vector<Halide::Func> &outputs)
{
    std::map<std::string, Halide::Func> out;
    for (const Halide::Func &o : outputs)
        for (const auto &[name, f] : Halide::Internal::find_transitive_calls(o.function()))
            out.emplace(name, Halide::Func(f));
    return out;
}

void applyPlan(const SchedulePlan &plan, const std::map<std::string, Halide::Func> &funcs)
{
    for (const StagePlan &p : plan.stages) {
        Halide::Func f = lookup(funcs, p.func);
        applyStage(f, p.stage == 0 ? Halide::Stage(f) : f.update(p.stage - 1), p, funcs);
    }
}

void applySchedule(const search::State &state, const std::vector<Halide::Func> &outputs)
{
    const dag::FunctionDAG &searched = state.dag().dag();
    bool sameFuncs = !outputs.empty() && outputs.size() == searched.outputNodes.size();
    for (size_t i = 0; sameFuncs && i < outputs.size(); i++)
        sameFuncs = searched.nodes[static_cast<size_t>(searched.outputNodes[i])].func.same_as(outputs[i].function());
    if (sameFuncs) {
        applyPlan(planSchedule(state), funcsByName(outputs));
        return;
    }
    const dag::FunctionDAG fresh(outputs);
    applyPlan(planSchedule(state, &fresh), funcsByName(outputs));
}

} // namespace beamscope::schedule
