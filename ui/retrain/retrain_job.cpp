#include "ui/retrain/retrain_job.h"

#include "core/model/cost_model.h"
#include "core/samples/checkpoint.h"
#include "core/samples/training_loop.h"
#include "core/util/progress.h"
#include "core/weights/weights.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <filesystem>
#include <set>

namespace beamscope::ui {

namespace {

using namespace beamscope::samples;
namespace fs = std::filesystem;

fs::path toPath(const QString &path)
{
    return fs::path(path.toStdString());
}

QString fromStd(const std::string &text)
{
    return QString::fromStdString(text);
}

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

// Loading is quick next to training; it gets the first 5% of the bar.
constexpr double kLoadingShare = 0.05;

} // namespace

QString checkpointFor(const QString &output)
{
    return fromStd(checkpointPathFor(toPath(output)).string());
}

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
    const fs::path checkpoint = checkpointPathFor(out);
    outcome.checkpoint = fromStd(checkpoint.string());
    if (request.output.isEmpty()) {
        outcome.error = QStringLiteral("no output file chosen");
        return outcome;
    }
    std::error_code ec;
    if (fs::exists(out, ec) && !request.replaceOutput) {
        outcome.error = QStringLiteral("%1: already exists (confirm replacing it, or choose another output)")
                            .arg(request.output);
        return outcome;
    }

    // Initial weights: a file, or Halide's seeded random initialiser; never made up silently.
    weights::Weights initial;
    if (request.randomInit) {
        initial = randomWeights(request.seed);
    } else {
        if (request.initialWeights.isEmpty()) {
            outcome.error = QStringLiteral("no initial weights chosen");
            return outcome;
        }
        auto loaded = weights::loadWeights(toPath(request.initialWeights));
        if (!loaded.ok()) {
            const auto *first = loaded.firstError();
            outcome.error = first ? fromStd(first->format())
                                  : QStringLiteral("%1: cannot load weights").arg(request.initialWeights);
            return outcome;
        }
        if (const auto why = model::checkWeights(*loaded.weights); !why.empty()) {
            outcome.error = QStringLiteral("%1: %2").arg(request.initialWeights, fromStd(why));
            return outcome;
        }
        initial = std::move(*loaded.weights);
    }

    std::vector<fs::path> roots;
    for (const QString &folder : request.sampleFolders)
        roots.push_back(toPath(folder));
    if (roots.empty()) {
        outcome.error = QStringLiteral("no sample folder chosen");
        return outcome;
    }
    PhaseProgress loading(progress, 0.0, kLoadingShare);
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
    const Dataset &dataset = loaded.dataset;
    outcome.skippedSamples = dataset.skipped.size();
    if (dataset.pipelines.empty()) {
        outcome.error = QStringLiteral("no usable sample in %1 file(s) read").arg(dataset.filesRead);
        return outcome;
    }

    Split split;
    if (!request.holdOutApp.isEmpty()) {
        const auto apps = dataset.apps();
        if (std::find(apps.begin(), apps.end(), request.holdOutApp.toStdString()) == apps.end()) {
            outcome.error = QStringLiteral("held-out app %1: no sample of that app").arg(request.holdOutApp);
            return outcome;
        }
        split = holdOutApp(dataset, request.holdOutApp.toStdString());
    } else {
        split = splitLikeHalide(dataset);
    }
    TrainingOptions options;
    options.epochs = request.epochs;
    options.learningRate = request.learningRate;
    options.seed = request.seed;
    options.numCores = request.numCores;
    options.batches.minSize = static_cast<size_t>(request.minBatch);
    options.checkpointPath = checkpoint;
    options.resume = request.resume;
    options.onEpoch = onEpoch;
    if (makeBatches(split.training, options.batches).empty()) {
        size_t largest = 0;
        for (const auto &p : split.training)
            largest = std::max(largest, p.schedules.size());
        outcome.error = QStringLiteral("no training batch: %1 training pipeline(s), the largest with %2 distinct "
                                       "schedule(s); a batch needs at least %3")
                            .arg(split.training.size())
                            .arg(largest)
                            .arg(request.minBatch);
        return outcome;
    }
    outcome.trainingPipelines = split.training.size();
    outcome.validationPipelines = split.validation.size();
    for (const auto &p : split.training)
        outcome.trainingSchedules += p.schedules.size();
    for (const auto &p : split.validation)
        outcome.validationSchedules += p.schedules.size();
    if (onLoaded)
        onLoaded(QStringLiteral("training on %1 pipelines (%2 schedules), validating on %3 (%4)%5")
                     .arg(outcome.trainingPipelines)
                     .arg(outcome.trainingSchedules)
                     .arg(outcome.validationPipelines)
                     .arg(outcome.validationSchedules)
                     .arg(split.swapped ? QStringLiteral(" — swapped: every pipeline hashed to validation")
                                        : QString()));
    if (!request.resume)
        fs::remove(checkpoint, ec); // a fresh start must not pick up an older run
    // The output's folder (e.g. the library's "trained" folder on first use) also holds the checkpoint.
    if (!out.parent_path().empty() && !fs::is_directory(out.parent_path(), ec)) {
        fs::create_directories(out.parent_path(), ec);
        if (ec) {
            outcome.error = QStringLiteral("%1: cannot create: %2")
                                .arg(QString::fromStdString(out.parent_path().string()), fromStd(ec.message()));
            return outcome;
        }
    }

    PhaseProgress training(progress, kLoadingShare, 1.0);
    auto run = trainModel(initial, split.training, split.validation, options, &training);
    outcome.history = run.history;
    outcome.epochsCompleted = run.epochsCompleted;
    outcome.resumedEpochs = run.resumedEpochs;
    if (!run.ok()) {
        outcome.error = fromStd(run.error);
        return outcome;
    }
    if (run.cancelled) {
        outcome.cancelled = true;
        return outcome;
    }
    // The output carries the feature versions it was trained for (as the CLI's).
    weights::Weights trained = std::move(run.state.weights);
    trained.pipelineFeaturesVersion = weights::kAnderson2021PipelineVersion;
    trained.scheduleFeaturesVersion = weights::kAnderson2021ScheduleVersion;
    const auto written =
        weights::saveWeightsFile(trained, out, request.replaceOutput ? Overwrite::Replace : Overwrite::Refuse);
    if (!written.ok) {
        outcome.error = fromStd(written.error);
        return outcome;
    }
    fs::remove(checkpoint, ec); // the output now holds what the checkpoint protected
    outcome.ok = true;
    outcome.output = request.output;
    return outcome;
}

} // namespace beamscope::ui
