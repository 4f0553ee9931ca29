#include "core/pipelines/generator_library.h"

#include "core/pipelines/host_target.h"
#include "core/util/key_value.h"

#include <dlfcn.h>

#include <algorithm>
#include <mutex>
#include <set>

namespace beamscope::pipelines {

using namespace Halide;

namespace {

std::mutex &libraryMutex()
{
    static std::mutex m;
    return m;
}

// path -> generators it registered; libraries stay loaded for the process's life
// (Halide keeps pointers into them once their generators are registered).
std::map<std::string, std::vector<std::string>> &loadedLibraries()
{
    static std::map<std::string, std::vector<std::string>> libs;
    return libs;
}

} // namespace

std::vector<std::string> loadGeneratorLibrary(const std::string &path)
{
    std::lock_guard<std::mutex> lock(libraryMutex());
    auto &libs = loadedLibraries();
    if (auto it = libs.find(path); it != libs.end())
        return it->second;
    const std::vector<std::string> before = Internal::GeneratorRegistry::enumerate();
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        throw GeneratorError(path + ": cannot load generator library: " + (why ? why : "unknown dlopen error"));
    }
    const std::vector<std::string> after = Internal::GeneratorRegistry::enumerate();
    std::vector<std::string> added;
    std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(added));
    if (added.empty())
        throw GeneratorError(path + ": the library registered no Halide generators (was it built against Halide 14 "
                                    "with HALIDE_REGISTER_GENERATOR, and is it already loaded under another path?)");
    libs[path] = added;
    return added;
}

std::map<std::string, std::string> parseGeneratorParams(const std::vector<std::string> &entries)
{
    std::string error;
    auto params = parseKeyValues(entries, &error);
    if (!params)
        throw GeneratorError(error);
    return std::move(*params);
}

PipelineInstance buildGenerator(const std::string &path, const std::string &name,
                                const std::map<std::string, std::string> &params)
{
    const std::vector<std::string> names = loadGeneratorLibrary(path);
    if (std::find(names.begin(), names.end(), name) == names.end()) {
        std::string list;
        for (const std::string &n : names)
            list += (list.empty() ? "" : ", ") + n;
        throw GeneratorError(path + ": no generator named \"" + name + "\" (the library has: " + list + ")");
    }
    const Target target = hostTarget();
    std::unique_ptr<Internal::GeneratorBase> gen = Internal::GeneratorRegistry::create(name, GeneratorContext(target));
    // One at a time, so a value Halide cannot parse is named with its parameter.
    for (const auto &[k, v] : params)
        try {
            gen->set_generator_param_values({{k, v}});
        } catch (const Halide::Error &e) {
            std::string why = e.what();
            while (!why.empty() && (why.back() == '\n' || why.back() == ' '))
                why.pop_back();
            throw GeneratorError(path + ": generator \"" + name + "\": parameter " + k + "=" + v + ": " + why);
        }
    try {
        // Halide 14 keeps build_pipeline() protected: build_module() runs
        // generate() (and lowers once), after which the Pipeline is available.
        gen->build_module(name);
    } catch (const Halide::Error &e) {
        throw GeneratorError(path + ": generator \"" + name + "\": " + e.what());
    }
    Pipeline pipeline = gen->get_pipeline();

    PipelineInstance p;
    p.name = name;
    p.outputs = pipeline.outputs();
    for (const Func &out : p.outputs) {
        const auto &estimates = out.function().schedule().estimates();
        for (int d = 0; d < out.dimensions(); d++) {
            const std::string var = out.function().args()[static_cast<size_t>(d)];
            const bool has =
                std::any_of(estimates.begin(), estimates.end(), [&](const Internal::Bound &b) { return b.var == var; });
            if (!has)
                throw GeneratorError(path + ": generator \"" + name + "\": output \"" + out.name() +
                                     "\" has no estimate on dimension " + std::to_string(d) + " (" + var +
                                     "); set_estimates on every output");
        }
    }
    p.arguments = pipeline.infer_arguments();
    for (const Argument &a : p.arguments) {
        if (a.is_buffer()) {
            for (int d = 0; d < a.dimensions; d++) {
                const auto &b = a.argument_estimates.buffer_estimates;
                if (static_cast<int>(b.size()) <= d || !b[static_cast<size_t>(d)].min.defined() ||
                    !b[static_cast<size_t>(d)].extent.defined())
                    throw GeneratorError(path + ": generator \"" + name + "\": input \"" + a.name +
                                         "\" has no estimate on dimension " + std::to_string(d));
            }
        } else if (!a.argument_estimates.scalar_estimate.defined()) {
            throw GeneratorError(path + ": generator \"" + name + "\": input \"" + a.name + "\" has no estimate");
        }
    }
    // The generator object owns the pipeline's Inputs; keep it alive with the instance.
    std::shared_ptr<Internal::GeneratorBase> owner(std::move(gen));
    p.applyGpuSchedule = [owner](const Target &) {
        throw GeneratorError("generator pipelines have no hand-written GPU schedule");
    };
    return p;
}

} // namespace beamscope::pipelines
