// beamscope-cli samples diff: where two featurizations of one pipeline (a
// generator's .featurization or a .sample, e.g. Beamscope's and Halide's own of
// the same loop nest) differ, stage by stage and feature by feature. Wiring
// only: the comparison is core/samples/feature_diff.h.

#include "app/cli/arguments.h"
#include "app/cli/command.h"
#include "app/cli/halide/stage_labels.h"
#include "app/cli/text_table.h"
#include "core/dag/pipeline_features.h"
#include "core/model/schedule_feature_names.h"
#include "core/samples/feature_diff.h"
#include "core/util/json.h"

#include <iostream>
#include <memory>

namespace beamscope::cli {

namespace {

struct DiffOptions {
    std::string a, b;
    std::optional<std::string> stageNames;
    double tolerance = 0;
    bool json = false;
};

std::string featureName(const samples::FeatureDifference &d)
{
    switch (d.part) {
    case samples::RecordPart::Schedule: return model::scheduleFeatureName(d.index);
    case samples::RecordPart::TypesInUse: return std::string("types_in_use.") + dag::scalarTypeName(d.index);
    case samples::RecordPart::Pipeline: break;
    }
    return pipelineFeatureLabel(d.index);
}

int runDiff(const DiffOptions &options)
{
    const samples::SampleReadResult a = samples::readFeatures(options.a), b = samples::readFeatures(options.b);
    for (const auto *r : {&a, &b})
        if (!r->ok()) {
            std::cerr << "beamscope-cli: " << r->error << "\n";
            return kFailure;
        }
    const samples::FeatureDiff diff = samples::diffFeatures(*a.sample, *b.sample, options.tolerance);
    if (!diff.ok()) {
        std::cerr << "beamscope-cli: " << options.a << ", " << options.b << ": " << diff.error << "\n";
        return kFailure;
    }
    const int stages = a.sample->stageCount();
    std::string error;
    const std::vector<std::string> names = stageLabels(options.stageNames, stages, error);
    if (names.empty()) {
        std::cerr << "beamscope-cli: " << error << "\n";
        return kFailure;
    }

    if (options.json) {
        Json list = Json::array();
        for (const auto &d : diff.differences) {
            Json j = Json::object();
            j["stage"] = static_cast<int64_t>(d.stage);
            j["stage_name"] = names[static_cast<size_t>(d.stage)];
            j["feature"] = featureName(d);
            j["a"] = d.a;
            j["b"] = d.b;
            list.push(std::move(j));
        }
        Json doc = Json::object();
        doc["a"] = options.a;
        doc["b"] = options.b;
        doc["stages"] = static_cast<int64_t>(stages);
        doc["differences"] = std::move(list);
        std::cout << doc.dump(2) << "\n";
    } else {
        std::cout << "a: " << options.a << "\nb: " << options.b << "\n"
                  << stages << " stages, " << diff.differences.size() << " values differ\n";
        if (!diff.differences.empty()) {
            std::vector<std::vector<std::string>> rows{{"stage", "feature", "a", "b", "b/a"}};
            for (const auto &d : diff.differences)
                rows.push_back({names[static_cast<size_t>(d.stage)], featureName(d), formatNumber(d.a, "%.9g"),
                                formatNumber(d.b, "%.9g"), d.a == 0 ? "-" : formatNumber(d.b / d.a, "%.6g")});
            std::cout << "\n";
            printTable(std::cout, rows);
        }
    }
    return diff.differences.empty() ? kSuccess : kFailure;
}

CommandRun defineDiff(CLI::App &app)
{
    auto o = std::make_shared<DiffOptions>();
    app.add_option("A", o->a, "a .featurization or .sample")->required();
    app.add_option("B", o->b, "another featurization of the same pipeline")->required();
    addText(app, "--stage-names", o->stageNames, "the stages' names, comma-separated, in the features' order");
    addNumber(app, "--tolerance", o->tolerance, "relative difference allowed (default 0: exactly equal)", 0, 1);
    addJsonFlag(app, o->json);
    return [o](const std::vector<std::string> &) { return runDiff(*o); };
}

const CommandRegistration registration{
    Command{"samples", "diff", "A B [--stage-names A,B,...] [--tolerance R] [--json]",
            "where two featurizations of one pipeline differ, stage by stage and feature by feature (exit 1 when "
            "they do)",
            defineDiff}};

} // namespace

} // namespace beamscope::cli
