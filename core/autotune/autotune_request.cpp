#include "core/autotune/autotune.h"

#include "core/pipelines/generator_library.h"
#include "core/pipelines/random_pipeline.h"
#include "core/weights/shipped_weights.h"

#include <sstream>

namespace beamscope::autotune {

std::optional<AutotuneOptions> optionsFor(const AutotuneRequest &r, std::string &error)
{
    AutotuneOptions o;
    o.outDir = r.outDir;
    if (r.outDir.empty()) {
        error = "no output folder";
        return std::nullopt;
    }
    const std::optional<bench::TargetKind> target = bench::parseTargetKind(r.target);
    if (!target || *target == bench::TargetKind::Host) {
        error = "target: expected cuda or opencl, found '" + r.target + "'";
        return std::nullopt;
    }
    o.target = *target;

    for (const std::string &name : r.apps) {
        auto info = pipelines::findPipeline(name);
        if (!info) {
            error = "unknown pipeline '" + name + "' (see 'beamscope-cli apps')";
            return std::nullopt;
        }
        // A user's generator (registered by the explorer) is recorded as one, so a resumed run builds it again.
        const std::optional<pipelines::GeneratorSource> generator = pipelines::userGeneratorSource(name);
        const std::string source =
            generator ? "generator " + generator->library + " " + generator->generator : "app " + name;
        o.pipelines.push_back({name, source, info->build});
    }
    for (int k = 0; k < r.randomPipelines; k++) {
        const uint64_t seed = r.seed * 1000003ull + static_cast<uint64_t>(k);
        const int stages = r.randomStages;
        o.pipelines.push_back({pipelines::randomPipelineName(seed, stages), "random seed " + std::to_string(seed),
                               [seed, stages] { return pipelines::randomPipeline(seed, stages); }});
    }
    if (!r.generatorLibrary.empty()) {
        if (r.generatorName.empty()) {
            error = "a generator library needs the generator's name";
            return std::nullopt;
        }
        // Absolute, so a resumed run or a Slurm job in another folder loads the same file.
        const std::string path = pipelines::absoluteLibraryPath(r.generatorLibrary), name = r.generatorName;
        std::string source = "generator " + path + " " + name;
        for (const auto &[k, v] : r.generatorParams)
            source += " " + k + "=" + v;
        try {
            pipelines::loadGeneratorLibrary(path);
        } catch (const std::exception &e) {
            error = e.what();
            return std::nullopt;
        }
        const std::map<std::string, std::string> params = r.generatorParams;
        o.pipelines.push_back(
            {name, source, [path, name, params] { return pipelines::buildGenerator(path, name, params); }});
    }
    if (o.pipelines.empty()) {
        error = "no pipelines: name apps, random pipelines or a generator";
        return std::nullopt;
    }

    const std::string profile =
        !r.profile.empty() ? r.profile : (o.target == bench::TargetKind::Cuda ? "local" : "v100");
    const gpu::LocalDeviceQuery local =
        o.target == bench::TargetKind::Cuda || profile == "local" ? gpu::queryLocalDevice() : gpu::LocalDeviceQuery{};
    // A Slurm submission prepares the folder on a login node, which need not
    // have the GPU the tasks will measure on.
    if (o.target == bench::TargetKind::Cuda && !local.device && !r.prepareOnly) {
        error = "target cuda: " + local.status + " (use opencl where there is no NVIDIA GPU)";
        return std::nullopt;
    }
    if (profile == "local") {
        if (!local.device) {
            error = "profile local: " + local.status +
                    (r.prepareOnly ? " (a Slurm run submitted from here needs --profile NAME, e.g. h200)" : "");
            return std::nullopt;
        }
        o.device = *local.device;
    } else if (auto facts = gpu::findProfile(profile)) {
        o.device = *facts;
    } else {
        error = "unknown profile '" + profile + "'";
        return std::nullopt;
    }
    o.deviceSource = profile;
    if (local.device)
        o.cudaCapability = bench::halideCudaCapability(local.device->computeCapability());

    std::string note;
    // The pipelines a default is chosen for: random ones (never held out by any file) count as others.
    std::vector<std::string> pipelines = r.apps;
    if (r.randomPipelines > 0)
        pipelines.push_back("random");
    if (!r.generatorName.empty())
        pipelines.push_back(r.generatorName);
    o.weightsPath = weights::resolveWeightsArgument(r.weights.empty() ? std::nullopt : std::optional(r.weights),
                                                    std::nullopt, error, &note, &pipelines);
    if (o.weightsPath.empty())
        return std::nullopt;

    o.batches = r.batches;
    o.batchSize = r.batchSize;
    o.seed = r.seed;
    o.firstBeamSize = r.firstBeamSize;
    o.otherDropout = r.otherDropout;
    o.randomizeTilings = r.randomizeTilings;
    o.freezeInlineComputeRoot = r.freezeInlineComputeRoot;
    o.jobs = r.jobs;
    o.compileTimeoutSeconds = r.compileTimeoutSeconds;
    o.cacheDir = r.cacheDir;
    o.run.reps = r.reps;
    o.run.warmup = r.warmup;
    o.run.scale = r.scale;
    o.run.timeoutSeconds = r.benchTimeoutSeconds;
    o.retrain = r.retrain;
    o.epochs = r.epochs;
    o.learningRate = r.learningRate;
    o.minBatch = static_cast<size_t>(std::max(1, r.minBatch));
    o.injectFaults = r.injectFaults;
    o.onlyBatch = r.onlyBatch;
    o.shardIndex = r.shardIndex;
    o.shardCount = r.shardCount;
    o.priorFolder = r.priorFolder;
    for (const std::string &f : r.mergeFrom)
        o.mergeFrom.emplace_back(f);
    o.prepareOnly = r.prepareOnly;
    error = note; // not an error: what the caller may want to tell the user
    return o;
}

AutotuneResult runAutotune(const AutotuneRequest &request, Progress *progress, const AutotuneEvents &events)
{
    std::string message;
    const std::optional<AutotuneOptions> options = optionsFor(request, message);
    if (!options) {
        AutotuneResult r;
        r.error = message;
        return r;
    }
    if (events.onStart) {
        std::string line = std::to_string(options->pipelines.size()) + " pipeline(s), " +
                           std::to_string(options->batches) + " batch(es) of " + std::to_string(options->batchSize) +
                           ", target " + bench::targetKindName(options->target) + ", search sized for " +
                           options->device.name + ", weights " + options->weightsPath.string();
        if (options->target == bench::TargetKind::OpenCL)
            line += "; times are OpenCL-device times (PoCL's CPU device where there is no GPU)";
        // Which weights were taken when none was named: said before the run, not after it.
        if (!message.empty())
            line += "; " + message;
        events.onStart(line);
    }
    AutotuneResult result = runAutotune(*options, progress, events);
    result.note = message;
    return result;
}

std::vector<std::string> requestArguments(const AutotuneRequest &r)
{
    std::vector<std::string> a;
    auto add = [&a](const std::string &option, const std::string &value) {
        a.push_back("--" + option);
        a.push_back(value);
    };
    auto number = [](double v) {
        std::ostringstream s;
        s.precision(17);
        s << v;
        return s.str();
    };
    for (const std::string &app : r.apps)
        add("app", app);
    if (r.randomPipelines > 0) {
        add("random", std::to_string(r.randomPipelines));
        add("random-stages", std::to_string(r.randomStages));
    }
    if (!r.generatorLibrary.empty()) {
        add("generator", r.generatorLibrary);
        add("name", r.generatorName);
        for (const auto &[k, v] : r.generatorParams)
            add("param", k + "=" + v);
    }
    if (!r.weights.empty())
        add("weights", r.weights);
    add("target", r.target);
    if (!r.profile.empty())
        add("profile", r.profile);
    add("batch-size", std::to_string(r.batchSize));
    add("seed", std::to_string(r.seed));
    add("first-beam", std::to_string(r.firstBeamSize));
    add("dropout", std::to_string(r.otherDropout));
    if (!r.randomizeTilings)
        a.push_back("--no-randomize-tilings");
    if (!r.freezeInlineComputeRoot)
        a.push_back("--no-freeze");
    add("jobs", std::to_string(r.jobs));
    add("compile-timeout", number(r.compileTimeoutSeconds));
    add("bench-timeout", number(r.benchTimeoutSeconds));
    add("reps", std::to_string(r.reps));
    add("warmup", std::to_string(r.warmup));
    add("scale", number(r.scale));
    if (!r.cacheDir.empty())
        add("cache", r.cacheDir);
    if (!r.retrain)
        a.push_back("--no-retrain");
    add("epochs", std::to_string(r.epochs));
    add("learning-rate", [&] {
        std::ostringstream f;
        f.precision(9);
        f << r.learningRate;
        return f.str();
    }());
    add("min-batch", std::to_string(r.minBatch));
    for (const auto &[key, fault] : r.injectFaults)
        add("inject-fault", key + "=" + fault);
    return a;
}

std::vector<std::string> autotunePipelineNames()
{
    std::vector<std::string> names;
    for (const pipelines::PipelineInfo &p : pipelines::userPipelines())
        names.push_back(p.name);
    for (const pipelines::PipelineInfo &p : pipelines::builtinPipelines())
        names.push_back(p.name);
    return names;
}

} // namespace beamscope::autotune
