// beamscope-cli campaign: is every schedule the search picks correct? Seeded
// random pipelines, a library's generators and built-in apps are searched,
// the final beam's states compiled for OpenCL and CUDA and run on the local
// OpenCL device against the host (core/campaign). Rerun with the same options
// to resume; --shard K/T splits the list for Slurm array tasks sharing --out.
// Wiring only.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "app/cli/option_values.h"
#include "app/cli/stderr_progress.h"
#include "app/cli/halide/cost_model_loading.h"
#include "core/campaign/campaign.h"
#include "core/gpu/device_facts.h"
#include "core/pipelines/generator_library.h"
#include "core/pipelines/random_pipeline.h"
#include "core/search/device_limits.h"
#include "core/util/atomic_file.h"

#include <iostream>
#include <memory>

namespace beamscope::cli {

namespace {

struct CampaignOptions {
    std::string out;
    int random = 0;
    uint64_t firstSeed = 1;
    int minStages = 2, maxStages = 12;
    std::vector<std::string> generators, apps;
    int beam = 32, passes = 1, schedules = 4, cudaSchedules = -1;
    bool noCuda = false, summaryOnly = false, json = false;
    double benchTimeout = 20, compileTimeout = 120, scale = 1;
    int jobs = 0;
    int dropoutSeeds = 0, dropout = 1;
    uint64_t firstDropoutSeed = 1;
    std::optional<std::string> shard, loopNest;
    std::string searchOptions = "1111";
    WeightsOptions weights;
};

int fail(const std::string &message)
{
    std::cerr << "beamscope-cli campaign: " << message << "\n";
    return kFailure;
}

// The pipelines named on the command line, in a fixed order (shards rely on it).
std::optional<std::vector<campaign::PipelineToCheck>> pipelinesOf(const CampaignOptions &o, std::string *error)
{
    std::vector<campaign::PipelineToCheck> out;
    for (const std::string &app : o.apps) {
        const auto info = pipelines::findPipeline(app);
        if (!info) {
            *error = "--app: unknown pipeline '" + app + "'";
            return std::nullopt;
        }
        out.push_back({app, "app " + app, info->build().stageKinds, info->build});
    }
    for (const std::string &library : o.generators) {
        const std::string path = pipelines::absoluteLibraryPath(library);
        std::vector<std::string> names;
        try {
            names = pipelines::loadGeneratorLibrary(path);
        } catch (const std::exception &e) {
            *error = e.what();
            return std::nullopt;
        }
        for (const std::string &name : names)
            out.push_back({name, "generator " + path + " " + name, {}, [path, name] {
                               return pipelines::buildGenerator(path, name, {});
                           }});
    }
    // Each seed picks its stage count in [min, max], so one seed names one pipeline.
    for (int i = 0; i < o.random; i++) {
        const uint64_t seed = o.firstSeed + static_cast<uint64_t>(i);
        const int stages = o.minStages + static_cast<int>(seed % static_cast<uint64_t>(o.maxStages - o.minStages + 1));
        const pipelines::PipelineInstance probe = pipelines::randomPipeline(seed, stages);
        out.push_back({probe.name, "random seed " + std::to_string(seed) + ", " + std::to_string(stages) + " stages",
                       probe.stageKinds, [seed, stages] { return pipelines::randomPipeline(seed, stages); }});
    }
    // The autotune loop's exploring searches of each, after all the beam searches.
    if (o.dropoutSeeds > 0) {
        const size_t plain = out.size();
        for (size_t i = 0; i < plain; i++)
            for (auto &check : campaign::exploringChecksOf(out[i], o.dropoutSeeds, o.dropout, o.firstDropoutSeed))
                out.push_back(std::move(check));
    }
    return out;
}

int runCampaignCommand(const CampaignOptions &o)
{
    campaign::CampaignRequest request;
    request.out = o.out;
    if (o.shard) {
        const size_t slash = o.shard->find('/');
        const auto k = readSigned(o.shard->substr(0, slash)), t = readSigned(o.shard->substr(slash + 1));
        if (slash == std::string::npos || !k || !t || *t < 1 || *k < 0 || *k >= *t)
            return usageError("", "campaign", "--shard: expected K/T with 0 <= K < T, found '" + *o.shard + "'");
        request.shardIndex = static_cast<int>(*k);
        request.shardCount = static_cast<int>(*t);
    }
    if (o.minStages > o.maxStages)
        return usageError("", "campaign", "--min-stages is above --max-stages");
    std::string error;
    if (!o.summaryOnly) {
        const auto list = pipelinesOf(o, &error);
        if (!list)
            return fail(error);
        if (list->empty())
            return usageError("", "campaign", "no pipelines: give --random N, --generator LIB or --app NAME");
        request.pipelines = *list;
        // Generators and random pipelines default as everywhere else: a trained per-app file.
        const std::filesystem::path weightsPath =
            chooseWeights(o.weights.weights, o.weights.weightsDir, error, request.pipelines.front().name);
        if (weightsPath.empty())
            return fail(error);
        const std::unique_ptr<model::CostModel> model = model::loadCostModel(weightsPath, error);
        if (!model)
            return fail(error);
        campaign::BeamCheckOptions &c = request.check;
        c.search.beamSize = o.beam;
        c.search.numPasses = o.passes;
        c.search.threads = 1; // compiles run beside the next search
        if (!c.search.options.parse(o.searchOptions))
            return usageError("", "campaign", "--options: expected four 0/1 flags, found '" + o.searchOptions + "'");
        const auto facts = gpu::resolveProfile("v100", error);
        if (!facts)
            return fail(error);
        c.search.device = search::featureParamsFor(*facts);
        c.schedules = o.schedules;
        c.cudaSchedules = o.noCuda ? 0 : o.cudaSchedules;
        c.compileTimeoutSeconds = o.compileTimeout;
        c.run.timeoutSeconds = o.benchTimeout;
        c.run.scale = o.scale;
        c.jobs = o.jobs;
        if (o.loopNest) {
            const auto text = readTextFile(*o.loopNest);
            if (!text)
                return fail(*o.loopNest + ": cannot read");
            if (request.pipelines.size() != 1)
                return usageError("", "campaign", "--loop-nest replays one pipeline: name exactly one");
            c.startLoopNest = *text;
        }
        StderrProgress progress("campaign", o.json, StderrProgress::Style::SameLine);
        std::cerr << "beamscope-cli campaign: " << campaign::pendingPipelines(request).size() << " of "
                  << request.pipelines.size() << " pipelines to check (shard " << request.shardIndex << "/"
                  << request.shardCount << "), beam " << o.beam << ", " << o.schedules << " schedules each, weights "
                  << weightsPath.string() << "\n";
        if (!campaign::runCampaign(request, *model, &progress, &error))
            return fail(error);
    }
    const std::vector<campaign::PipelineCheck> records = campaign::readCampaign(o.out, &error);
    if (!error.empty())
        return fail(error);
    const Json summary = campaign::summaryJson(records);
    const std::string markdown = campaign::summaryMarkdown(records);
    for (const auto &[file, text] : {std::pair{"summary.json", summary.dump(2) + "\n"}, {"summary.md", markdown}})
        if (const WriteResult w = replaceTextFile(std::filesystem::path(o.out) / file, text); !w.ok)
            return fail(w.error);
    std::cout << (o.json ? summary.dump(2) + "\n" : markdown);
    return summary.find("defects")->size() == 0 ? kSuccess : kFailure;
}

CommandRun defineCampaign(CLI::App &app)
{
    auto o = std::make_shared<CampaignOptions>();
    addText(app, "--out", o->out, "the campaign folder (records, summary.md, summary.json)")->required();
    addInteger(app, "--random", o->random, "check this many seeded random pipelines", 0, 1000000);
    addInteger(app, "--first-seed", o->firstSeed, "the first random pipeline's seed");
    addInteger(app, "--min-stages", o->minStages, "a random pipeline's fewest stages", 1, 200);
    addInteger(app, "--max-stages", o->maxStages, "a random pipeline's most stages", 1, 200);
    addRepeated(app, "--generator", o->generators, "check every generator of this library (repeatable)");
    addRepeated(app, "--app", o->apps, "check this built-in pipeline (repeatable)");
    addWeightsOptions(app, o->weights);
    addInteger(app, "--beam", o->beam, "the beam size", 1, 100000);
    addInteger(app, "--passes", o->passes, "coarse-to-fine passes", 1, 100);
    addText(app, "--options", o->searchOptions,
            "the search space (compute_root, inline, compute at block, compute at thread), as autoschedule's");
    addInteger(app, "--schedules", o->schedules, "final-beam states checked per pipeline (the winner first)", 1, 1000);
    addInteger(app, "--dropout-seeds", o->dropoutSeeds,
               "also check each pipeline's schedules from this many of the autotune loop's exploring searches "
               "(beam 1, random dropout with seeds 1..N, randomized tilings)",
               0, 100000);
    addInteger(app, "--first-dropout-seed", o->firstDropoutSeed,
               "the exploring searches' first seed (an autotune record's schedule_id, under autotune's --seed 0, "
               "replays its search)");
    addInteger(app, "--dropout", o->dropout, "percent of children the exploring searches keep", 1, 100);
    addFlag(app, "--no-cuda", o->noCuda, "do not compile the schedules for CUDA");
    addInteger(app, "--cuda-schedules", o->cudaSchedules,
               "compile only the first this many of each pipeline's schedules for CUDA (-1: all)", -1, 1000);
    addNumber(app, "--bench-timeout", o->benchTimeout, "seconds a run may take before it counts as a hang", 0, 1e6,
              true);
    addNumber(app, "--compile-timeout", o->compileTimeout, "seconds a compile may take", 0, 1e6, true);
    addNumber(app, "--scale", o->scale, "output extents are the estimates times this", 0, 1e3, true);
    addInteger(app, "--jobs", o->jobs, "compiles at once (0: one per core)", 0, 1024);
    addText(app, "--shard", o->shard, "check only every T-th pipeline from the K-th (K/T, for Slurm arrays)");
    addFlag(app, "--summary-only", o->summaryOnly, "write and print the summary of what is recorded");
    addText(app, "--loop-nest", o->loopNest,
            "replay: search on from this loop-nest dump (a record's loop_nest) on the one pipeline named");
    addJsonFlag(app, o->json);
    return [o](const std::vector<std::string> &) { return runCampaignCommand(*o); };
}

const CommandRegistration registration(
    {"", "campaign",
     "--out DIR (--random N [--first-seed S] [--min-stages A] [--max-stages B] | --generator LIB.so | --app A)... "
     "[--weights W] [--beam N] [--passes P] [--options 1111] [--schedules K] [--dropout-seeds N [--first-dropout-seed "
     "S] [--dropout P]] "
     "[--no-cuda | --cuda-schedules C] "
     "[--bench-timeout S] [--compile-timeout S] "
     "[--scale F] [--jobs J] [--shard K/T] [--summary-only] [--loop-nest FILE] [--json]",
     "check that the search's schedules run correctly: crashes, hangs and wrong outputs, classified and replayable",
     defineCampaign});

} // namespace

} // namespace beamscope::cli
