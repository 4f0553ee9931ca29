#include "core/schedule/emit_source.h"

#include "core/util/halide_names.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>
#include <sstream>
#include <stdexcept>

namespace beamscope::schedule {

namespace {

using Kind = Directive::Kind;

// A C++ identifier for a Halide name ("f$1" -> "f_1", "0x" -> "_0x").
std::string identifier(const std::string &name)
{
    std::string out;
    for (char c : name)
        out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
    if (out.empty() || std::isdigit(static_cast<unsigned char>(out.front())))
        out.insert(out.begin(), '_');
    return out;
}

const char *memoryName(Halide::MemoryType m)
{
    switch (m) {
    case Halide::MemoryType::GPUShared: return "MemoryType::GPUShared";
    case Halide::MemoryType::Register: return "MemoryType::Register";
    case Halide::MemoryType::Heap: return "MemoryType::Heap";
    case Halide::MemoryType::Stack: return "MemoryType::Stack";
    default: return "MemoryType::Auto";
    }
}

std::string joined(const std::vector<std::string> &names, const std::map<std::string, std::string> &ids)
{
    std::string out;
    for (const std::string &n : names)
        out += (out.empty() ? "" : ", ") + ids.at(n);
    return out;
}

std::string formatCost(double c)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", c);
    return buf;
}

} // namespace

std::map<std::string, int> pipelineFuncIndices(const std::vector<Halide::Func> &outputs)
{
    std::map<std::string, Halide::Internal::Function> env;
    std::vector<Halide::Internal::Function> outs;
    for (const Halide::Func &o : outputs) {
        outs.push_back(o.function());
        const auto more = Halide::Internal::find_transitive_calls(o.function());
        env.insert(more.begin(), more.end());
    }
    std::map<std::string, int> out;
    const std::vector<std::string> order = Halide::Internal::topological_order(outs, env);
    for (size_t i = 0; i < order.size(); i++)
        out[order[i]] = static_cast<int>(i);
    return out;
}

std::string emitSource(const search::State &state, const std::vector<Halide::Func> &outputs, const EmitOptions &options)
{
    return emitSource(state, planSchedule(state), pipelineFuncIndices(outputs), options);
}

std::string emitSource(const search::State &state, const SchedulePlan &plan,
                       const std::map<std::string, int> &funcIndices, const EmitOptions &options)
{
    const search::SearchDag &sd = state.dag();
    // Funcs are named as everywhere else (halide_names.h), however many builds this process made.
    std::vector<std::string> allFuncs;
    for (const auto &[name, index] : funcIndices)
        allFuncs.push_back(name);
    const FuncNames shown(allFuncs);
    std::ostringstream os;
    os << "// Beamscope GPU schedule" << (options.pipeline.empty() ? "" : " for " + options.pipeline);
    if (options.totalCost >= 0)
        os << " (predicted cost " << formatCost(options.totalCost) << ")";
    os << "\n";

    // Funcs, outputs first (descending get_func index, as Halide prints them).
    std::vector<std::string> funcs;
    for (const StagePlan &p : plan.stages)
        if (std::find(funcs.begin(), funcs.end(), p.func) == funcs.end())
            funcs.push_back(p.func);
    for (const std::string &f : funcs)
        if (!funcIndices.contains(f))
            throw std::invalid_argument("emitSource: the pipeline has no Func named '" + f + "'");
    std::sort(funcs.begin(), funcs.end(),
              [&](const std::string &a, const std::string &b) { return funcIndices.at(a) > funcIndices.at(b); });

    // Vars: the stages' own loop names, then the ones splits and fuses make, sorted by name.
    std::set<std::string> pure, made;
    for (const StagePlan &p : plan.stages) {
        pure.insert(p.pureVars.begin(), p.pureVars.end());
        made.insert(p.newVars.begin(), p.newVars.end());
        for (const Directive &d : p.directives)
            if (d.kind == Kind::ComputeAt)
                pure.insert(d.vars.front());
    }
    for (const std::string &m : made)
        pure.erase(m);
    std::map<std::string, std::string> ids; // Halide name -> C++ identifier
    std::set<std::string> used;
    auto claimAs = [&](const std::string &name, const std::string &as, const char *suffix) {
        std::string id = identifier(as);
        while (used.contains(id))
            id += suffix;
        used.insert(id);
        ids[name] = id;
    };
    auto claim = [&](const std::string &name, const char *suffix) {
        std::string id = identifier(name);
        while (used.contains(id))
            id += suffix;
        used.insert(id);
        ids[name] = id;
    };
    used.insert({"pipeline", "target"});
    for (const std::string &f : funcs)
        claimAs(f, shown.name(f), "_f");
    std::map<std::string, std::string> funcIds = ids;
    ids.clear();
    for (const std::string &v : pure)
        claim(v, "_v");
    for (const std::string &v : made)
        if (!ids.contains(v))
            claim(v, "_v");

    for (const std::string &f : funcs) {
        os << "Func " << funcIds.at(f) << " = pipeline.get_func(" << funcIndices.at(f) << ");";
        if (identifier(shown.name(f)) != shown.name(f))
            os << " // " << shown.name(f);
        os << "\n";
    }
    for (const std::string &v : pure)
        os << "Var " << ids.at(v) << "(\"" << v << "\");\n";
    for (const std::string &v : made)
        if (!pure.contains(v))
            os << "Var " << ids.at(v) << "(\"" << v << "\");\n";
    if (!plan.inlined.empty()) {
        os << "// inlined:";
        for (const std::string &f : plan.inlined)
            os << " " << shown.name(f);
        os << "\n";
    }

    for (const StagePlan &p : plan.stages) {
        os << "\n// " << shown.name(p.func) << ".s" << p.stage;
        const int slot = sd.stageSlot(p.node, p.stage);
        if (options.stageCosts && slot >= 0 && static_cast<size_t>(slot) < options.stageCosts->size())
            os << ": predicted cost " << formatCost((*options.stageCosts)[static_cast<size_t>(slot)]);
        os << "\n";
        if (!p.note.empty())
            os << "// note: " << p.note << "\n";
        os << funcIds.at(p.func);
        if (p.stage > 0)
            os << ".update(" << p.stage - 1 << ")";
        if (p.directives.empty()) {
            os << ";\n";
            continue;
        }
        for (const Directive &d : p.directives) {
            os << "\n    ";
            switch (d.kind) {
            case Kind::ComputeRoot: os << ".compute_root()"; break;
            case Kind::ComputeAt: {
                // Never a stage index: Halide 14 refuses any LoopLevel that names one
                // (apply_schedule.cpp says why).
                const std::string where = funcIds.at(d.consumer) + ", " + ids.at(d.vars[0]);
                os << ".compute_at(" << where << ")\n    .store_at(" << where << ")";
                break;
            }
            case Kind::StoreIn: os << ".store_in(" << memoryName(d.memory) << ")"; break;
            case Kind::Split:
                os << ".split(" << joined(d.vars, ids) << ", " << d.factor << ", TailStrategy::GuardWithIf)";
                break;
            case Kind::Reorder: os << ".reorder(" << joined(d.vars, ids) << ")"; break;
            case Kind::Fuse: os << ".fuse(" << joined(d.vars, ids) << ")"; break;
            case Kind::GpuBlocks: os << ".gpu_blocks(" << joined(d.vars, ids) << ")"; break;
            case Kind::GpuThreads: os << ".gpu_threads(" << joined(d.vars, ids) << ")"; break;
            case Kind::GpuSingleThread: os << ".gpu_single_thread()"; break;
            case Kind::Unroll: os << ".unroll(" << ids.at(d.vars[0]) << ")"; break;
            case Kind::Unscheduled: os << ".unscheduled()"; break;
            }
        }
        os << ";\n";
    }
    return os.str();
}

} // namespace beamscope::schedule
