// beamscope-bench-worker: runs one ahead-of-time compiled pipeline, times it,
// checks its output against a reference build, and prints one JSON line.
//
// It knows nothing about the pipeline but what the shared object's
// <function>_metadata() says (argument kinds, types, dimensions, estimates),
// and calls it through the generic <function>_argv() entry point. It is
// spawned by core/bench, which treats any crash, hang or bad exit as a failed
// measurement, so this program reports errors plainly and never retries.
//
// Exit status: 0 measured (the JSON says whether the output matched),
// 2 usage (an unknown option, a missing or malformed value: CLI11 checks them), 3 a library failed to load, 4 the pipeline returned an error,
// 5 the pipeline cannot be set up (missing estimates, no memory, mismatched references).

#include "app/cli/arguments.h"
#include "app/worker/buffers.h"
#include "app/worker/opencl_device.h"
#include "core/util/json.h"

#include <HalideRuntime.h>

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace beamscope::worker;
using beamscope::Json;

namespace {

enum Exit { kMeasured = 0, kUsage = 2, kLoadFailed = 3, kPipelineError = 4, kSetupFailed = 5 };

struct Options {
    std::string candidate, function, reference, referenceFunction;
    int reps = 10;
    int warmup = 1;
    double scale = 1.0;
    unsigned long long seed = 1;
    // Test-only fault injection (core/bench RunOptions::injectFault): "crash"
    // dies from SIGSEGV and "hang" sleeps, both while timing; "wrong-output"
    // changes one output value before the comparison.
    std::string injectFault;
    bool describeOpenCL = false; // print the OpenCL platforms and devices, measure nothing
};

[[noreturn]] void fail(Exit code, const std::string &phase, const std::string &message)
{
    Json failure;
    failure["ok"] = false;
    failure["phase"] = phase;
    failure["error"] = message;
    std::printf("%s\n", failure.dump().c_str());
    std::fflush(stdout);
    std::fprintf(stderr, "beamscope-bench-worker: %s: %s\n", phase.c_str(), message.c_str());
    std::exit(code);
}

// The parent reads the last phase from stderr to say where a crash happened.
void phase(const char *name)
{
    std::fprintf(stderr, "beamscope-bench-worker: phase %s\n", name);
    std::fflush(stderr);
}

void printHalideError(void *, const char *message)
{
    std::fprintf(stderr, "%s\n", message);
    std::fflush(stderr);
}

struct Library {
    void *handle = nullptr;
    int (*argv)(void **) = nullptr;
    const halide_filter_metadata_t *metadata = nullptr;
    int (*deviceSync)(void *, halide_buffer_t *) = nullptr;
    int (*copyToHost)(void *, halide_buffer_t *) = nullptr;
    int (*deviceFree)(void *, halide_buffer_t *) = nullptr;
};

template <typename F>
F symbol(void *handle, const std::string &name)
{
    return reinterpret_cast<F>(dlsym(handle, name.c_str()));
}

Library load(const std::string &path, const std::string &function, const char *role)
{
    Library lib;
    // RTLD_LOCAL: candidate and reference each carry their own copy of the
    // Halide runtime, and each must keep using its own.
    // A name without a slash would be searched for on the library path.
    const std::string file = path.find('/') == std::string::npos ? "./" + path : path;
    lib.handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib.handle)
        fail(kLoadFailed, std::string("load ") + role, dlerror());
    lib.argv = symbol<int (*)(void **)>(lib.handle, function + "_argv");
    auto meta = symbol<const halide_filter_metadata_t *(*)()>(lib.handle, function + "_metadata");
    if (!lib.argv || !meta)
        fail(kLoadFailed, std::string("load ") + role,
             path + " has no " + function + "_argv / " + function + "_metadata entry point");
    lib.metadata = meta();
    lib.deviceSync = symbol<int (*)(void *, halide_buffer_t *)>(lib.handle, "halide_device_sync");
    lib.copyToHost = symbol<int (*)(void *, halide_buffer_t *)>(lib.handle, "halide_copy_to_host");
    lib.deviceFree = symbol<int (*)(void *, halide_buffer_t *)>(lib.handle, "halide_device_free");
    // The runtime's default handler aborts after printing; ours prints and
    // returns, so the pipeline returns its error code and we report it.
    using Handler = void (*)(void *, const char *);
    if (auto setHandler = symbol<Handler (*)(Handler)>(lib.handle, "halide_set_error_handler"))
        setHandler(&printHalideError);
    return lib;
}

// The GPU runtimes inside the generated code dlopen the driver library by
// its development name (libcuda.so, libOpenCL.so), which machines without
// the -dev packages lack; making the versioned one global first lets the
// runtime find its symbols either way.
void preloadDriver(const std::string &target)
{
    if (target.find("opencl") != std::string::npos)
        dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (target.find("cuda") != std::string::npos)
        dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
}

bool sameSignature(const halide_filter_metadata_t *a, const halide_filter_metadata_t *b, std::string &why)
{
    if (a->num_arguments != b->num_arguments) {
        why = "argument counts differ (" + std::to_string(a->num_arguments) + " vs " +
              std::to_string(b->num_arguments) + ")";
        return false;
    }
    for (int i = 0; i < a->num_arguments; ++i) {
        const auto &x = a->arguments[i], &y = b->arguments[i];
        if (x.kind != y.kind || x.dimensions != y.dimensions || x.type.code != y.type.code ||
            x.type.bits != y.type.bits || x.type.lanes != y.type.lanes) {
            why = std::string("argument ") + std::to_string(i) + " ('" + x.name + "' vs '" + y.name +
                  "') differs in kind, type or dimensions";
            return false;
        }
    }
    return true;
}

// Everything one call of <function>_argv needs.
struct Arguments {
    std::vector<halide_scalar_value_t> scalars;
    std::vector<std::unique_ptr<HostBuffer>> buffers; // one per argument; null for scalars
    std::vector<void *> argv;

    void bind(const halide_filter_metadata_t *m)
    {
        argv.assign(static_cast<size_t>(m->num_arguments), nullptr);
        for (int i = 0; i < m->num_arguments; ++i)
            argv[static_cast<size_t>(i)] = buffers[static_cast<size_t>(i)]
                                               ? static_cast<void *>(buffers[static_cast<size_t>(i)]->raw())
                                               : static_cast<void *>(&scalars[static_cast<size_t>(i)]);
    }
};

halide_scalar_value_t scalarValue(const halide_filter_argument_t &arg)
{
    halide_scalar_value_t v;
    std::memset(static_cast<void *>(&v), 0, sizeof v);
    if (arg.scalar_estimate)
        v = *arg.scalar_estimate;
    else if (arg.scalar_def)
        v = *arg.scalar_def;
    else if (arg.scalar_min)
        v = *arg.scalar_min;
    return v;
}

// The scaled estimate of a buffer's shape; false when some dimension has none.
bool estimatedShape(const halide_filter_argument_t &arg, double scale, std::vector<int64_t> &mins,
                    std::vector<int64_t> &extents)
{
    mins.assign(static_cast<size_t>(arg.dimensions), 0);
    extents.assign(static_cast<size_t>(arg.dimensions), 0);
    if (arg.dimensions == 0)
        return true; // a zero-dimensional buffer has one element and nothing to estimate
    if (!arg.buffer_estimates)
        return false;
    for (int d = 0; d < arg.dimensions; ++d) {
        const int64_t *mn = arg.buffer_estimates[2 * d], *ex = arg.buffer_estimates[2 * d + 1];
        if (!mn || !ex)
            return false;
        mins[static_cast<size_t>(d)] = *mn;
        extents[static_cast<size_t>(d)] =
            std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(*ex) * scale + 0.5));
    }
    return true;
}

std::string shapeText(const std::vector<int64_t> &extents)
{
    std::string s;
    for (size_t i = 0; i < extents.size(); ++i)
        s += (i ? "x" : "") + std::to_string(extents[i]);
    return s;
}

// Asks a compiled pipeline which input region it reads for the given outputs
// (Halide's bounds-query protocol: input buffers with no host or device
// pointer get their required shape written into them). Grows mins/extents to
// cover what this library needs.
void boundsQuery(const Library &lib, const Arguments &real, std::vector<std::vector<int64_t>> &mins,
                 std::vector<std::vector<int64_t>> &extents, const char *role)
{
    const auto *m = lib.metadata;
    Arguments query;
    query.scalars = real.scalars;
    for (int i = 0; i < m->num_arguments; ++i) {
        const auto &arg = m->arguments[i];
        const auto idx = static_cast<size_t>(i);
        if (arg.kind == halide_argument_kind_input_buffer) {
            auto b = std::make_unique<HostBuffer>(arg.type, arg.dimensions);
            b->setShape(mins[idx], extents[idx]);
            query.buffers.push_back(std::move(b));
        } else if (arg.kind == halide_argument_kind_output_buffer) {
            auto b = std::make_unique<HostBuffer>(arg.type, arg.dimensions);
            b->shareHostOf(*real.buffers[idx]);
            query.buffers.push_back(std::move(b));
        } else {
            query.buffers.push_back(nullptr);
        }
    }
    query.bind(m);
    const int rc = lib.argv(query.argv.data());
    if (rc != 0)
        fail(kPipelineError, std::string("bounds query ") + role, "returned Halide error " + std::to_string(rc));
    for (int i = 0; i < m->num_arguments; ++i) {
        const auto idx = static_cast<size_t>(i);
        if (m->arguments[i].kind != halide_argument_kind_input_buffer)
            continue;
        const auto qm = query.buffers[idx]->mins(), qe = query.buffers[idx]->extents();
        for (size_t d = 0; d < qm.size(); ++d) {
            const int64_t lo = std::min(mins[idx][d], qm[d]);
            const int64_t hi = std::max(mins[idx][d] + extents[idx][d], qm[d] + qe[d]);
            mins[idx][d] = lo;
            extents[idx][d] = hi - lo;
        }
    }
}

const char *const kUsageLine =
    "usage: beamscope-bench-worker --candidate SO --function NAME [--reference SO [--reference-function NAME]] "
    "[--reps N>=1] [--warmup N>=0] [--scale S>0] [--seed N] | --describe-opencl";

// The command line core/bench writes (measurement.cpp), read through the same
// CLI11 glue as beamscope-cli's: a count that is not a number, or is out of
// range, is a usage error naming the option, not a silent 0. Returns the exit
// status to end with at once (help, a usage error), or nullopt to go on.
std::optional<int> parseOptions(int argc, char **argv, Options &o)
{
    using namespace beamscope::cli;
    CLI::App app("Times one ahead-of-time compiled pipeline and checks it against a reference build",
                 "beamscope-bench-worker");
    CLI::Option *candidate = addText(app, "--candidate", o.candidate, "the compiled pipeline to time (.so)");
    CLI::Option *function = addText(app, "--function", o.function, "its function name");
    CLI::Option *reference = addText(app, "--reference", o.reference, "a build to compare the outputs with (.so)");
    addText(app, "--reference-function", o.referenceFunction, "its function name (default: --function)")
        ->needs(reference);
    addInteger(app, "--reps", o.reps, "timed runs", 1, std::numeric_limits<int>::max());
    addInteger(app, "--warmup", o.warmup, "untimed runs before them", 0, std::numeric_limits<int>::max());
    addNumber(app, "--scale", o.scale, "output extents: the estimates times this", 0,
              std::numeric_limits<double>::infinity(), true);
    addInteger(app, "--seed", o.seed, "the seed of the input values");
    addText(app, "--inject-fault", o.injectFault, "test only: crash, hang or wrong-output")
        ->check(oneOf({"crash", "hang", "wrong-output"}));
    addFlag(app, "--describe-opencl", o.describeOpenCL, "print the OpenCL platforms and devices as JSON and exit")
        ->excludes(candidate)
        ->excludes(function);

    const ParseOutcome outcome = parseCommandLine(app, std::vector<std::string>(argv + 1, argv + argc));
    std::string problem = outcome.kind == ParseOutcome::Kind::Usage ? outcome.text : "";
    if (outcome.kind == ParseOutcome::Kind::Help) {
        std::printf("%s", outcome.text.c_str());
        return kMeasured;
    }
    // Required unless the run only describes OpenCL.
    if (problem.empty() && !o.describeOpenCL)
        for (const CLI::Option *required : {candidate, function})
            if (required->count() == 0) {
                problem = required->get_name() + " is required";
                break;
            }
    if (!problem.empty()) {
        std::fprintf(stderr, "beamscope-bench-worker: %s\n%s\n", problem.c_str(), kUsageLine);
        return kUsage;
    }
    if (o.referenceFunction.empty())
        o.referenceFunction = o.function;
    return std::nullopt;
}

// The candidate's arguments: outputs take their scaled estimates; inputs start
// from theirs (when present) and grow to what both libraries' bounds queries
// ask for, then are filled deterministically from the seed.
Arguments setUpArguments(const Options &opt, const Library &cand, const Library &ref)
{
    const auto *meta = cand.metadata;
    phase("setup");
    Arguments args;
    const auto n = static_cast<size_t>(meta->num_arguments);
    std::vector<std::vector<int64_t>> mins(n), extents(n);
    bool anyInput = false;
    for (size_t i = 0; i < n; ++i) {
        const auto &arg = meta->arguments[i];
        args.scalars.push_back(arg.kind == halide_argument_kind_input_scalar ? scalarValue(arg)
                                                                             : halide_scalar_value_t{});
        if (arg.kind == halide_argument_kind_input_scalar) {
            args.buffers.push_back(nullptr);
            continue;
        }
        const bool estimated = estimatedShape(arg, opt.scale, mins[i], extents[i]);
        auto b = std::make_unique<HostBuffer>(arg.type, arg.dimensions);
        if (arg.kind == halide_argument_kind_output_buffer) {
            if (!estimated)
                fail(kSetupFailed, "setup",
                     std::string("output '") + arg.name + "' has no estimate for every dimension");
            b->setShape(mins[i], extents[i]);
            if (!b->allocate())
                fail(kSetupFailed, "setup", std::string("cannot allocate output '") + arg.name + "'");
        } else {
            anyInput = true;
        }
        args.buffers.push_back(std::move(b));
    }
    if (anyInput) {
        phase("bounds query");
        if (ref.handle)
            boundsQuery(ref, args, mins, extents, "reference");
        boundsQuery(cand, args, mins, extents, "candidate");
    }
    for (size_t i = 0; i < n; ++i) {
        if (meta->arguments[i].kind != halide_argument_kind_input_buffer)
            continue;
        args.buffers[i]->setShape(mins[i], extents[i]);
        if (!args.buffers[i]->allocate())
            fail(kSetupFailed, "setup",
                 std::string("cannot allocate input '") + meta->arguments[i].name + "' of " + shapeText(extents[i]));
        fillDeterministic(*args.buffers[i], opt.seed, i);
        // Written on the host: a GPU pipeline copies an input to the device
        // only when it is marked so (Halide::Runtime::Buffer does this on writes).
        args.buffers[i]->raw()->flags |= halide_buffer_flag_host_dirty;
    }
    args.bind(meta);
    return args;
}

// The reference run, on its own buffer structs over the same input memory, so
// it never sees the device allocations the candidate's runtime attaches.
Arguments runReference(const Library &ref, const Arguments &args, const halide_filter_metadata_t *meta)
{
    const auto n = static_cast<size_t>(meta->num_arguments);
    Arguments refArgs;
    phase("reference");
    refArgs.scalars = args.scalars;
    for (size_t i = 0; i < n; ++i) {
        const auto &arg = meta->arguments[i];
        if (arg.kind == halide_argument_kind_input_scalar) {
            refArgs.buffers.push_back(nullptr);
            continue;
        }
        auto b = std::make_unique<HostBuffer>(arg.type, arg.dimensions);
        if (arg.kind == halide_argument_kind_input_buffer) {
            b->shareHostOf(*args.buffers[i]);
            b->raw()->flags |= halide_buffer_flag_host_dirty; // a device reference copies it over
        } else {
            b->setShape(args.buffers[i]->mins(), args.buffers[i]->extents());
            if (!b->allocate())
                fail(kSetupFailed, "setup", "cannot allocate the reference's outputs");
        }
        refArgs.buffers.push_back(std::move(b));
    }
    refArgs.bind(ref.metadata);
    if (const int rc = ref.argv(refArgs.argv.data()); rc != 0)
        fail(kPipelineError, "reference", "returned Halide error " + std::to_string(rc));
    // A device reference (one on the candidate's device, with its math library) leaves its outputs
    // there: they come back now, before the candidate's runtime opens its own context.
    for (auto &b : refArgs.buffers)
        if (b && b->raw()->device_interface) {
            if (ref.copyToHost)
                if (const int rc = ref.copyToHost(nullptr, b->raw()); rc != 0)
                    fail(kPipelineError, "reference", "halide_copy_to_host returned " + std::to_string(rc));
            if (ref.deviceFree)
                ref.deviceFree(nullptr, b->raw());
        }
    return refArgs;
}

// Warm-up and timed runs (the fault injections of the tests sit here, where a
// real schedule would crash or hang).
std::vector<double> timeCandidate(const Options &opt, const Library &cand, Arguments &args)
{
    const auto *meta = cand.metadata;
    const auto n = static_cast<size_t>(meta->num_arguments);
    // Each repetition ends with a device sync of every output, so GPU targets
    // are timed to completion of their kernels, not to their launch.
    auto runOnce = [&](const char *what) {
        if (const int rc = cand.argv(args.argv.data()); rc != 0)
            fail(kPipelineError, what, "returned Halide error " + std::to_string(rc));
        for (size_t i = 0; i < n; ++i)
            if (meta->arguments[i].kind == halide_argument_kind_output_buffer && cand.deviceSync &&
                args.buffers[i]->raw()->device_interface)
                if (const int rc = cand.deviceSync(nullptr, args.buffers[i]->raw()); rc != 0)
                    fail(kPipelineError, what, "halide_device_sync returned " + std::to_string(rc));
    };
    phase("warmup");
    for (int r = 0; r < opt.warmup; ++r)
        runOnce("warmup");
    phase("timing");
    if (opt.injectFault == "crash") {
        std::signal(SIGSEGV, SIG_DFL); // a GPU runtime's LLVM may have installed a handler that returns
        std::raise(SIGSEGV);
    }
    while (opt.injectFault == "hang")
        ::sleep(1);
    std::vector<double> times;
    for (int r = 0; r < opt.reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        runOnce("timing");
        const auto t1 = std::chrono::steady_clock::now();
        times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    return times;
}

// The outputs copied back, described, and compared with the reference's.
struct OutputReport {
    Json inputs = Json::array(), outputs = Json::array();
    size_t values = 0, mismatches = 0;
    double maxAbs = 0, maxRel = 0;
    std::string firstMismatch;
};

OutputReport compareOutputs(const Options &opt, const Library &cand, const Library &ref, Arguments &args,
                            const Arguments &refArgs)
{
    const auto *meta = cand.metadata;
    const auto n = static_cast<size_t>(meta->num_arguments);
    OutputReport r;
    phase("compare");
    for (size_t i = 0; i < n; ++i) {
        const auto &arg = meta->arguments[i];
        if (arg.kind == halide_argument_kind_input_scalar)
            continue;
        Json item;
        item["name"] = arg.name;
        item["type"] = typeName(arg.type);
        Json &itemExtents = item["extents"] = Json::array();
        for (int64_t e : args.buffers[i]->extents())
            itemExtents.push(e);
        if (arg.kind == halide_argument_kind_input_buffer) {
            r.inputs.push(std::move(item));
            continue;
        }
        r.outputs.push(std::move(item));
        if (cand.copyToHost)
            if (const int rc = cand.copyToHost(nullptr, args.buffers[i]->raw()); rc != 0)
                fail(kPipelineError, "copy to host", "halide_copy_to_host returned " + std::to_string(rc));
        if (opt.injectFault == "wrong-output" && r.outputs.size() == 1 && args.buffers[i]->raw()->host)
            args.buffers[i]->raw()->host[(args.buffers[i]->raw()->type.bits + 7) / 8 - 1] ^=
                0x40; // the top byte: far off
        if (!ref.handle)
            continue;
        // A device reference (one on the candidate's device, with its math library) leaves its
        // output on the device too.
        const Comparison c = compareBuffers(*args.buffers[i], *refArgs.buffers[i]);
        r.values += c.values;
        if (c.mismatches && r.firstMismatch.empty())
            r.firstMismatch = std::string("output '") + arg.name + "' at " + c.firstMismatch;
        r.mismatches += c.mismatches;
        r.maxAbs = std::max(r.maxAbs, c.maxAbsError);
        r.maxRel = std::max(r.maxRel, c.maxRelError);
    }
    if (cand.deviceFree)
        for (auto &b : args.buffers)
            if (b && b->raw()->device_interface)
                cand.deviceFree(nullptr, b->raw());
    return r;
}

} // namespace

int main(int argc, char **argv)
{
    Options opt;
    if (const std::optional<int> rc = parseOptions(argc, argv, opt))
        return *rc;
    if (opt.describeOpenCL) {
        std::printf("%s\n", describeOpenCL().dump().c_str());
        return 0;
    }

    phase("load");
    const Library cand = load(opt.candidate, opt.function, "candidate");
    const auto *meta = cand.metadata;
    preloadDriver(meta->target ? meta->target : "");
    Library ref;
    if (!opt.reference.empty()) {
        ref = load(opt.reference, opt.referenceFunction, "reference");
        std::string why;
        if (!sameSignature(meta, ref.metadata, why))
            fail(kSetupFailed, "setup", "candidate and reference take different arguments: " + why);
    }
    Arguments args = setUpArguments(opt, cand, ref);
    const Arguments refArgs = ref.handle ? runReference(ref, args, meta) : Arguments{};
    const std::vector<double> times = timeCandidate(opt, cand, args);
    OutputReport o = compareOutputs(opt, cand, ref, args, refArgs);

    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted.size() % 2 ? sorted[sorted.size() / 2]
                                            : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
    Json correct;
    correct["checked"] = ref.handle != nullptr;
    if (ref.handle) {
        correct["matches"] = o.mismatches == 0;
        correct["values"] = static_cast<uint64_t>(o.values);
        correct["mismatches"] = static_cast<uint64_t>(o.mismatches);
        correct["max_abs_error"] = o.maxAbs;
        correct["max_rel_error"] = o.maxRel;
        correct["first_mismatch"] = o.firstMismatch;
        correct["reference_target"] = ref.metadata->target ? ref.metadata->target : "";
    }
    Json timesJson = Json::array();
    for (double t : times)
        timesJson.push(t);
    Json result;
    result["ok"] = true;
    result["function"] = opt.function;
    result["target"] = meta->target ? meta->target : "";
    result["inputs"] = std::move(o.inputs);
    result["outputs"] = std::move(o.outputs);
    result["warmup"] = opt.warmup;
    result["times_ms"] = std::move(timesJson);
    result["min_ms"] = sorted.front();
    result["median_ms"] = median;
    result["correct"] = std::move(correct);
    std::printf("%s\n", result.dump().c_str());
    std::fflush(stdout);
    phase("done");
    // Out without running the loaded runtimes' destructors: two device builds
    // (a candidate and a device reference) each carry a Halide runtime with its
    // own OpenCL context on one ICD, and tearing both down crashes the process
    // after its result is out.
    std::_Exit(kMeasured);
}
