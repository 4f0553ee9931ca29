#include "ui/retrain/retrain_job.h"

#include "core/samples/checkpoint.h"
#include "core/samples/retrain.h"
#include "core/util/progress.h"
#include "core/weights/weights.h"

#include <QDir>
#include <QFileInfo>

#include <filesystem>
#include <set>

namespace beamscope::ui {

namespace {

using namespace beamscope::samples;
namespace fs = std::filesystem;

fs::path toPath(const QString &path) { return fs::path(path.toStdString()); }

QString fromStd(const std::string &text) { return QString::fromStdString(text); }

// Maps one phase of the job (loading, training) onto a slice of the bar.
class PhaseProgress : public Progress {
public:
    PhaseProgress(Progress *outer, double from, double to) : m_outer(outer), m_from(from), m_to(to) {}
    void report(double fraction, std::string_view message) override
    {
        if (m_outer)
            m_outer->report(m_from + (m_to - m_from) * fraction, message);
    }
    bool cancelled() const override { return m_outer && m_outer->cancelled(); }

private:
    Progress *m_outer;
    double m_from, m_to;
};

} // namespace

QString checkpointFor(const QString &output) { return fromStd(checkpointPathFor(toPath(output)).string()); }

SampleFolderSummary summarizeSampleFolders(const QStringList &folders)
{
    std::vector<fs::path> roots;
    for (const QString &folder : folders)
        roots.push_back(toPath(folder));
    const auto listing = listSamples(roots);
    SampleFolderSummary summary;
    summary.files = listing.files.size();
    std::set<std::string> apps;
    std::set<const std::map<int32_t, std::string> *> tables;
    for (const auto &source : listing.files) {
        if (!source.app.empty())
            apps.insert(source.app);
        if (source.appsById && tables.insert(source.appsById.get()).second)
            for (const auto &[id, app] : *source.appsById)
                apps.insert(app);
    }
    for (const auto &app : apps)
        summary.apps.append(fromStd(app));
    for (const auto &error : listing.errors)
        summary.errors.append(fromStd(error));
    return summary;
}

RetrainOutcome runRetrain(const RetrainRequest &request, Progress *progress,
                          const std::function<void(const EpochRecord &)> &onEpoch,
                          const std::function<void(const QString &)> &onLoaded)
{
    RetrainOutcome outcome;
    const fs::path out = toPath(request.output);
    outcome.checkpoint = fromStd(checkpointPathFor(out).string());

    // Initial weights: a file, or Halide's seeded random initialiser; never made up silently.
    weights::Weights initial;
    if (request.randomInit) {
        initial = randomWeights(request.seed);
    } else {
        if (request.initialWeights.isEmpty()) {
            outcome.error = QStringLiteral("no initial weights chosen");
            return outcome;
        }
        std::string error;
        auto loaded = loadStartingWeights(toPath(request.initialWeights), error);
        if (!loaded) {
            outcome.error = fromStd(error);
            return outcome;
        }
        initial = std::move(*loaded);
    }

    std::vector<fs::path> roots;
    for (const QString &folder : request.sampleFolders)
        roots.push_back(toPath(folder));
    if (roots.empty()) {
        outcome.error = QStringLiteral("no sample folder chosen");
        return outcome;
    }
    PhaseProgress loading(progress, 0.0, kRetrainLoadingShare);
    const auto loaded = loadSamples(roots, &loading);
    if (!loaded.ok()) {
        QStringList errors;
        for (const auto &e : loaded.errors)
            errors.append(fromStd(e));
        outcome.error = errors.join(QLatin1Char('\n'));
        return outcome;
    }
    if (loaded.dataset.cancelled) {
        outcome.cancelled = true;
        return outcome;
    }
    outcome.skippedSamples = loaded.dataset.skipped.size();

    RetrainSettings settings;
    settings.training.epochs = request.epochs;
    settings.training.learningRate = request.learningRate;
    settings.training.seed = request.seed;
    settings.training.numCores = request.numCores;
    settings.training.batches.minSize = static_cast<size_t>(request.minBatch);
    settings.training.resume = request.resume;
    settings.training.onEpoch = onEpoch;
    if (!request.holdOutApp.isEmpty())
        settings.holdOut = request.holdOutApp.toStdString();
    settings.splitMode = request.partitionSchedules ? SplitMode::BySchedule : SplitMode::ByPipeline;
    settings.output = out;
    settings.replace = request.replaceOutput || request.startOver;
    const PlanResult planned = planRetrain(loaded.dataset, settings);
    if (planned.refusal) {
        outcome.error = fromStd(planned.refusal->message);
        outcome.refusedOption = fromStd(planned.refusal->option);
        return outcome;
    }
    const RetrainPlan &plan = *planned.plan;
    outcome.trainingPipelines = plan.split.training.size();
    outcome.validationPipelines = plan.split.validation.size();
    outcome.trainingSchedules = plan.trainingSchedules;
    outcome.validationSchedules = plan.validationSchedules;
    if (onLoaded)
        onLoaded(fromStd(plan.describe()));

    PhaseProgress training(progress, kRetrainLoadingShare, 1.0);
    RetrainResult run = runRetrainPlan(plan, initial, &training);
    outcome.history = std::move(run.history);
    outcome.epochsCompleted = run.epochsCompleted;
    outcome.resumedEpochs = run.resumedEpochs;
    if (!run.error.empty()) {
        outcome.error = fromStd(run.error);
        return outcome;
    }
    if (run.cancelled) {
        outcome.cancelled = true;
        return outcome;
    }
    outcome.ok = true;
    outcome.output = request.output;
    return outcome;
}

} // namespace beamscope::ui
