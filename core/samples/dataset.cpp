#include "core/samples/dataset.h"

#include "core/samples/apps_file.h"
#include "core/util/progress.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>

namespace beamscope::samples {

namespace fs = std::filesystem;

namespace {

constexpr const char *kAppsFile = "apps.tsv";

bool isSampleFile(const fs::path &path) { return path.extension() == ".sample"; }

std::string describeFloat(float value)
{
    std::ostringstream out;
    out.precision(9);
    out << value;
    return out.str();
}

} // namespace

SampleListing listSamples(const std::vector<fs::path> &roots)
{
    SampleListing listing;
    for (const auto &root : roots) {
        std::error_code ec;
        const auto status = fs::status(root, ec);
        if (ec || !fs::exists(status)) {
            listing.errors.push_back(root.string() + ": no such file or directory");
            continue;
        }
        if (fs::is_regular_file(status)) {
            if (!isSampleFile(root)) {
                listing.errors.push_back(root.string() + ": expected a .sample file or a folder of them");
                continue;
            }
            listing.files.push_back({root, {}, nullptr});
            continue;
        }
        std::map<int32_t, std::string> apps;
        const auto appsFile = root / kAppsFile;
        if (fs::exists(appsFile) && !readAppsTsv(appsFile, apps, listing.errors))
            continue;

        std::vector<fs::path> found;
        for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
             !ec && it != end; it.increment(ec)) {
            // A Slurm run's unmerged shards (docs/slurm.md): their samples are
            // in the run folder once merged, and only once.
            if (it->is_directory(ec) && fs::exists(it->path() / kNotSamplesMarker, ec)) {
                it.disable_recursion_pending();
                continue;
            }
            if (it->is_regular_file(ec) && isSampleFile(it->path()))
                found.push_back(it->path());
        }
        if (ec) {
            listing.errors.push_back(root.string() + ": cannot list: " + ec.message());
            continue;
        }
        std::sort(found.begin(), found.end());
        // The pipeline id is only known once a file is read, so apps.tsv travels
        // with the files of its root.
        auto appsById =
            apps.empty() ? nullptr : std::make_shared<const std::map<int32_t, std::string>>(std::move(apps));
        for (auto &file : found) {
            // The first folder below the root names the app; apps.tsv may override
            // it per pipeline id once the id is known (buildDataset).
            const auto relative = file.lexically_relative(root);
            std::string app;
            if (std::distance(relative.begin(), relative.end()) > 1)
                app = relative.begin()->string();
            listing.files.push_back({std::move(file), std::move(app), appsById});
        }
    }
    return listing;
}

std::string pipelineNameFromFile(const fs::path &file)
{
    std::string stem = file.stem().string();
    // A trailing counter, with the word that introduces it: _seed001, _beam32, _batch_3, _0042, -7.
    size_t end = stem.size();
    while (end > 0 && std::isdigit(static_cast<unsigned char>(stem[end - 1])))
        --end;
    if (end == stem.size())
        return stem;
    stem.resize(end);
    for (const std::string_view word : {"seed", "beam", "batch", "schedule", "sample", "run", "s", "b"}) {
        const size_t at = stem.size() - std::min(stem.size(), word.size());
        if (at > 0 && stem.ends_with(word) && (stem[at - 1] == '_' || stem[at - 1] == '-')) {
            stem.resize(at);
            break;
        }
    }
    while (!stem.empty() && (stem.back() == '_' || stem.back() == '-' || stem.back() == '.'))
        stem.pop_back();
    return stem;
}

std::string implausibility(const Sample &sample)
{
    if (!(sample.runtimeMs > 0) || std::isinf(sample.runtimeMs))
        return "runtime " + describeFloat(sample.runtimeMs) + " ms is not a positive finite number";
    if (sample.runtimeMs > kMaxRuntimeMs)
        return "runtime " + describeFloat(sample.runtimeMs) + " ms is over Halide's limit of 100000 ms";
    for (int stage = 0; stage < sample.stageCount(); ++stage) {
        const auto features = sample.scheduleFeatures(stage);
        for (int i = 0; i < kScheduleFeatureCount; ++i) {
            const float f = features[static_cast<size_t>(i)];
            if (f < 0 || f > kMaxScheduleFeature || std::isnan(f))
                return "schedule feature " + std::to_string(i) + " of stage " + std::to_string(stage) + " is " +
                       describeFloat(f) + " (expected 0..1e14; negative, NaN or huge means an overflow)";
        }
    }
    return {};
}

size_t PipelineSet::fastestIndex() const
{
    size_t best = 0;
    for (size_t i = 1; i < schedules.size(); ++i)
        if (schedules[i].bestRuntimeMs() < schedules[best].bestRuntimeMs())
            best = i;
    return best;
}

size_t PipelineSet::runCount() const
{
    size_t count = 0;
    for (const auto &schedule : schedules)
        count += schedule.runtimesMs.size();
    return count;
}

const PipelineSet *Dataset::find(int32_t pipelineId) const
{
    auto it = std::lower_bound(pipelines.begin(), pipelines.end(), pipelineId,
                               [](const PipelineSet &p, int32_t id) { return p.pipelineId < id; });
    return it != pipelines.end() && it->pipelineId == pipelineId ? &*it : nullptr;
}

size_t Dataset::scheduleCount() const
{
    size_t count = 0;
    for (const auto &pipeline : pipelines)
        count += pipeline.schedules.size();
    return count;
}

std::vector<std::string> Dataset::apps() const
{
    std::set<std::string> names;
    for (const auto &pipeline : pipelines)
        if (!pipeline.app.empty())
            names.insert(pipeline.app);
    return {names.begin(), names.end()};
}

namespace {

struct PipelineBuilder {
    PipelineSet set;
    fs::path firstFile;
    std::map<uint64_t, ScheduleEntry> schedules; // Halide keys schedules by hash in a std::map
};

std::string appFor(const SampleSource &source, int32_t pipelineId)
{
    if (source.appsById) {
        auto it = source.appsById->find(pipelineId);
        if (it != source.appsById->end())
            return it->second;
    }
    return source.app;
}

// Halide reports (but keeps) negative or NaN pipeline features; so do we.
void checkPipelineFeatures(const Sample &sample, const fs::path &file, std::vector<DatasetWarning> &warnings)
{
    for (int stage = 0; stage < sample.stageCount(); ++stage)
        for (int row = 0; row < kPipelineFeatureRows; ++row)
            for (int type = 0; type < kPipelineFeatureTypes; ++type) {
                const float f = sample.pipelineFeature(stage, row, type);
                if (f < 0 || std::isnan(f)) {
                    warnings.push_back({file, "pipeline feature (stage " + std::to_string(stage) + ", row " +
                                                  std::to_string(row) + ", type " + std::to_string(type) + ") is " +
                                                  describeFloat(f) + " (expected a count >= 0); kept, as Halide does"});
                    return;
                }
            }
}

} // namespace

Dataset buildDataset(const std::vector<SampleSource> &files, Progress *progress)
{
    Dataset dataset;
    std::map<int32_t, PipelineBuilder> builders;
    for (size_t index = 0; index < files.size(); ++index) {
        const auto &source = files[index];
        if (progress) {
            if (progress->cancelled()) {
                dataset.cancelled = true;
                break;
            }
            if (index % 256 == 0)
                progress->report(static_cast<double>(index) / static_cast<double>(files.size()),
                                 "reading samples (" + std::to_string(index) + "/" + std::to_string(files.size()) +
                                     ")");
        }
        ++dataset.filesRead;
        auto read = readSample(source.file);
        if (!read.ok()) {
            dataset.skipped.push_back({source.file, read.error});
            continue;
        }
        const Sample &sample = *read.sample;
        if (auto reason = implausibility(sample); !reason.empty()) {
            dataset.skipped.push_back({source.file, reason});
            continue;
        }

        auto [it, isNew] = builders.try_emplace(sample.pipelineId);
        PipelineBuilder &builder = it->second;
        const std::string app = appFor(source, sample.pipelineId);
        const std::string fileName = pipelineNameFromFile(source.file);
        if (isNew) {
            builder.set.pipelineId = sample.pipelineId;
            builder.set.app = app;
            builder.set.fileName = fileName;
            builder.set.stageCount = sample.stageCount();
            builder.set.pipelineFeatures = pipelineFeaturesOf(sample);
            builder.set.pipelineHash = pipelineHash(sample);
            builder.firstFile = source.file;
            checkPipelineFeatures(sample, source.file, dataset.warnings);
        } else {
            if (fileName != builder.set.fileName)
                builder.set.fileName.clear(); // the files disagree: no name
            // Halide trusts that every sample of a pipeline id has its stage
            // count; a mismatch would make it read past the schedule buffer.
            if (sample.stageCount() != builder.set.stageCount) {
                dataset.skipped.push_back({source.file, "pipeline " + std::to_string(sample.pipelineId) + " has " +
                                                            std::to_string(builder.set.stageCount) + " stages in " +
                                                            builder.firstFile.string() + " but this sample has " +
                                                            std::to_string(sample.stageCount())});
                continue;
            }
            if (pipelineFeaturesOf(sample) != builder.set.pipelineFeatures)
                dataset.warnings.push_back({source.file, "pipeline features differ from those of " +
                                                             builder.firstFile.string() +
                                                             " (same pipeline id); the first file's are used"});
            if (app != builder.set.app)
                dataset.warnings.push_back({source.file, "app \"" + app + "\" differs from \"" + builder.set.app +
                                                             "\" given for pipeline " +
                                                             std::to_string(sample.pipelineId) + " by " +
                                                             builder.firstFile.string() + "; the first is used"});
        }

        const uint64_t hash = scheduleHash(sample);
        auto [entryIt, newSchedule] = builder.schedules.try_emplace(hash);
        ScheduleEntry &entry = entryIt->second;
        if (newSchedule) {
            entry.file = source.file;
            entry.scheduleId = sample.scheduleId;
            entry.hash = hash;
            entry.runtimesMs.push_back(sample.runtimeMs);
            entry.features = scheduleFeaturesOf(sample);
        } else if (sample.runtimeMs < entry.runtimesMs.front()) {
            // Keep the fastest run first and name its file (as Halide does).
            entry.runtimesMs.push_back(entry.runtimesMs.front());
            entry.runtimesMs.front() = sample.runtimeMs;
            entry.duplicates.push_back(entry.file);
            entry.file = source.file;
            entry.scheduleId = sample.scheduleId;
        } else {
            entry.runtimesMs.push_back(sample.runtimeMs);
            entry.duplicates.push_back(source.file);
        }
        ++dataset.samplesUsed;
    }
    for (auto &[id, builder] : builders) {
        builder.set.schedules.reserve(builder.schedules.size());
        for (auto &[hash, entry] : builder.schedules)
            builder.set.schedules.push_back(std::move(entry));
        dataset.pipelines.push_back(std::move(builder.set));
    }
    if (progress && !dataset.cancelled)
        progress->report(1.0, "read " + std::to_string(dataset.filesRead) + " samples");
    return dataset;
}

Split splitLikeHalide(const Dataset &dataset, SplitMode mode)
{
    Split split;
    for (const auto &pipeline : dataset.pipelines) {
        if (mode == SplitMode::ByPipeline) {
            ((pipeline.pipelineHash & 7) == 0 ? split.validation : split.training).push_back(pipeline);
            continue;
        }
        PipelineSet training = pipeline, validation = pipeline;
        training.schedules.clear();
        validation.schedules.clear();
        for (const auto &schedule : pipeline.schedules)
            ((schedule.hash & 7) == 0 ? validation : training).schedules.push_back(schedule);
        if (!training.schedules.empty())
            split.training.push_back(std::move(training));
        if (!validation.schedules.empty())
            split.validation.push_back(std::move(validation));
    }
    if (split.training.empty()) {
        std::swap(split.training, split.validation);
        split.swapped = true;
    }
    return split;
}

Split holdOutApp(const Dataset &dataset, const std::string &app)
{
    Split split;
    for (const auto &pipeline : dataset.pipelines)
        (pipeline.app == app ? split.validation : split.training).push_back(pipeline);
    return split;
}

std::vector<Batch> makeBatches(const std::vector<PipelineSet> &set, const BatchOptions &options)
{
    std::vector<Batch> batches;
    const size_t maxSize = std::max<size_t>(options.maxSize, 1);
    for (size_t p = 0; p < set.size(); ++p) {
        const size_t count = set[p].schedules.size();
        for (size_t first = 0; first < count; first += maxSize) {
            const size_t size = std::min(count, first + maxSize) - first;
            if (size >= options.minSize)
                batches.push_back({p, first, size});
        }
    }
    return batches;
}

} // namespace beamscope::samples

namespace beamscope::samples {

LoadedSamples loadSamples(const std::vector<std::filesystem::path> &roots, Progress *progress)
{
    LoadedSamples loaded;
    auto listing = listSamples(roots);
    if (!listing.ok()) {
        loaded.errors = std::move(listing.errors);
        return loaded;
    }
    loaded.dataset = buildDataset(listing.files, progress);
    return loaded;
}

} // namespace beamscope::samples
