#include "core/bench/compile.h"

#include "core/bench/uniform_barriers.h"

#include "core/util/child_process.h"
#include "core/util/progress.h"

#include <atomic>
#include <cctype>
#include <chrono>
#include <dlfcn.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace beamscope::bench {

namespace fs = std::filesystem;

namespace {

// Bump when the shape of what is cached changes (link flags, entry points).
// 2: pipelines compiled without Halide's runtime, linked with a cached one.
constexpr const char *kCacheFormat = "beamscope-bench-2";

// Two independent 64-bit FNV-1a streams: a 128-bit key, plenty for a cache
// where a collision would only mean recompiling... or, worse, running the
// wrong code, which is why it is not one 64-bit stream.
struct Hasher {
    uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;
    void add(std::string_view s)
    {
        for (unsigned char c : s) {
            a = (a ^ c) * 0x100000001b3ULL;
            b = (b ^ c) * 0x100000001b3ULL + 1;
        }
        a = (a ^ 0xff) * 0x100000001b3ULL; // separator, so ("ab","c") != ("a","bc")
        b = (b ^ 0xfe) * 0x100000001b3ULL;
    }
    std::string hex() const
    {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a),
                      static_cast<unsigned long long>(b));
        return buf;
    }
};

std::string readAll(const fs::path &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string uniqueSuffix()
{
    static std::atomic<unsigned> counter{0};
    return std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
}

// The same pipeline built twice in one process lowers to text that differs
// only in names from Halide's global counters: a reused Func name gets a
// suffix ("blur_y$1"), the module and function are named after it
// ("blur_y_1"), and unnamed things are numbered process-wide: temporaries
// "t19", Vars "v12", Funcs "f3". Drop the suffixes and the naming lines, and
// number the letter+digits names by first use, so equal algorithms with equal
// schedules map to one key. A consistent renaming of names only relabels a
// program, it cannot make two different programs look the same.
std::string normalisedStmt(const std::string &stmt)
{
    std::string out;
    out.reserve(stmt.size());
    std::map<std::string, std::string> temporaries;
    auto isIdent = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    size_t i = 0;
    if (stmt.rfind("module name=", 0) == 0) {
        const size_t eol = stmt.find('\n');
        i = eol == std::string::npos ? stmt.size() : eol + 1;
    }
    // "external_plus_metadata func NAME (args) {": keep from the argument list on.
    const size_t eol = stmt.find('\n', i);
    const size_t func = stmt.find(" func ", i), paren = stmt.find('(', i);
    if (func != std::string::npos && paren != std::string::npos && func < eol && paren < eol)
        i = paren;
    while (i < stmt.size()) {
        if (stmt[i] == '$' && i + 1 < stmt.size() && std::isdigit(static_cast<unsigned char>(stmt[i + 1]))) {
            ++i;
            while (i < stmt.size() && std::isdigit(static_cast<unsigned char>(stmt[i])))
                ++i;
            continue;
        }
        if (!isIdent(stmt[i])) {
            out += stmt[i++];
            continue;
        }
        size_t j = i;
        while (j < stmt.size() && isIdent(stmt[j]))
            ++j;
        const std::string token = stmt.substr(i, j - i);
        const bool temporary = token.size() > 1 && std::islower(static_cast<unsigned char>(token[0])) &&
                               token.find_first_not_of("0123456789", 1) == std::string::npos;
        if (temporary) {
            auto [it, inserted] = temporaries.try_emplace(token, "");
            if (inserted)
                it->second = "#" + std::to_string(temporaries.size());
            out += it->second;
        } else {
            out += token;
        }
        i = j;
    }
    return out;
}

void applySchedule(pipelines::PipelineInstance &instance, const Schedule &schedule, const Halide::Target &target)
{
    switch (schedule.kind) {
    case ScheduleKind::Unscheduled: break;
    case ScheduleKind::ComputeRoot:
        for (const auto &out : instance.outputs)
            for (const auto &[name, function] : Halide::Internal::find_transitive_calls(out.function()))
                Halide::Func(function).compute_root();
        break;
    case ScheduleKind::Gpu:
        if (!instance.applyGpuSchedule)
            throw std::runtime_error("pipeline '" + instance.name + "' has no GPU schedule");
        instance.applyGpuSchedule(target);
        break;
    case ScheduleKind::Custom:
        if (!schedule.apply)
            throw std::runtime_error("custom schedule '" + schedule.label + "' has no function");
        schedule.apply(instance, target);
        break;
    }
}

// Which libHalide this process runs (its path, size and time): the runtime it
// generates is cached under it, so an upgraded Halide never links an old runtime.
std::string halideBuildIdentity()
{
    static const std::string identity = [] {
        Dl_info info{};
        // Any exported function of libHalide names the library it was loaded from.
        void (*const halideFunction)(const std::string &, const Halide::Target &) = &Halide::compile_standalone_runtime;
        if (dladdr(reinterpret_cast<void *>(halideFunction), &info) == 0 || !info.dli_fname)
            return std::string("halide14-unknown");
        std::error_code ec;
        const fs::path lib = fs::canonical(info.dli_fname, ec);
        const auto size = ec ? 0 : fs::file_size(lib, ec);
        const auto time = ec ? fs::file_time_type{} : fs::last_write_time(lib, ec);
        return lib.string() + ":" + std::to_string(size) + ":" + std::to_string(time.time_since_epoch().count());
    }();
    return identity;
}

// Halide's runtime (device API, buffers, threads) for one target, compiled once
// and kept in the cache folder. Compiled into every pipeline it took over 90% of
// a small pipeline's compile time (0.95 s of 1.0 s for a three-Func OpenCL
// blur on this project's 2-core machine); each library still links its own
// copy, so libraries loaded side by side keep separate runtimes.
fs::path runtimeObjectFor(const Halide::Target &target, const fs::path &dir)
{
    const Halide::Target runtimeTarget = target.without_feature(Halide::Target::NoRuntime);
    Hasher key;
    key.add(kCacheFormat);
    key.add("runtime");
    key.add(runtimeTarget.to_string());
    key.add(halideBuildIdentity());
    const fs::path object = dir / ("runtime-" + key.hex() + ".o");
    // One compile per target in this process; other processes may race, and
    // each renames a complete object into place.
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    if (fs::exists(object))
        return object;
    const fs::path tmp = dir / ("tmp-" + uniqueSuffix() + "-runtime.o");
    try {
        Halide::compile_standalone_runtime(tmp.string(), runtimeTarget);
    } catch (...) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw;
    }
    std::error_code ec;
    fs::rename(tmp, object, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw std::runtime_error("cannot move Halide's runtime into " + object.string());
    }
    return object;
}

std::string compilerFor(const CompileOptions &options)
{
    if (!options.compiler.empty())
        return options.compiler;
    if (const char *cc = std::getenv("CC"); cc && *cc)
        return cc;
    return "cc";
}

} // namespace

fs::path defaultCacheDir()
{
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return fs::path(xdg) / "beamscope" / "bench";
    if (const char *home = std::getenv("HOME"); home && *home)
        return fs::path(home) / ".cache" / "beamscope" / "bench";
    return fs::temp_directory_path() / "beamscope-bench-cache";
}

Json CompiledLibrary::toJson() const
{
    Json j = Json::object();
    j["ok"] = ok;
    j["error"] = error;
    j["library"] = library.string();
    j["lowered_stmt"] = loweredStmt.string();
    j["function"] = function;
    j["pipeline"] = pipeline;
    j["schedule"] = schedule;
    j["target"] = target;
    j["compile_seconds"] = compileSeconds;
    j["cache_hit"] = cacheHit;
    if (barriersLifted > 0)
        j["barriers_lifted"] = barriersLifted;
    j["timed_out"] = timedOut;
    j["key"] = key;
    return j;
}

CompiledLibrary CompiledLibrary::fromJson(const Json &json)
{
    auto text = [&](const char *key) {
        const Json *v = json.find(key);
        return v ? v->toString() : std::string();
    };
    auto flag = [&](const char *key) {
        const Json *v = json.find(key);
        return v && v->toBool();
    };
    CompiledLibrary c;
    c.ok = flag("ok");
    c.error = text("error");
    c.library = text("library");
    c.loweredStmt = text("lowered_stmt");
    c.function = text("function");
    c.pipeline = text("pipeline");
    c.schedule = text("schedule");
    c.target = text("target");
    if (const Json *v = json.find("compile_seconds"))
        c.compileSeconds = v->toNumber();
    c.cacheHit = flag("cache_hit");
    if (const Json *v = json.find("barriers_lifted"))
        c.barriersLifted = static_cast<int>(v->toNumber());
    c.timedOut = flag("timed_out");
    c.key = text("key");
    return c;
}

std::string functionNameFor(const std::string &pipelineName)
{
    std::string out;
    for (char c : pipelineName)
        out += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
    if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
        out = "p_" + out;
    return out;
}

CompiledLibrary compilePipeline(const CompileRequest &request, const CompileOptions &options)
{
    CompiledLibrary result;
    result.schedule = request.schedule.label;
    result.target = request.target.to_string();
    const auto start = std::chrono::steady_clock::now();
    auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    const fs::path dir = options.cacheDir.empty() ? defaultCacheDir() : options.cacheDir;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        result.error = "cannot create cache folder " + dir.string() + ": " + ec.message();
        return result;
    }
    const std::string suffix = uniqueSuffix();
    const fs::path stmtPath = dir / ("tmp-" + suffix + ".stmt");
    const fs::path objPath = dir / ("tmp-" + suffix + ".o");
    const fs::path tmpLib = dir / ("tmp-" + suffix + ".so");
    auto cleanup = [&] {
        std::error_code ignored;
        fs::remove(stmtPath, ignored);
        fs::remove(objPath, ignored);
        fs::remove(tmpLib, ignored);
    };

    fs::path runtimeObject;
    try {
        if (!request.build)
            throw std::runtime_error("no pipeline to build");
        pipelines::PipelineInstance instance = request.build();
        result.pipeline = instance.name;
        result.function = functionNameFor(instance.name);
        applySchedule(instance, request.schedule, request.target);
        Halide::Pipeline pipeline = instance.pipeline();
        // OpenCL kernels are run on PoCL here, whose work-item loops mishandle
        // a barrier inside a block-uniform if (uniform_barriers.h); the rewrite
        // keeps the meaning, and the statement (hence the key) shows it.
        const LiftBarriersFromUniformIfs *lift = nullptr;
        if (request.target.has_feature(Halide::Target::OpenCL)) {
            auto *pass = new LiftBarriersFromUniformIfs;
            lift = pass;
            pipeline.add_custom_lowering_pass(pass); // the pipeline owns it
        }
        const std::vector<Halide::Argument> args =
            instance.arguments.empty() ? pipeline.infer_arguments() : instance.arguments;

        // The lowered statement pins down both the algorithm and the schedule,
        // so the key changes whenever either does, whatever the labels say.
        Hasher key;
        key.add(kCacheFormat);
        key.add(result.target);
        key.add(result.function);
        key.add(compilerFor(options));
        for (const auto &flag : request.extraCompilerFlags)
            key.add(flag);
        for (const auto &src : request.extraSources)
            key.add(readAll(src));
        pipeline.compile_to_lowered_stmt(stmtPath.string(), args, Halide::Text, request.target);
        key.add(normalisedStmt(readAll(stmtPath)));
        result.barriersLifted = lift ? lift->lifted() : 0;
        result.key = key.hex();
        result.library = dir / (result.key + ".so");
        // The statement stays beside its library: what to read when a
        // schedule crashes or computes something else (a campaign names it).
        result.loweredStmt = dir / (result.key + ".stmt");
        if (!fs::exists(result.loweredStmt))
            fs::rename(stmtPath, result.loweredStmt, ec);

        if (options.useCache && fs::exists(result.library)) {
            result.ok = true;
            result.cacheHit = true;
            result.compileSeconds = seconds();
            cleanup();
            return result;
        }
        runtimeObject = runtimeObjectFor(request.target, dir);
        pipeline.compile_to_object(objPath.string(), args, result.function,
                                   request.target.with_feature(Halide::Target::NoRuntime));
    } catch (const std::exception &e) {
        result.error = std::string("compiling '") + result.pipeline + "' (" + result.schedule + ") for " +
                       result.target + " failed: " + e.what();
        cleanup();
        return result;
    }

    std::vector<std::string> link = {
        compilerFor(options),  "-shared", "-fPIC", "-O2", "-o", tmpLib.string(), objPath.string(),
        runtimeObject.string()};
    for (const auto &flag : request.extraCompilerFlags)
        link.push_back(flag);
    for (const auto &src : request.extraSources)
        link.push_back(src.string());
    // Each library keeps its own copy of the Halide runtime (the object above)
    // bound to itself, so a candidate and a reference loaded side by side never
    // mix runtimes.
    for (const char *flag : {"-Wl,-Bsymbolic", "-lpthread", "-ldl", "-lm"})
        link.emplace_back(flag);
    const ChildResult linked = runChild(link, 300);
    if (!linked.started || linked.signaled || linked.exitCode != 0) {
        result.error = "linking " + tmpLib.filename().string() + " with " + link[0] +
                       " failed: " + (linked.started ? linked.err : linked.startError);
        cleanup();
        return result;
    }
    // Rename into place: a concurrent compilation of the same key, or a
    // reader, only ever sees a complete library.
    fs::rename(tmpLib, result.library, ec);
    if (ec) {
        result.error = "cannot move the library into " + result.library.string() + ": " + ec.message();
        cleanup();
        return result;
    }
    cleanup();
    result.ok = true;
    result.compileSeconds = seconds();
    return result;
}

std::vector<CompiledLibrary> compileAll(const std::vector<CompileRequest> &requests, const CompileOptions &options,
                                        Progress *progress)
{
    std::vector<CompiledLibrary> results(requests.size());
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const size_t jobs =
        std::min(requests.size(), static_cast<size_t>(options.jobs > 0 ? options.jobs : static_cast<int>(hw)));
    std::atomic<size_t> next{0};
    std::atomic<size_t> done{0};
    std::mutex progressMutex;
    auto work = [&] {
        for (size_t i = next.fetch_add(1); i < requests.size(); i = next.fetch_add(1)) {
            if (progress && progress->cancelled()) {
                results[i].error = "cancelled before compiling";
                continue;
            }
            results[i] = compilePipeline(requests[i], options);
            const size_t finished = done.fetch_add(1) + 1;
            if (progress) {
                std::lock_guard lock(progressMutex);
                progress->report(static_cast<double>(finished) / static_cast<double>(requests.size()),
                                 "compiled " + results[i].pipeline + " (" + results[i].schedule + ") for " +
                                     results[i].target);
            }
        }
    };
    std::vector<std::thread> threads;
    for (size_t t = 1; t < jobs; ++t)
        threads.emplace_back(work);
    work();
    for (auto &t : threads)
        t.join();
    return results;
}

} // namespace beamscope::bench
