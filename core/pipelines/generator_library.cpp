#include "core/pipelines/generator_library.h"

#include "core/pipelines/generator_params.h"
#include "core/pipelines/host_target.h"
#include "core/util/key_value.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
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

// One library as loaded: the file it was read from, as it was then, and the
// generators it registered.
struct LoadedLibrary {
    std::filesystem::file_time_type modified;
    std::uintmax_t size = 0;
    std::vector<std::string> generators;
};

// Absolute path -> the library as last loaded. Libraries stay mapped for the
// process's life (Halide keeps pointers into them once their generators are
// registered, and a built pipeline runs their code).
std::map<std::string, LoadedLibrary> &loadedLibraries()
{
    static std::map<std::string, LoadedLibrary> libs;
    return libs;
}

// dlopen names an undefined C++ symbol in its mangled form
// ("undefined symbol: _Z31beamscope_review_missing_symbolv"); a user wrote
// "beamscope_review_missing_symbol()", so that is what the message says.
std::string demangledSymbols(const std::string &message)
{
    std::string out;
    size_t i = 0;
    while (i < message.size()) {
        const size_t at = message.find("_Z", i);
        const bool wordStart = at != std::string::npos && (at == 0 || message[at - 1] == ' ' || message[at - 1] == ':');
        if (!wordStart) {
            const size_t stop = at == std::string::npos ? message.size() : at + 2;
            out += message.substr(i, stop - i);
            i = stop;
            continue;
        }
        out += message.substr(i, at - i);
        size_t end = at;
        while (end < message.size() && message[end] != ' ' && message[end] != ',' && message[end] != ')')
            ++end;
        const std::string mangled = message.substr(at, end - at);
        int status = 0;
        char *plain = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
        out += status == 0 && plain ? std::string(plain) + " (" + mangled + ")" : mangled;
        std::free(plain);
        i = end;
    }
    return out;
}

// A library is loaded from a fresh copy: dlopen of a path already loaded
// returns the old handle, and with it the old code.
std::string freshCopyOf(const std::filesystem::path &library)
{
    static int copies = 0;
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("beamscope-generators-" + std::to_string(::getpid()));
    std::error_code ec;
    fs::create_directories(dir, ec);
    const fs::path copy = dir / (library.stem().string() + "." + std::to_string(++copies) + ".so");
    if (!fs::copy_file(library, copy, fs::copy_options::overwrite_existing, ec))
        throw GeneratorError(library.string() + ": cannot copy the library to " + copy.string() +
                             " to load it: " + ec.message());
    return copy.string();
}

// Halide 14 keeps the steps of GeneratorBase::build_module protected; its
// pipeline is reached through them without build_module's lowering (which
// would lower the default schedule, everything inlined: a deep stencil chain
// then overflows the stack inside Halide). A pointer to a protected member,
// named through a derived class, may be called on any GeneratorBase.
struct GeneratorSteps : Internal::GeneratorBase {
    static Pipeline buildPipeline(Internal::GeneratorBase &generator)
    {
        void (Internal::GeneratorBase::*configure)() = &GeneratorSteps::call_configure;
        Pipeline (Internal::GeneratorBase::*build)() = &GeneratorSteps::build_pipeline;
        (generator.*configure)();
        return (generator.*build)();
    }
};

} // namespace

std::string absoluteLibraryPath(const std::string &path)
{
    // A bare file name means the current folder, never the system library path.
    return std::filesystem::absolute(path).lexically_normal().string();
}

std::vector<std::string> loadGeneratorLibrary(const std::string &path)
{
    namespace fs = std::filesystem;
    const std::string absolute = absoluteLibraryPath(path);
    std::error_code ec;
    if (!fs::exists(absolute, ec))
        throw GeneratorError(absolute + ": cannot load generator library: no such file");
    const auto modified = fs::last_write_time(absolute, ec);
    const std::uintmax_t size = ec ? 0 : fs::file_size(absolute, ec);
    if (ec)
        throw GeneratorError(absolute + ": cannot load generator library: " + ec.message());

    std::lock_guard<std::mutex> lock(libraryMutex());
    auto &libs = loadedLibraries();
    if (auto it = libs.find(absolute); it != libs.end()) {
        if (it->second.modified == modified && it->second.size == size)
            return it->second.generators;
        // Rebuilt since it was loaded: its generators are registered anew by the fresh copy.
        for (const std::string &name : it->second.generators)
            Internal::GeneratorRegistry::unregister_factory(name);
        libs.erase(it);
    }
    // Always from a copy: the code in use is then never the file a rebuild (or a plain
    // cp over it) rewrites in place, which would change the mapped code under the search.
    const std::string loadFrom = freshCopyOf(absolute);
    const std::vector<std::string> before = Internal::GeneratorRegistry::enumerate();
    void *handle = dlopen(loadFrom.c_str(), RTLD_NOW | RTLD_LOCAL);
    fs::remove(loadFrom, ec);                         // the mapping stays; nothing is left behind
    fs::remove(fs::path(loadFrom).parent_path(), ec); // when no other load is under way
    if (!handle) {
        // dlerror names the copy: say the user's file instead.
        const char *error = dlerror();
        std::string why = error ? error : "unknown dlopen error";
        for (size_t at = why.find(loadFrom); at != std::string::npos; at = why.find(loadFrom))
            why.replace(at, loadFrom.size(), absolute);
        throw GeneratorError(absolute + ": cannot load generator library: " + demangledSymbols(why));
    }
    const std::vector<std::string> after = Internal::GeneratorRegistry::enumerate();
    std::vector<std::string> added;
    std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(added));
    if (added.empty())
        throw GeneratorError(absolute + ": the library registered no Halide generators (was it built against Halide "
                                        "14 with HALIDE_REGISTER_GENERATOR, and is it already loaded under another "
                                        "path?)");
    libs[absolute] = LoadedLibrary{modified, size, added};
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

PipelineInstance buildGenerator(const std::string &libraryPath, const std::string &name,
                                const std::map<std::string, std::string> &params)
{
    const std::string path = absoluteLibraryPath(libraryPath);
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
    Pipeline pipeline;
    try {
        pipeline = GeneratorSteps::buildPipeline(*gen);
    } catch (const Halide::Error &e) {
        throw GeneratorError(path + ": generator \"" + name + "\": " + e.what());
    }

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
    // In the order the generator declares its Inputs, as its own compiled function takes them
    // (infer_arguments has its own order): a library compiled here and one the generator
    // program compiled through the plugin take the same arguments.
    p.arguments = pipeline.infer_arguments();
    const std::vector<std::string> declared = inputsFromStub(generatorStub(path, name));
    auto rank = [&](const Argument &a) {
        const auto at = std::find(declared.begin(), declared.end(), a.name);
        return at == declared.end() ? declared.size() : static_cast<size_t>(at - declared.begin());
    };
    std::stable_sort(p.arguments.begin(), p.arguments.end(),
                     [&](const Argument &a, const Argument &b) { return rank(a) < rank(b); });
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
