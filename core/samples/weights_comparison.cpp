#include "core/samples/weights_comparison.h"

#include "core/model/cost_model.h"
#include "core/samples/prediction.h"
#include "core/weights/shipped_weights.h"
#include "core/weights/weights.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>

namespace beamscope::samples {

namespace {

// What one row of the comparison covers: an app's pipelines, or one pipeline
// that nothing names (its schedules are never ranked against another's).
struct Group {
    std::string label;
    std::string app; // "" for an unnamed pipeline
    std::vector<const PipelineSet *> pipelines;
};

std::vector<Group> groupPipelines(const Dataset &dataset)
{
    std::map<std::string, Group> named;
    std::vector<Group> unnamed;
    for (const PipelineSet &p : dataset.pipelines) {
        if (p.app.empty()) {
            const std::string files = p.fileName.empty() ? "" : ", files " + p.fileName + "_*";
            unnamed.push_back({"pipeline " + std::to_string(p.pipelineId) + " (no app" + files + ")", "", {&p}});
            continue;
        }
        Group &g = named[p.app];
        g.label = g.app = p.app;
        g.pipelines.push_back(&p);
    }
    std::vector<Group> out;
    for (auto &[app, g] : named)
        out.push_back(std::move(g));
    for (Group &g : unnamed)
        out.push_back(std::move(g));
    return out;
}

} // namespace

WeightsChoice weightsChoiceFor(const std::string &argument, std::string &error)
{
    namespace fs = std::filesystem;
    if (argument == "halide-hold-one-out")
        return {argument, [](const std::string &app) { return weights::holdOneOutWeightsFor(app); }};
    std::error_code ec;
    if (fs::is_directory(argument, ec) && !weights::holdsLegacyWeightsFiles(argument)) {
        const fs::path dir = argument;
        return {argument, [dir](const std::string &app) -> std::optional<fs::path> {
                    const fs::path file = dir / (app + ".weights");
                    std::error_code e;
                    return fs::exists(file, e) ? std::optional<fs::path>(file) : std::nullopt;
                }};
    }
    const fs::path path = weights::resolveWeightsArgument(argument, std::nullopt, error);
    if (path.empty())
        return {};
    return {argument, [path](const std::string &) { return std::optional<fs::path>(path); }};
}

double topKScore(const PipelineSet &pipeline, const std::vector<float> &predictions, size_t k)
{
    const size_t n = std::min(predictions.size(), pipeline.schedules.size());
    if (k == 0)
        return NAN;
    std::vector<double> predicted(predictions.begin(), predictions.begin() + static_cast<std::ptrdiff_t>(n)), measured;
    for (size_t i = 0; i < n; i++)
        measured.push_back(pipeline.schedules[i].bestRuntimeMs());
    return topKScoreOf(predicted, measured, k);
}

std::vector<ChoiceScore> compareWeights(const Dataset &dataset, const std::vector<WeightsChoice> &choices, int numCores)
{
    const std::vector<Group> groups = groupPipelines(dataset);

    std::vector<ChoiceScore> out;
    for (const WeightsChoice &choice : choices) {
        ChoiceScore score;
        score.label = choice.label;
        std::map<std::filesystem::path, std::shared_ptr<model::CostModel>> models;
        std::map<std::filesystem::path, weights::TrainingSet> trainingSets; // read once per file, as the models
        std::vector<double> sp, kt, pa, t1, t5;
        for (const Group &group : groups) {
            AppScore a;
            a.app = group.label;
            a.unnamed = group.app.empty();
            a.pipelines = group.pipelines.size();
            for (const PipelineSet *p : group.pipelines)
                a.schedules += p->schedules.size();
            const std::optional<std::filesystem::path> path = choice.weightsFor(group.app);
            if (!path) {
                a.error = group.app.empty() ? "no app names this pipeline, so '" + choice.label + "' has no file for it"
                                            : "no weights for this app in '" + choice.label + "'";
                score.apps.push_back(a);
                continue;
            }
            a.weights = *path;
            std::shared_ptr<model::CostModel> &model = models[*path];
            if (!model) {
                weights::LoadResult loaded = weights::loadWeights(*path);
                if (!loaded.ok()) {
                    const weights::Diagnostic *e = loaded.firstError();
                    a.error = e ? e->format() : path->string() + ": cannot load";
                    score.apps.push_back(a);
                    continue;
                }
                try {
                    model = std::make_shared<model::CostModel>(std::move(*loaded.weights));
                } catch (const std::exception &e) {
                    a.error = path->string() + ": " + e.what();
                    score.apps.push_back(a);
                    continue;
                }
            }
            // Rank metrics within each pipeline, then their mean: schedules of
            // two pipelines are never ranked against each other (a model that
            // only tells the pipelines apart would score well otherwise).
            std::vector<double> spearmans, kendalls, pairwise, top1, top5;
            std::vector<size_t> pipelineStarts;
            for (const PipelineSet *p : group.pipelines) {
                const PipelinePredictions pred = predictPipeline(*model, *p, numCores);
                pipelineStarts.push_back(a.predicted.size());
                for (size_t i = 0; i < p->schedules.size(); i++) {
                    a.predicted.push_back(pred.predictions[i]);
                    a.measuredMs.push_back(p->schedules[i].bestRuntimeMs());
                }
                const RankMetrics r = pipelineRankMetrics(*p, pred.predictions);
                spearmans.push_back(r.spearman);
                kendalls.push_back(r.kendall);
                pairwise.push_back(r.pairwiseAccuracy);
                a.rank.count += r.count;
                top1.push_back(topKScore(*p, pred.predictions, 1));
                top5.push_back(topKScore(*p, pred.predictions, 5));
            }
            std::vector<ScheduleRanking> rankings;
            pipelineStarts.push_back(a.predicted.size());
            for (size_t i = 0; i + 1 < pipelineStarts.size(); ++i) {
                const size_t from = pipelineStarts[i], count = pipelineStarts[i + 1] - from;
                rankings.push_back({std::span<const double>(a.predicted).subspan(from, count),
                                    std::span<const double>(a.measuredMs).subspan(from, count)});
            }
            a.intervals = bootstrapRankIntervals(rankings);
            auto trained = trainingSets.find(*path);
            if (trained == trainingSets.end())
                trained = trainingSets.emplace(*path, weights::trainingSetOf(*path)).first;
            a.inSample = std::any_of(group.pipelines.begin(), group.pipelines.end(), [&](const PipelineSet *p) {
                return trained->second.containsPipeline(group.app, p->pipelineHash);
            });
            a.rank.spearman = finiteMean(spearmans);
            a.rank.kendall = finiteMean(kendalls);
            a.rank.pairwiseAccuracy = finiteMean(pairwise);
            a.top1 = finiteMean(top1);
            a.top5 = finiteMean(top5);
            sp.push_back(a.rank.spearman);
            kt.push_back(a.rank.kendall);
            pa.push_back(a.rank.pairwiseAccuracy);
            t1.push_back(a.top1);
            t5.push_back(a.top5);
            score.appsScored++;
            score.apps.push_back(a);
        }
        score.spearman = finiteMean(sp);
        score.kendall = finiteMean(kt);
        score.pairwiseAccuracy = finiteMean(pa);
        score.top1 = finiteMean(t1);
        score.top5 = finiteMean(t5);
        out.push_back(std::move(score));
    }

    std::vector<std::string> common;
    for (const Group &group : groups) {
        bool everywhere = true;
        for (const ChoiceScore &c : out)
            for (const AppScore &a : c.apps)
                if (a.app == group.label && !a.error.empty())
                    everywhere = false;
        if (everywhere)
            common.push_back(group.label);
    }
    for (ChoiceScore &c : out) {
        std::vector<double> sp, kt, pa, t1, t5;
        for (const AppScore &a : c.apps)
            if (std::find(common.begin(), common.end(), a.app) != common.end()) {
                sp.push_back(a.rank.spearman);
                kt.push_back(a.rank.kendall);
                pa.push_back(a.rank.pairwiseAccuracy);
                t1.push_back(a.top1);
                t5.push_back(a.top5);
            }
        c.common = {finiteMean(sp), finiteMean(kt), finiteMean(pa), finiteMean(t1), finiteMean(t5), common.size()};
    }
    return out;
}

std::vector<std::string> rowCaveats(const std::vector<ChoiceScore> &scores, size_t choice, size_t app)
{
    std::vector<std::string> out;
    if (choice >= scores.size() || app >= scores[choice].apps.size())
        return out;
    const AppScore &a = scores[choice].apps[app];
    if (!a.error.empty()) {
        out.push_back(a.error);
        return out;
    }
    if (a.inSample)
        out.push_back("in-sample: " + a.weights.filename().string() + " was trained on " + a.app);
    if (a.schedules < kFewSchedules)
        out.push_back(std::to_string(a.schedules) + " schedules: a rough guess");
    for (size_t other = 0; other < scores.size(); ++other) {
        if (other == choice || app >= scores[other].apps.size())
            continue;
        const AppScore &b = scores[other].apps[app];
        if (b.error.empty() && a.intervals.spearman.overlaps(b.intervals.spearman))
            out.push_back("not told apart from " + scores[other].label);
    }
    return out;
}

} // namespace beamscope::samples
