#include "core/weights/shipped_weights.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
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
// The shipped file `weights` is, when it is one.
std::optional<ShippedWeights> shippedEntryOf(const fs::path &weights)
{
    std::error_code ec;
    const fs::path normal = fs::weakly_canonical(weights, ec);
    if (ec)
        return std::nullopt;
    for (ShippedWeights &w : listShippedWeights())
        if (w.path == normal)
            return std::move(w);
    return std::nullopt;
}
} // namespace

bool isUntrainedShippedWeights(const fs::path &weights)
{
    const std::optional<ShippedWeights> shipped = shippedEntryOf(weights);
    return shipped && !shipped->holdOneOut && untrainedName(shipped->name);
}

std::string describeShippedWeightsFor(const fs::path &weights, const std::string &app)
{
    const std::optional<ShippedWeights> shipped = shippedEntryOf(weights);
    if (!shipped)
        return {};
    if (shipped->holdOneOut && shipped->name == app)
        return describeShippedWeights(*shipped) + ": an app new to the model";
    if (shipped->holdOneOut && holdOneOutApps().count(app))
        return "trained on a V100 without " + shipped->name + "; " + app + " was among its training apps";
    return describeShippedWeights(*shipped);
}

fs::path resolveWeightsArgument(const std::optional<std::string> &explicitArgument,
                                const std::optional<std::string> &weightsDir, std::string &error, std::string *note)
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
