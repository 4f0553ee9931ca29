#include "core/autotune/recorded_run.h"

#include "core/util/atomic_file.h"
#include "core/util/json.h"
#include "core/util/sha256.h"
#include "core/weights/shipped_weights.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace beamscope::autotune {

namespace fs = std::filesystem;

namespace {

std::string text(double v)
{
    std::ostringstream s;
    s << v;
    return s.str();
}

// "box_blur = app box_blur", "random_12_4 = random seed 12", "gen = generator LIB gen k=v".
void readPipelines(const Json &list, AutotuneRequest &r)
{
    for (const Json &entry : list.items()) {
        const std::string line = entry.toString();
        const size_t eq = line.find(" = ");
        if (eq == std::string::npos)
            continue;
        const std::string name = line.substr(0, eq), source = line.substr(eq + 3);
        if (source.starts_with("app ")) {
            r.apps.push_back(source.substr(4));
        } else if (source.starts_with("random seed ")) {
            ++r.randomPipelines;
            if (const size_t under = name.rfind('_'); under != std::string::npos)
                r.randomStages = std::atoi(name.c_str() + under + 1);
        } else if (source.starts_with("generator ")) {
            std::istringstream words(source.substr(10));
            words >> r.generatorLibrary >> r.generatorName;
            for (std::string kv; words >> kv;)
                if (const size_t at = kv.find('='); at != std::string::npos)
                    r.generatorParams[kv.substr(0, at)] = kv.substr(at + 1);
        }
    }
}

} // namespace

std::optional<RecordedRun> readRecordedRun(const fs::path &folder, std::string &error)
{
    const fs::path manifestPath = folder / "manifest.json";
    const std::optional<std::string> content = readTextFile(manifestPath);
    if (!content) {
        error = manifestPath.string() + ": cannot be read";
        return std::nullopt;
    }
    const JsonParseResult parsed = parseJson(*content);
    if (!parsed.value || !parsed.value->isObject()) {
        error = manifestPath.string() + ": " + (parsed.value ? "not a JSON object" : parsed.error);
        return std::nullopt;
    }
    const Json &m = *parsed.value;
    const Json *p = m.find("parameters");
    if (!p || !p->isObject()) {
        error = manifestPath.string() + ": field 'parameters' is missing";
        return std::nullopt;
    }
    RecordedRun run;
    AutotuneRequest &r = run.request;
    r.outDir = folder.string();
    const auto number = [&](const char *key, double fallback) {
        const Json *v = p->find(key);
        return v ? v->toNumber(fallback) : fallback;
    };
    const auto flag = [&](const char *key, bool fallback) {
        const Json *v = p->find(key);
        return v ? v->toBool(fallback) : fallback;
    };
    if (const Json *list = p->find("pipelines"))
        readPipelines(*list, r);
    if (const Json *device = m.find("device"); device && device->find("kind"))
        r.target = device->find("kind")->toString();
    if (const Json *profile = m.find("device") ? m.find("device")->find("search_profile") : nullptr)
        r.profile = profile->toString();
    r.batchSize = static_cast<int>(number("batch_size", r.batchSize));
    if (const Json *seed = p->find("seed"))
        r.seed = std::strtoull(seed->toString().c_str(), nullptr, 10); // written as text: 64 bits
    r.firstBeamSize = static_cast<int>(number("first_beam_size", r.firstBeamSize));
    r.otherDropout = static_cast<int>(number("other_random_dropout", r.otherDropout));
    r.randomizeTilings = flag("randomize_tilings", r.randomizeTilings);
    r.freezeInlineComputeRoot = flag("freeze_inline_compute_root", r.freezeInlineComputeRoot);
    r.retrain = flag("retrain", r.retrain);
    r.epochs = static_cast<int>(number("epochs", r.epochs));
    r.learningRate = static_cast<float>(number("learning_rate", r.learningRate));
    r.minBatch = static_cast<int>(number("min_batch", r.minBatch));
    r.reps = static_cast<int>(number("benchmark_reps", r.reps));
    r.warmup = static_cast<int>(number("benchmark_warmup", r.warmup));
    r.scale = number("benchmark_scale", r.scale);
    if (const Json *sha = p->find("starting_weights_sha256"))
        run.startingWeightsSha256 = sha->toString();

    // The batches the folder holds, so the form asks for no fewer.
    std::error_code ec;
    int batches = 0;
    for (const auto &entry : fs::directory_iterator(folder, ec))
        if (entry.is_directory() && entry.path().filename().string().starts_with("batch_"))
            batches = std::max(batches, std::atoi(entry.path().filename().string().c_str() + 6) + 1);
    r.batches = std::max(1, batches);

    // The starting weights by content: the recorded path while it still holds them, else a shipped
    // file with the same content (a run made with an installed package, opened from a build tree).
    const Json *startingWeights = m.find("starting_weights");
    const std::string recordedPath =
        startingWeights && startingWeights->find("path") ? startingWeights->find("path")->toString() : std::string();
    if (!recordedPath.empty() && sha256FileHex(recordedPath) == std::optional(run.startingWeightsSha256)) {
        r.weights = recordedPath;
    } else {
        if (const auto shipped = weights::shippedWeightsWithDigest(run.startingWeightsSha256))
            r.weights = shipped->string();
        run.weightsNote = r.weights.empty()
                              ? "the run's starting weights (" + recordedPath + ", sha256 " +
                                    run.startingWeightsSha256.substr(0, 12) + "…) are not here"
                              : "the run's starting weights " + recordedPath + " are gone or changed; the shipped " +
                                    fs::path(r.weights).filename().string() + " has their content";
    }
    return run;
}

std::vector<SettingDifference> differingSettings(const RecordedRun &run, const AutotuneRequest &q)
{
    const AutotuneRequest &r = run.request;
    std::vector<SettingDifference> out;
    const auto check = [&](const char *key, const std::string &was, const std::string &now) {
        if (was != now)
            out.push_back({key, was, now});
    };
    const auto join = [](std::vector<std::string> v) {
        std::sort(v.begin(), v.end());
        std::string s;
        for (const std::string &x : v)
            s += (s.empty() ? "" : ", ") + x;
        return s.empty() ? std::string("none") : s;
    };
    const auto yes = [](bool b) { return std::string(b ? "on" : "off"); };
    check("apps", join(r.apps), join(q.apps));
    check("random_pipelines", std::to_string(r.randomPipelines), std::to_string(q.randomPipelines));
    check("generator", r.generatorLibrary + " " + r.generatorName, q.generatorLibrary + " " + q.generatorName);
    const std::string askedSha = q.weights.empty() ? std::string() : sha256FileHex(q.weights).value_or("unreadable");
    if (!askedSha.empty() && askedSha != run.startingWeightsSha256)
        out.push_back({"starting_weights_sha256", run.startingWeightsSha256.substr(0, 12) + "…",
                       fs::path(q.weights).filename().string() + " (" + askedSha.substr(0, 12) + "…)"});
    check("target", r.target, q.target);
    check("batch_size", std::to_string(r.batchSize), std::to_string(q.batchSize));
    check("seed", std::to_string(r.seed), std::to_string(q.seed));
    check("first_beam_size", std::to_string(r.firstBeamSize), std::to_string(q.firstBeamSize));
    check("other_random_dropout", std::to_string(r.otherDropout), std::to_string(q.otherDropout));
    check("randomize_tilings", yes(r.randomizeTilings), yes(q.randomizeTilings));
    check("freeze_inline_compute_root", yes(r.freezeInlineComputeRoot), yes(q.freezeInlineComputeRoot));
    check("retrain", yes(r.retrain), yes(q.retrain));
    check("epochs", std::to_string(r.epochs), std::to_string(q.epochs));
    check("learning_rate", text(r.learningRate), text(q.learningRate));
    check("min_batch", std::to_string(r.minBatch), std::to_string(q.minBatch));
    check("benchmark_reps", std::to_string(r.reps), std::to_string(q.reps));
    check("benchmark_warmup", std::to_string(r.warmup), std::to_string(q.warmup));
    check("benchmark_scale", text(r.scale), text(q.scale));
    return out;
}

} // namespace beamscope::autotune
