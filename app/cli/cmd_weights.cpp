// beamscope-cli weights list | inspect | validate | convert | diff: wiring only; the
// reading, checking and writing live in core/weights.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "app/cli/text_table.h"
#include "core/util/json.h"
#include "core/weights/weights_digest.h"
#include "core/weights/shipped_weights.h"
#include "core/weights/statistics.h"
#include "core/weights/weights.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

namespace beamscope::cli {

namespace {

using namespace beamscope::weights;

std::string number(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string shapeText(const std::vector<uint32_t> &shape)
{
    std::string out;
    for (size_t i = 0; i < shape.size(); i++)
        out += (i ? "x" : "") + std::to_string(shape[i]);
    return out;
}

void printDiagnostics(const std::vector<Diagnostic> &diagnostics)
{
    for (const auto &d : diagnostics) {
        auto &stream = d.severity == Severity::Error ? std::cerr : std::cout;
        stream << "  " << severityName(d.severity) << ": " << d.format() << "\n";
    }
}

Json diagnosticsJson(const std::vector<Diagnostic> &diagnostics)
{
    Json list = Json::array();
    for (const auto &d : diagnostics) {
        Json item = Json::object();
        item["severity"] = severityName(d.severity);
        item["kind"] = diagnosticKindName(d.kind);
        item["path"] = d.path;
        item["offset"] = d.offset ? Json(*d.offset) : Json();
        item["field"] = d.field;
        item["expected"] = d.expected;
        item["found"] = d.found;
        item["message"] = d.message;
        list.push(std::move(item));
    }
    return list;
}

Json shapeJson(const std::vector<uint32_t> &shape)
{
    Json list = Json::array();
    for (uint32_t extent : shape)
        list.push(extent);
    return list;
}

std::string summary(const LoadResult &result)
{
    const Weights &w = *result.weights;
    return std::string(networkName(w.network)) + " " + formName(result.form) + ", versions " +
           std::to_string(w.pipelineFeaturesVersion) + "/" + std::to_string(w.scheduleFeaturesVersion) + ", " +
           std::to_string(result.sizeBytes) + " bytes";
}

int errorCount(const LoadResult &result)
{
    int n = 0;
    for (const auto &d : result.diagnostics)
        n += d.severity == Severity::Error;
    return n;
}

struct InspectOptions {
    std::string path;
    bool json = false;
};

int inspect(const InspectOptions &options)
{
    // A path, or a shipped file's name ("harris"); a missing file is reported by the reader.
    std::string path = options.path;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        if (const auto shipped = findShippedWeights(path))
            path = shipped->string();
    const LoadResult result = loadWeights(path);
    const auto digest = weightsDigest(path, result);

    if (options.json) {
        Json doc = Json::object();
        doc["path"] = path;
        doc["form"] = formName(result.form);
        doc["valid"] = result.ok();
        doc["network"] = result.weights ? Json(networkName(result.weights->network)) : Json();
        doc["pipeline_features_version"] = result.weights ? Json(result.weights->pipelineFeaturesVersion) : Json();
        doc["schedule_features_version"] = result.weights ? Json(result.weights->scheduleFeaturesVersion) : Json();
        doc["size_bytes"] = result.sizeBytes;
        doc["sha256"] = digest ? Json(*digest) : Json();
        Json buffers = Json::array();
        if (result.weights)
            for (const Tensor &t : result.weights->tensors) {
                const TensorStats s = computeStats(t);
                Json b = Json::object();
                b["name"] = t.name;
                b["shape"] = shapeJson(t.shape);
                b["count"] = s.count;
                b["min"] = s.min;
                b["max"] = s.max;
                b["mean"] = s.mean;
                b["std"] = s.stddev;
                b["l2_norm"] = s.l2norm;
                b["nan_count"] = s.nanCount;
                b["inf_count"] = s.infCount;
                b["zero_count"] = s.zeroCount;
                buffers.push(std::move(b));
            }
        doc["buffers"] = std::move(buffers);
        doc["diagnostics"] = diagnosticsJson(result.diagnostics);
        std::cout << doc.dump(2) << "\n";
        if (!result.ok())
            for (const auto &d : result.diagnostics)
                if (d.severity == Severity::Error)
                    std::cerr << "error: " << d.format() << "\n";
        return result.ok() ? kSuccess : kFailure;
    }

    if (!result.ok()) {
        std::cerr << path << ": not a valid weights " << formName(result.form) << "\n";
        printDiagnostics(result.diagnostics);
        return kFailure;
    }
    const Weights &w = *result.weights;
    const auto &head2 = w.tensor(Head2Filter).shape;
    printTable(std::cout,
               {
                   {"path:", path},
                   {"form:", std::string(formName(result.form)) +
                                 (result.form == Form::File ? " (hwf1)" : " (six legacy .data files)")},
                   {"network:", std::string(networkName(w.network)) + " (head2_filter " + formatShape(head2) + ")"},
                   {"versions:", result.form == Form::Directory
                                     ? std::string("none stored (directory form; read as pipeline features 3, "
                                                   "schedule features 3)")
                                     : "pipeline features " + std::to_string(w.pipelineFeaturesVersion) +
                                           ", schedule features " + std::to_string(w.scheduleFeaturesVersion)},
                   {"size:", std::to_string(result.sizeBytes) + " bytes"},
                   {"sha256:", digest.value_or("?") +
                                   (result.form == Form::Directory ? " (of the equivalent .weights file)" : "")},
               },
               Align::Left);
    std::cout << "\n";
    std::vector<std::vector<std::string>> rows = {
        {"buffer", "shape", "count", "min", "max", "mean", "std", "l2_norm", "nan", "inf", "zero"}};
    for (const Tensor &t : w.tensors) {
        const TensorStats s = computeStats(t);
        rows.push_back({t.name, shapeText(t.shape), std::to_string(s.count), number(s.min), number(s.max),
                        number(s.mean), number(s.stddev), number(s.l2norm), std::to_string(s.nanCount),
                        std::to_string(s.infCount), std::to_string(s.zeroCount)});
    }
    printTable(std::cout, rows);
    if (!result.diagnostics.empty()) {
        std::cout << "\n";
        printDiagnostics(result.diagnostics);
    }
    return kSuccess;
}

int validate(const std::vector<std::string> &paths)
{
    int invalid = 0;
    for (const auto &path : paths) {
        const LoadResult result = loadWeights(path);
        if (!result.ok()) {
            invalid++;
            const int errors = errorCount(result);
            std::cout << "INVALID  " << path << " (" << errors << (errors == 1 ? " error" : " errors") << ")\n";
        } else if (result.hasWarnings()) {
            std::cout << "WARNINGS " << path << " (" << summary(result) << ")\n";
        } else {
            std::cout << "OK       " << path << " (" << summary(result) << ")\n";
        }
        std::cout.flush();
        printDiagnostics(result.diagnostics);
    }
    if (paths.size() > 1)
        std::cout << paths.size() - static_cast<size_t>(invalid) << " of " << paths.size() << " valid\n";
    return invalid ? kFailure : kSuccess;
}

struct ConvertOptions {
    std::string src, dst;
    bool force = false;
};

int convert(const ConvertOptions &options)
{
    const std::string &src = options.src, &dst = options.dst;
    const LoadResult result = loadWeights(src);
    if (!result.ok()) {
        std::cerr << src << ": not converted, the source is not valid weights; nothing was written\n";
        printDiagnostics(result.diagnostics);
        return kFailure;
    }
    for (const auto &d : result.diagnostics)
        std::cerr << "  " << severityName(d.severity) << ": " << d.format() << "\n";
    const Form form = formForDestination(dst);
    const Overwrite overwrite = options.force ? Overwrite::Replace : Overwrite::Refuse;
    const WriteResult written = form == Form::File ? saveWeightsFile(*result.weights, dst, overwrite)
                                                   : saveWeightsDirectory(*result.weights, dst, overwrite);
    if (!written.ok) {
        std::cerr << "error: " << written.error << "\n";
        return kFailure;
    }
    std::cout << "converted " << src << " (" << networkName(result.weights->network) << " " << formName(result.form)
              << ") to " << dst << " (" << formName(form) << ")\n";
    return kSuccess;
}

Json changeJson(const ElementChange &c)
{
    Json item = Json::object();
    item["index"] = shapeJson(c.index);
    item["flat_index"] = c.flatIndex;
    item["a"] = c.a;
    item["b"] = c.b;
    item["abs_diff"] = c.absDiff;
    return item;
}

struct DiffOptions {
    std::string a, b;
    bool json = false;
    size_t top = 5;
};

int diff(const DiffOptions &options)
{
    const std::string &pathA = options.a, &pathB = options.b;
    const LoadResult a = loadWeights(pathA), b = loadWeights(pathB);
    if (!a.ok() || !b.ok()) {
        for (const auto *r : {&a, &b})
            if (!r->ok()) {
                std::cerr << (r == &a ? pathA : pathB) << ": not valid weights\n";
                printDiagnostics(r->diagnostics);
            }
        return kFailure;
    }
    const WeightsDiff d = diffWeights(*a.weights, *b.weights, options.top);

    if (options.json) {
        Json doc = Json::object();
        doc["a"] = pathA;
        doc["b"] = pathB;
        doc["network_a"] = networkName(a.weights->network);
        doc["network_b"] = networkName(b.weights->network);
        doc["comparable"] = d.comparable;
        doc["reason"] = d.reason;
        size_t changed = 0;
        Json tensors = Json::array();
        for (const auto &t : d.tensors) {
            changed += t.changedCount;
            Json item = Json::object();
            item["name"] = t.name;
            item["shape"] = shapeJson(t.shape);
            item["changed_count"] = t.changedCount;
            item["max_abs_diff"] = t.maxAbsDiff;
            item["relative_l2"] = t.relativeL2; // null when A is all zeros and B is not
            item["cosine_similarity"] = t.cosineSimilarity;
            Json largest = Json::array();
            for (const auto &c : t.largest)
                largest.push(changeJson(c));
            item["largest"] = std::move(largest);
            tensors.push(std::move(item));
        }
        doc["changed_count"] = changed;
        doc["tensors"] = std::move(tensors);
        std::cout << doc.dump(2) << "\n";
        if (!d.comparable)
            std::cerr << "error: cannot compare " << pathA << " with " << pathB << ": " << d.reason << "\n";
        return d.comparable ? kSuccess : kFailure;
    }

    if (!d.comparable) {
        std::cerr << "error: cannot compare " << pathA << " with " << pathB << ": " << d.reason << "\n";
        return kFailure;
    }
    std::cout << "a: " << pathA << " (" << summary(a) << ")\n"
              << "b: " << pathB << " (" << summary(b) << ")\n\n";
    std::vector<std::vector<std::string>> rows = {
        {"buffer", "shape", "changed", "max_abs_diff", "relative_l2", "cosine"}};
    size_t changed = 0;
    for (const auto &t : d.tensors) {
        changed += t.changedCount;
        rows.push_back({t.name, shapeText(t.shape),
                        std::to_string(t.changedCount) + "/" + std::to_string(t.difference.size()),
                        number(t.maxAbsDiff), number(t.relativeL2), number(t.cosineSimilarity)});
    }
    printTable(std::cout, rows);
    if (changed == 0) {
        std::cout << "\nidentical: every value has the same bits\n";
        return kSuccess;
    }
    std::cout << "\nlargest changes (b - a):\n";
    std::vector<std::vector<std::string>> changes = {{"  buffer", "index", "a", "b", "|b - a|"}};
    for (const auto &t : d.tensors)
        for (const auto &c : t.largest) {
            std::string index = "(";
            for (size_t i = 0; i < c.index.size(); i++)
                index += (i ? ", " : "") + std::to_string(c.index[i]);
            changes.push_back({"  " + t.name, index + ")", number(c.a), number(c.b), number(c.absDiff)});
        }
    printTable(std::cout, changes);
    return kSuccess;
}

// The weights shipped with Beamscope (weights/README.md): their names, which
// every --weights option accepts, where they were found and what they are.
int list(bool json)
{
    const std::vector<ShippedWeights> shipped = listShippedWeights();
    if (json) {
        Json doc = Json::array();
        for (const ShippedWeights &w : shipped) {
            Json item = Json::object();
            item["name"] = w.name;
            item["path"] = w.path.string();
            item["hold_one_out"] = w.holdOneOut;
            item["description"] = describeShippedWeights(w);
            doc.push(std::move(item));
        }
        std::cout << doc.dump(2) << "\n";
    } else {
        std::vector<std::vector<std::string>> rows = {{"name", "what it is", "path"}};
        for (const ShippedWeights &w : shipped)
            rows.push_back({w.name, describeShippedWeights(w), w.path.string()});
        printTable(std::cout, rows, Align::Left);
    }
    if (shipped.empty()) {
        std::cerr << "beamscope-cli: no shipped weights found beside this program\n";
        return kFailure;
    }
    return kSuccess;
}

CommandRun defineList(CLI::App &app)
{
    auto json = std::make_shared<bool>(false);
    addJsonFlag(app, *json);
    return [json](const std::vector<std::string> &) { return list(*json); };
}

CommandRun defineInspect(CLI::App &app)
{
    auto o = std::make_shared<InspectOptions>();
    app.add_option("PATH", o->path, "a .weights file, a legacy directory or a shipped file's name")->required();
    addJsonFlag(app, o->json);
    return [o](const std::vector<std::string> &) { return inspect(*o); };
}

CommandRun defineValidate(CLI::App &app)
{
    auto paths = std::make_shared<std::vector<std::string>>();
    app.add_option("PATH", *paths, ".weights files or legacy directories")->required();
    return [paths](const std::vector<std::string> &) { return validate(*paths); };
}

CommandRun defineConvert(CLI::App &app)
{
    auto o = std::make_shared<ConvertOptions>();
    app.add_option("SRC", o->src, "the weights to convert")->required();
    app.add_option("DST", o->dst, "where to write them: a .weights file, or else a directory")->required();
    addFlag(app, "--force", o->force, "replace DST if it exists");
    return [o](const std::vector<std::string> &) { return convert(*o); };
}

CommandRun defineDiff(CLI::App &app)
{
    auto o = std::make_shared<DiffOptions>();
    app.add_option("A", o->a, "the weights compared with")->required();
    app.add_option("B", o->b, "the weights compared")->required();
    addJsonFlag(app, o->json);
    addInteger(app, "--top", o->top, "the number of largest changes listed per buffer");
    return [o](const std::vector<std::string> &) { return diff(*o); };
}

const CommandRegistration listCommand({"weights", "list", "[--json]",
                                       "the shipped weights files: the names --weights accepts, and their paths",
                                       defineList});
const CommandRegistration
    inspectCommand({"weights", "inspect", "PATH [--json]",
                    "shape, versions, sha256 and per-buffer statistics of a weights file or directory", defineInspect});
const CommandRegistration validateCommand({"weights", "validate", "PATH...",
                                           "check weights files or directories; exit 1 if any is invalid",
                                           defineValidate});
const CommandRegistration convertCommand({"weights", "convert", "SRC DST [--force]",
                                          "convert between a .weights file and a legacy directory (DST ending in "
                                          ".weights is a file); never replaces DST without --force",
                                          defineConvert});
const CommandRegistration
    diffCommand({"weights", "diff", "A B [--json] [--top N]",
                 "per-buffer max |b - a|, relative L2, cosine similarity and the N largest changes", defineDiff});

} // namespace

} // namespace beamscope::cli
