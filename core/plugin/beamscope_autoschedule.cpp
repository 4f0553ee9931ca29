// libbeamscope_autoschedule.so: Beamscope's GPU beam search as a Halide 14
// autoscheduler plugin. A generator loads it with `-p` and selects it with
// `-s Beamscope auto_schedule=true`; the library registers itself when loaded.
// Every failure reaches the generator as a Halide::CompileError with a
// message (Halide's generator main reports it and exits non-zero).

#include "core/dag/function_dag.h"
#include "core/model/cost_model.h"
#include "core/model/cost_model_file.h"
#include "core/plugin/plugin_settings.h"
#include "core/schedule/apply_schedule.h"
#include "core/schedule/emit_source.h"
#include "core/search/autoschedule.h"
#include "core/search/featurization.h"
#include "core/search/schedule_features.h"
#include "core/search/search_trace.h"
#include "core/util/sha256.h"
#include "core/weights/weights.h"

#include <Halide.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace beamscope::plugin {

namespace {

constexpr const char *kName = "Beamscope";

[[noreturn]] void userError(const std::string &message)
{
    throw Halide::CompileError(std::string(kName) + " autoscheduler: " + message + "\n");
}

// BEAMSCOPE_COST_ONLY: the dump must decide every Func (decisions are a prefix of the
// scheduling order, so the undecided ones are its tail); then its cost and features.
void printCostOfGivenState(const search::AutoscheduleOutcome &out, const std::filesystem::path &dump)
{
    const search::SearchResult &r = out.result;
    const std::vector<int> &order = out.searchDag->scheduleOrder();
    if (r.startDepth < static_cast<int>(order.size())) {
        std::string undecided;
        for (size_t i = static_cast<size_t>(r.startDepth); i < order.size(); i++)
            undecided += (undecided.empty() ? "" : ", ") + out.searchDag->node(order[i]).name;
        userError("BEAMSCOPE_COST_ONLY: " + dump.string() + " decides " + std::to_string(r.startDepth) + " of " +
                  std::to_string(order.size()) + " Funcs; undecided: " + undecided);
    }
    std::cerr << kName << ": cost of " << dump.string() << " (complete, " << order.size()
              << " Funcs): " << std::setprecision(9) << r.cost << "\n"
              << kName << ": the state as read, in Halide's LoopNest::dump form:\n"
              << r.best->halideLoopNest();
    const std::vector<dag::StageRef> stages = out.dag->costModelStages();
    for (size_t s = 0; s < r.features.size(); s++) {
        std::cerr << kName << ": stage " << out.stageNames[s] << " cost " << r.stageCosts[s] << "\n";
        // The pipeline features (nonzero cells), to hold against another featurizer's dump.
        const dag::PipelineFeatures &pf = out.dag->stage(stages[s]).features;
        for (int row = 0; row < dag::kFeatureRows; row++)
            for (int t = 0; t < dag::kScalarTypeCount; t++)
                if (const int v = pf.matrix[static_cast<size_t>(row)][static_cast<size_t>(t)]; v != 0)
                    std::cerr << "    pipeline " << dag::featureRowName(row) << "." << dag::scalarTypeName(t) << " "
                              << v << "\n";
        for (int i = 0; i < search::kScheduleFeatureCount; i++)
            std::cerr << "    " << search::featureName(i) << " " << r.features[s].values[static_cast<size_t>(i)]
                      << "\n";
    }
}

// BEAMSCOPE_TRACE / BEAMSCOPE_TRACE_DIR: the search as the explorer opens it, naming what it needs to
// build the pipeline again (the generator, its parameters, the program it ran in), the target, the
// weights and Halide's machine parameters.
void writeTrace(search::SearchTrace &trace, const std::filesystem::path &path, const PluginSettings &settings,
                const GeneratorInvocation &invocation, const Halide::Target &target,
                const Halide::MachineParams &machine)
{
    search::TraceParams &p = trace.params;
    std::error_code ec;
    p.weights = std::filesystem::absolute(settings.weightsPath, ec).lexically_normal().string();
    p.weightsSha256 = sha256FileHex(settings.weightsPath).value_or("");
    p.generator = invocation.generator;
    p.generatorParams = invocation.params;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec)
        p.generatorExecutable = exe.string();
    p.target = target.to_string();
    p.machineParams = machine.to_string();
    if (!path.parent_path().empty())
        std::filesystem::create_directories(path.parent_path(), ec);
    std::string error;
    if (!trace.write(path, true, &error))
        userError("BEAMSCOPE_TRACE: cannot write " + path.string() + ": " + error);
    std::cerr << kName << ": search recorded in " << path.string() << " (open it in the explorer)\n";
}

void run(const Halide::Pipeline &pipeline, const Halide::Target &target, const Halide::MachineParams &machine,
         Halide::AutoSchedulerResults *results)
{
    if (!target.has_gpu_feature())
        userError("target " + target.to_string() +
                  " has no GPU feature; Beamscope schedules for GPUs (add -cuda or -opencl to the target)");
    PluginSettings settings;
    try {
        settings = settingsFromEnvironment(machine.parallelism);
    } catch (const SettingsError &e) {
        userError(e.what());
    }
    if (!settings.weightsNote.empty())
        std::cerr << kName << ": " << settings.weightsNote << "\n";
    std::string why;
    const std::unique_ptr<model::CostModel> model = model::loadCostModel(settings.weightsPath, why);
    if (!model)
        userError("cannot load weights: " + why);

    std::vector<Halide::Func> outputs;
    for (const Halide::Func &f : pipeline.outputs())
        outputs.push_back(f);
    if (outputs.empty())
        userError("the pipeline has no outputs");
    const std::string name = outputs.front().name();
    if (!settings.partialSchedulePath.empty()) {
        std::ifstream in(settings.partialSchedulePath, std::ios::binary);
        if (!in)
            userError("HL_PARTIAL_SCHEDULE: cannot open " + settings.partialSchedulePath.string());
        std::ostringstream text;
        text << in.rdbuf();
        try {
            settings.params.startDecisions = search::partialScheduleDecisions(outputs, text.str());
        } catch (const std::invalid_argument &e) {
            userError("HL_PARTIAL_SCHEDULE: " + settings.partialSchedulePath.string() + ": " + e.what());
        }
    }
    if (settings.costOnly) { // every Func is fixed by the dump: one state, nothing to search
        settings.params.beamSize = 1;
        settings.params.numPasses = 1;
    }
    const GeneratorInvocation invocation = readGeneratorInvocation(ownCommandLine());
    const std::filesystem::path tracePath = tracePathFor(settings, invocation, name);
    search::SearchTrace trace;
    search::AutoscheduleOutcome out;
    try {
        out =
            search::autoschedule(name, outputs, *model, settings.params, tracePath.empty() ? nullptr : &trace, nullptr);
    } catch (const dag::DagError &e) {
        userError(e.what()); // each names what to do: estimates to set, or a schedule to leave out
    }
    const search::SearchResult &r = out.result;
    if (!tracePath.empty())
        writeTrace(trace, tracePath, settings, invocation, target, machine);
    if (!r.best)
        userError(name + ": no complete schedule within the device limits: " + r.failure);

    if (settings.costOnly)
        printCostOfGivenState(out, settings.partialSchedulePath);

    schedule::EmitOptions emit;
    emit.pipeline = name;
    emit.stageCosts = &r.stageCosts;
    emit.totalCost = r.cost;
    const std::string source = schedule::emitSource(*r.best, outputs, emit);
    if (settings.debug)
        std::cerr << kName << ": " << name << " beam " << settings.params.beamSize << ", " << settings.params.passes()
                  << " passes, " << r.statesEvaluated << " states, " << r.searchSeconds << " s, predicted cost "
                  << r.cost << "\n"
                  << r.best->dump()
                  // Halide's form, after Halide's marker, so that this log works as HL_PARTIAL_SCHEDULE.
                  << "** Optimal schedule:\n"
                  << r.best->halideLoopNest() << source;
    schedule::applySchedule(*r.best, outputs);
    if (results) {
        results->scheduler_name = kName;
        results->target = target;
        results->machine_params_string = machine.to_string();
        results->schedule_source = source;
        // What Halide's autoschedulers hand back for `-e featurization` (the generator writes
        // <name>.featurization; Halide's featurization_to_sample turns it into a .sample).
        const std::vector<float> features = search::featurization(*out.searchDag, r.features);
        const auto *bytes = reinterpret_cast<const uint8_t *>(features.data());
        results->featurization.assign(bytes, bytes + features.size() * sizeof(float));
    }
}

void autoscheduleEntry(const Halide::Pipeline &pipeline, const Halide::Target &target,
                       const Halide::MachineParams &machine, Halide::AutoSchedulerResults *results)
{
    try {
        run(pipeline, target, machine, results);
    } catch (const Halide::Error &) {
        throw;
    } catch (const std::exception &e) {
        // Anything else (a bug of ours included) still reaches the user as a Halide error, never a crash.
        userError(e.what());
    }
}

struct Registration {
    Registration() { Halide::Pipeline::add_autoscheduler(kName, autoscheduleEntry); }
};

const Registration registration;

} // namespace

} // namespace beamscope::plugin
