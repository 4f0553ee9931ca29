#include "core/weights/shipped_weights.h"

#include "core/util/atomic_file.h"
#include "core/util/json.h"
#include "core/util/sha256.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

namespace beamscope::weights {

namespace fs = std::filesystem;

namespace {

// Directories of the files this code runs from: the executable, and the shared
// object it is linked into when that is another file (the plugin).
std::vector<fs::path> ownDirectories()
{
    std::vector<fs::path> dirs;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec)
        dirs.push_back(exe.parent_path());
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(&shippedWeightsFolders), &info) && info.dli_fname && info.dli_fname[0] == '/') {
        const fs::path module = fs::weakly_canonical(info.dli_fname, ec).parent_path();
        if (!ec && std::find(dirs.begin(), dirs.end(), module) == dirs.end())
            dirs.push_back(module);
    }
    return dirs;
}

bool holdsWeights(const fs::path &folder)
{
    std::error_code ec;
    return fs::is_regular_file(folder / "anderson2021" / "baseline.weights", ec);
}

std::string shippedNames()
{
    std::string names;
    for (const ShippedWeights &w : listShippedWeights())
        names += (names.empty() ? "" : ", ") + w.name;
    return names.empty() ? "none found" : names;
}

} // namespace

const std::set<std::string> &holdOneOutApps()
{
    static const std::set<std::string> apps = {
        "bgu",        "bilateral_grid", "camera_pipe",   "conv_layer",  "cuda_mat_mul", "depthwise_separable_conv",
        "harris",     "hist",           "iir_blur",      "interpolate", "lens_blur",    "local_laplacian",
        "max_filter", "nl_means",       "stencil_chain", "unsharp",
    };
    return apps;
}

namespace {
bool untrainedName(const std::string &name) { return name == "baseline" || name == "gpu"; }
} // namespace

std::string describeShippedWeights(const ShippedWeights &weights)
{
    if (weights.holdOneOut)
        return "trained on a V100 without " + weights.name + " (hold-one-out)";
    if (untrainedName(weights.name))
        return weights.name == "baseline" ? "untrained: a uniform random initialisation (Halide's default weights)"
                                          : "untrained: a uniform random initialisation";
    if (weights.name == "adams2019/baseline")
        return "the CPU autoscheduler's (Adams2019) network";
    return {};
}

std::vector<fs::path> shippedWeightsFolders()
{
    std::vector<fs::path> candidates;
    // bin/ and lib/ are one level under the prefix, libexec/beamscope/ and
    // lib/<multiarch>/ two.
    for (const fs::path &dir : ownDirectories())
        for (const char *up : {"..", "../..", "../../.."})
            candidates.push_back(dir / up / "share/beamscope/weights");
            // A build run from its tree uses its own source's weights even where a
            // package is installed too.
#ifdef BEAMSCOPE_SOURCE_WEIGHTS_DIR
    candidates.emplace_back(BEAMSCOPE_SOURCE_WEIGHTS_DIR);
#endif
#ifdef BEAMSCOPE_INSTALL_WEIGHTS_DIR
    candidates.emplace_back(BEAMSCOPE_INSTALL_WEIGHTS_DIR);
#endif
    std::vector<fs::path> found;
    for (const fs::path &candidate : candidates) {
        if (!holdsWeights(candidate))
            continue;
        std::error_code ec;
        const fs::path normal = fs::canonical(candidate, ec);
        if (!ec && std::find(found.begin(), found.end(), normal) == found.end())
            found.push_back(normal);
    }
    return found;
}

std::vector<ShippedWeights> listShippedWeights()
{
    const std::vector<fs::path> folders = shippedWeightsFolders();
    if (folders.empty())
        return {};
    std::vector<ShippedWeights> list;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(folders.front() / "anderson2021", ec))
        if (entry.path().extension() == ".weights") {
            const std::string stem = entry.path().stem().string();
            list.push_back({stem, entry.path(), holdOneOutApps().count(stem) > 0});
        }
    const fs::path adams = folders.front() / "adams2019" / "baseline.weights";
    if (fs::is_regular_file(adams, ec))
        list.push_back({"adams2019/baseline", adams, false});
    // baseline and gpu first, then the per-app files by name.
    std::sort(list.begin(), list.end(), [](const ShippedWeights &a, const ShippedWeights &b) {
        const auto rank = [](const ShippedWeights &w) {
            return w.name == "baseline" ? 0 : w.name == "gpu" ? 1 : w.holdOneOut ? 2 : 3;
        };
        return rank(a) != rank(b) ? rank(a) < rank(b) : a.name < b.name;
    });
    return list;
}

std::optional<fs::path> findShippedWeights(const std::string &name)
{
    std::string wanted = name;
    if (wanted.size() > 8 && wanted.ends_with(".weights"))
        wanted.resize(wanted.size() - 8);
    if (wanted.starts_with("anderson2021/"))
        wanted.erase(0, 13);
    for (const ShippedWeights &w : listShippedWeights())
        if (w.name == wanted)
            return w.path;
    return std::nullopt;
}

std::optional<fs::path> shippedBaselineWeights() { return findShippedWeights("baseline"); }

std::optional<fs::path> holdOneOutWeightsFor(const std::string &app)
{
    if (!holdOneOutApps().count(app))
        return std::nullopt;
    return findShippedWeights(app);
}

namespace {
const std::map<std::string, std::string> &shippedDigests()
{
    // weights/README.md's table (tests/weights checks the files against it): Halide v19.0.0's files.
    static const std::map<std::string, std::string> digests = {
        {"baseline", "e2704ffdbe06aa10146f8eabeb913c72a57c10530980223c9361cb06330e585f"},
        {"gpu", "d07a59756c31c069493aaf2d3afe1ffd5e03bd9fa88b229e0ac7e8ef64554425"},
        {"bgu", "956271109717dd26b2d40de54ee272fe98d3ba8d8389b03e823878a51de7b54f"},
        {"bilateral_grid", "c482972bfa221fa3482da0ccf87183c1b4174a469a7d1c11f3c24b4435f578c1"},
        {"camera_pipe", "e5dcb59d2d50da96659de8bf4abb678f1a2b6ea9888e7bbf0aee92328bab5c37"},
        {"conv_layer", "18ee1ecda40358deebd5292342afcae6a11016bda515d7447e18662cd23395bc"},
        {"cuda_mat_mul", "e7bd995db1b31b2c03e7037e03f39943d38c435eeeefe19a36032b49300fedf1"},
        {"depthwise_separable_conv", "1a659edfaeca1b9bca7069c5293a394fa5a3b563e18e23c8b473f95d03d7b36a"},
        {"harris", "bb4f2faf848a86aca545348975f0195a991a06a649cf0388378265267edd4467"},
        {"hist", "0411855390a916ed78ed9bf7242492e94a6a79a8f09d4aa8eb2d79b050fa407a"},
        {"iir_blur", "7a822fc8d5512386a425e71c9eb4e8a4fb310c7ee21d7aad34b4a1bd9636a11a"},
        {"interpolate", "b5d99bfced63dc73115780debfdeedb745e4a2452f2684c6be2bae74640c98cf"},
        {"lens_blur", "e134dddbc58974f396fa57dd1a6a30cc5e15b07e5a6aff6bf88859697fd923e4"},
        {"local_laplacian", "fd7a9835e581b4c5e4608d5351d852813956f357d7776a47b12cacbc98f5dfb9"},
        {"max_filter", "65415f124b4552396c2942d628e34769427d6e44fae9def3d68a8c0e0b4d4fe7"},
        {"nl_means", "64c392dc0949be723bb1fb137b143857b9634fde0e265482f5f648500839bec3"},
        {"stencil_chain", "4e3bc72f71210e3a9b6b5178445f34ab0fb1b9fa8e9689051d7815c43e0a1754"},
        {"unsharp", "65569275039e93d7bc98baab9384dd8082aaa9242d64251631350aae436607a7"},
        {"adams2019/baseline", "de088dc7285ad431cf3412bb00cc8e86eccc3bb75339e79999d445984d0bc44c"},
    };
    return digests;
}
} // namespace

std::optional<ShippedWeights> identifyShippedWeights(const fs::path &weights)
{
    std::error_code ec;
    // Every shipped file is 20,400 bytes (17,136 for Adams2019's): anything else is not one, unread.
    const auto size = fs::file_size(weights, ec);
    if (ec || (size != 20400 && size != 17136))
        return std::nullopt;
    const std::optional<std::string> digest = sha256FileHex(weights);
    if (!digest)
        return std::nullopt;
    for (const auto &[name, known] : shippedDigests())
        if (known == *digest)
            return ShippedWeights{name, fs::absolute(weights, ec), holdOneOutApps().count(name) > 0};
    return std::nullopt;
}

std::optional<fs::path> shippedWeightsWithDigest(const std::string &sha256)
{
    for (const auto &[name, known] : shippedDigests())
        if (known == sha256)
            return findShippedWeights(name);
    return std::nullopt;
}

bool isUntrainedShippedWeights(const fs::path &weights)
{
    const std::optional<ShippedWeights> shipped = identifyShippedWeights(weights);
    return shipped && !shipped->holdOneOut && untrainedName(shipped->name);
}

std::string describeShippedWeightsFor(const fs::path &weights, const std::string &app)
{
    const std::optional<ShippedWeights> shipped = identifyShippedWeights(weights);
    if (!shipped)
        return {};
    if (shipped->holdOneOut && shipped->name == app)
        return describeShippedWeights(*shipped) + ": an app new to the model";
    if (shipped->holdOneOut && holdOneOutApps().count(app))
        return "trained on a V100 without " + shipped->name + "; " + app + " was among its training apps";
    return describeShippedWeights(*shipped);
}

fs::path trainingRecordPath(const fs::path &weights) { return fs::path(weights.string() + ".training.json"); }

TrainingSet trainingSetOf(const fs::path &weights)
{
    TrainingSet set;
    if (const std::optional<std::string> text = readTextFile(trainingRecordPath(weights))) {
        // A record that does not parse speaks for no app and no pipeline, as it always has.
        set.hasRecord = true;
        const JsonParseResult record = parseJson(*text);
        const Json *apps = record.value ? record.value->find("trained_on_apps") : nullptr;
        if (apps && apps->isArray())
            for (const Json &app : apps->items())
                set.apps.insert(app.toString());
        if (const Json *hashes = record.value ? record.value->find("training_pipeline_hashes") : nullptr)
            for (const Json &hash : hashes->items())
                if (hash.isInteger())
                    set.pipelineHashes.insert(hash.toUint64());
        return set;
    }
    if (const std::optional<ShippedWeights> shipped = identifyShippedWeights(weights); shipped && shipped->holdOneOut)
        set.allHalideAppsBut = shipped->name;
    return set;
}

bool TrainingSet::containsApp(const std::string &app) const
{
    if (hasRecord)
        return apps.count(app) > 0;
    return allHalideAppsBut && holdOneOutApps().count(app) && *allHalideAppsBut != app;
}

bool TrainingSet::containsPipeline(const std::string &app, uint64_t pipelineHash) const
{
    return (!app.empty() && containsApp(app)) || pipelineHashes.count(pipelineHash) > 0;
}

bool trainedOnApp(const fs::path &weights, const std::string &app) { return trainingSetOf(weights).containsApp(app); }

bool trainedOnPipeline(const fs::path &weights, const std::string &app, uint64_t pipelineHash)
{
    return trainingSetOf(weights).containsPipeline(app, pipelineHash);
}

std::optional<DefaultWeights> defaultWeightsFor(const std::vector<std::string> &pipelines)
{
    std::set<std::string> apps, others;
    for (const std::string &p : pipelines)
        (holdOneOutApps().count(p) ? apps : others).insert(p);
    if (apps.size() == 1 && others.empty()) {
        const std::string &app = *apps.begin();
        if (const auto path = holdOneOutWeightsFor(app))
            return DefaultWeights{*path, app + ".weights: the hold-one-out file for " + app +
                                             " (trained on a V100 without it), the fair model for judging it"};
    }
    // No single shipped file leaves out every app named: the first per-app file that leaves out one of
    // them, else the first per-app file, and the reason says what it was trained on.
    std::optional<ShippedWeights> chosen;
    for (const ShippedWeights &w : listShippedWeights())
        if (w.holdOneOut && (!chosen || (apps.count(w.name) && !apps.count(chosen->name))))
            chosen = w;
    if (!chosen)
        return std::nullopt;
    std::string reason = chosen->name + ".weights: ";
    if (apps.empty())
        reason += pipelines.empty() ? "a trained file (the untrained baseline and gpu files are never the default)"
                                    : "no shipped file was trained on these pipelines, so every per-app file "
                                      "judges them fairly; this is the first";
    else {
        std::string trainedOn;
        for (const std::string &app : apps)
            if (app != chosen->name)
                trainedOn += (trainedOn.empty() ? "" : ", ") + app;
        reason += "no single shipped file was trained without all of the apps named; this one was trained on " +
                  (trainedOn.empty() ? std::string("none of them") : trainedOn);
    }
    return DefaultWeights{chosen->path, reason};
}

fs::path resolveWeightsArgument(const std::optional<std::string> &explicitArgument,
                                const std::optional<std::string> &weightsDir, std::string &error, std::string *note,
                                const std::vector<std::string> *pipelines)
{
    std::error_code ec;
    if (explicitArgument) {
        if (fs::exists(*explicitArgument, ec))
            return *explicitArgument;
        if (const auto shipped = findShippedWeights(*explicitArgument))
            return *shipped;
        error = *explicitArgument +
                ": no such file, nor a shipped weights file of that name (shipped: " + shippedNames() + ")";
        return {};
    }
    if (const char *env = std::getenv("BEAMSCOPE_WEIGHTS_PATH"); env && *env)
        return env;
    if (weightsDir) {
        const fs::path p = fs::path(*weightsDir) / "baseline.weights";
        if (fs::exists(p, ec))
            return p;
        error = p.string() + ": no such file (--weights-dir must hold baseline.weights)";
        return {};
    }
    if (pipelines && !pipelines->empty())
        if (const std::optional<DefaultWeights> chosen = defaultWeightsFor(*pipelines)) {
            if (note)
                *note = "no --weights given: using " + chosen->reason + " (" + chosen->path.string() + ")";
            return chosen->path;
        }
    if (const auto baseline = shippedBaselineWeights()) {
        if (note)
            *note = "no --weights given: using the shipped baseline.weights (" + baseline->string() +
                    "; Halide's default, an untrained initialisation)";
        return *baseline;
    }
    error = "no weights given and no shipped weights found beside this program: pass --weights FILE "
            "(Beamscope never falls back to random weights)";
    return {};
}

} // namespace beamscope::weights
