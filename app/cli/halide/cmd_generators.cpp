// beamscope-cli generators: what a user's generator library registers, each
// generator's parameters with their defaults, and whether each builds a
// pipeline Beamscope can search (estimates on every output and input): every
// generator with its defaults (each built in a child process of its own, so one
// that crashes does not hide the others), or with --name one with --param
// values. The explorer runs it as a child process before it loads a library
// into itself, so a library that crashes takes only this process down.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "core/dag/function_dag.h"
#include "core/pipelines/generator_library.h"
#include "core/pipelines/generator_params.h"
#include "core/util/child_process.h"
#include "core/util/json.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>

namespace beamscope::cli {

namespace {

struct GeneratorsOptions {
    std::string library;
    std::optional<std::string> name;
    std::vector<std::string> params;
    bool json = false;
};

// One generator built as Beamscope searches it; its stage count, or why it cannot be.
Json buildReport(const std::string &library, const std::string &name, const std::vector<std::string> &params)
{
    Json built = Json::object();
    // Said before the build: when user code crashes, the last line of stderr names the generator.
    std::cerr << "beamscope-cli generators: building " << name << "\n" << std::flush;
    try {
        const pipelines::PipelineInstance p =
            pipelines::buildGenerator(library, name, pipelines::parseGeneratorParams(params));
        built["stages"] = static_cast<int>(dag::FunctionDAG(p.outputs).costModelStages().size());
        Json outputs = Json::array();
        for (const Halide::Func &f : p.outputs)
            outputs.push(f.name());
        built["outputs"] = outputs;
    } catch (const std::exception &e) {
        built["error"] = std::string(e.what());
    }
    return built;
}

// The same, in a child process (this program's `generators LIB --name GEN --json`): one
// generator whose code crashes or hangs while building costs only its own entry, and
// the library's other generators are still listed as searchable.
Json buildReportIsolated(const std::string &library, const std::string &name)
{
    std::error_code ec;
    const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    const ChildResult child = runChild({self, "generators", library, "--name", name, "--json"}, 90);
    Json built = Json::object();
    if (child.signaled || child.timedOut || !child.started) {
        built["error"] = child.timedOut
                             ? std::string("no answer within 90 s while building its pipeline (does it hang?)")
                         : child.started ? "crashed (" + signalName(child.signal) + ") while building its pipeline"
                                         : "cannot run beamscope-cli to build it: " + child.startError;
        return built;
    }
    const JsonParseResult parsed = parseJson(child.out);
    if (parsed.value)
        if (const Json *generators = parsed.value->find("generators"))
            for (const Json &g : generators->items())
                if (g.find("name") && g.find("name")->toString() == name) {
                    for (const char *key : {"error", "stages", "outputs"})
                        if (const Json *v = g.find(key))
                            built[key] = *v;
                    return built;
                }
    if (const Json *error = parsed.value ? parsed.value->find("error") : nullptr)
        built["error"] = *error;
    else
        built["error"] =
            std::string("building it ended with exit code ") + std::to_string(child.exitCode) + " and no report";
    return built;
}

int runGenerators(GeneratorsOptions o)
{
    o.library = pipelines::absoluteLibraryPath(o.library); // ./ or not, never the system library path
    Json out = Json::object();
    out["library"] = o.library;
    const auto fail = [&](const std::string &message) {
        if (o.json) {
            out["error"] = message;
            std::cout << out.dump(2) << "\n";
        }
        std::cerr << "beamscope-cli generators: " << message << "\n";
        return kFailure;
    };
    bool failed = false;
    try {
        const std::vector<std::string> names = pipelines::loadGeneratorLibrary(o.library);
        if (o.name && std::find(names.begin(), names.end(), *o.name) == names.end()) {
            std::string list;
            for (const std::string &n : names)
                list += (list.empty() ? "" : ", ") + n;
            return fail(o.library + ": no generator named \"" + *o.name + "\" (the library has: " + list + ")");
        }
        Json generators = Json::array();
        for (const std::string &name : names) {
            Json g = Json::object();
            g["name"] = name;
            Json params = Json::array();
            for (const pipelines::GeneratorParamSpec &p : pipelines::generatorParams(o.library, name)) {
                Json j = Json::object();
                j["name"] = p.name;
                j["type"] = p.type;
                j["default"] = p.defaultValue;
                Json choices = Json::array();
                for (const std::string &c : p.choices)
                    choices.push(c);
                j["choices"] = choices;
                params.push(j);
                if (!o.json)
                    std::cout << name << "  " << p.name << " = " << p.defaultValue << "  (" << p.type << ")\n";
            }
            g["params"] = params;
            // Without --name every generator is built with its defaults; with it, that one with --param.
            if (!o.name || *o.name == name) {
                const Json built =
                    o.name ? buildReport(o.library, name, o.params) : buildReportIsolated(o.library, name);
                if (const Json *error = built.find("error")) {
                    g["error"] = *error;
                    failed = failed || o.name.has_value();
                    if (!o.json)
                        std::cout << name << "  cannot be searched: " << error->toString() << "\n";
                } else {
                    g["stages"] = *built.find("stages");
                    g["outputs"] = *built.find("outputs");
                    if (!o.json)
                        std::cout << name << "  builds: " << built.find("stages")->dump()
                                  << " stages for the cost model\n";
                }
            }
            generators.push(g);
        }
        out["generators"] = generators;
    } catch (const std::exception &e) {
        return fail(e.what());
    }
    if (o.json)
        std::cout << out.dump(2) << "\n";
    return failed ? kFailure : kSuccess;
}

CommandRun defineGenerators(CLI::App &app)
{
    auto o = std::make_shared<GeneratorsOptions>();
    app.add_option("LIB", o->library, "a shared library of Halide 14 generators")->required();
    CLI::Option *name =
        addText(app, "--name", o->name, "build only this generator, with --param values (default: every one)");
    CLI::Option *param = addRepeated(app, "--param", o->params, "--name: a generator parameter k=v (repeatable)");
    param->needs(name);
    addJsonFlag(app, o->json);
    return [o](const std::vector<std::string> &) { return runGenerators(*o); };
}

const CommandRegistration
    registration({"", "generators", "LIB.so [--name GEN [--param k=v]...] [--json]",
                  "a generator library's generators, their parameters, and whether each builds a searchable pipeline",
                  defineGenerators});

} // namespace

} // namespace beamscope::cli
