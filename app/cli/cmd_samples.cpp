// beamscope-cli samples summary: what a sample folder holds, per pipeline
// (core/samples/folder_summary.h), with an autotune run's failures and
// provenance. Wiring only.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "app/cli/text_table.h"
#include "core/samples/folder_summary.h"

#include <iostream>
#include <memory>

namespace beamscope::cli {

namespace {

using namespace beamscope::samples;

struct SummaryOptions {
    std::string folder;
    bool json = false;
};

int runSummary(const SummaryOptions &options)
{
    const std::filesystem::path root = options.folder;
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec)) {
        std::cerr << "beamscope-cli samples summary: " << root.string() << ": not a folder\n";
        return kFailure;
    }
    const FolderSummary s = summarizeFolder(root);
    if (options.json) {
        std::cout << s.toJson().dump(2) << "\n";
        return s.errors.empty() ? kSuccess : kFailure;
    }
    std::vector<std::vector<std::string>> rows = {
        {"pipeline", "id", "stages", "schedules", "samples", "min ms", "median ms", "max ms", "attempts"}};
    for (const PipelineSummary &p : s.pipelines) {
        std::string attempts;
        for (const auto &[status, n] : p.attempts)
            attempts += (attempts.empty() ? "" : ", ") + status + " " + std::to_string(n);
        const bool any = p.schedules > 0;
        rows.push_back({p.pipeline, std::to_string(p.pipelineId), std::to_string(p.stages), std::to_string(p.schedules),
                        std::to_string(p.samples), any ? formatNumber(p.minMs, "%.4g") : "-",
                        any ? formatNumber(p.medianMs, "%.4g") : "-", any ? formatNumber(p.maxMs, "%.4g") : "-",
                        attempts.empty() ? "-" : attempts});
    }
    printTable(std::cout, rows);
    for (const PipelineSummary &p : s.pipelines)
        for (const std::string &f : p.failures)
            std::cout << "failed: " << p.pipeline << " " << f << "\n";
    if (s.skipped)
        std::cout << s.skipped << " implausible sample(s) skipped\n";
    if (!s.provenance.isNull()) {
        std::cout << "provenance:\n";
        for (const auto &[key, value] : s.provenance.members())
            std::cout << "  " << key << ": " << (value.isString() ? value.toString() : value.dump()) << "\n";
    }
    for (const std::string &e : s.errors)
        std::cerr << "beamscope-cli samples summary: " << e << "\n";
    return s.errors.empty() ? kSuccess : kFailure;
}

CommandRun defineSummary(CLI::App &app)
{
    auto o = std::make_shared<SummaryOptions>();
    app.add_option("DIR", o->folder, "a sample folder or an autotune run folder")->required();
    addJsonFlag(app, o->json);
    return [o](const std::vector<std::string> &) { return runSummary(*o); };
}

const CommandRegistration registration{Command{
    "samples", "summary", "DIR [--json]",
    "per pipeline: schedules, runtimes (min/median/max), autotune failures by reason, provenance", defineSummary}};

} // namespace

} // namespace beamscope::cli
