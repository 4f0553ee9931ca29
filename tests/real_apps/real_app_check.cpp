#include "tests/real_apps/real_app_check.h"

#include "core/dag/pipeline_features.h"
#include "core/gpu/device_facts.h"
#include "core/model/cost_model.h"
#include "core/model/cost_model_file.h"
#include "core/model/schedule_feature_names.h"
#include "core/samples/sample.h"
#include "core/search/device_limits.h"
#include "core/search/featurization.h"
#include "core/search/featurizer.h"
#include "core/search/beam_search.h"
#include "core/search/halide_steps.h"
#include "core/search/loop_nest_diff.h"
#include "core/search/loop_nest_parser.h"
#include "core/search/schedule_features.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

namespace beamscope::test::real_apps {

namespace {

std::string readText(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<float> readFloats(const std::filesystem::path &path, std::string &error)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path.string() + ": cannot read the file";
        return {};
    }
    std::ostringstream bytes;
    bytes << in.rdbuf();
    const std::string data = bytes.str();
    if (data.size() % sizeof(float) != 0) {
        error = path.string() + ": size " + std::to_string(data.size()) + " bytes is not a whole number of float32";
        return {};
    }
    std::vector<float> values(data.size() / sizeof(float));
    std::memcpy(values.data(), data.data(), data.size());
    return values;
}

std::string pipelineCellName(int index)
{
    return dag::featureRowName(index / samples::kPipelineFeatureTypes) + "." +
           dag::scalarTypeName(index % samples::kPipelineFeatureTypes);
}

} // namespace

std::vector<float> halidePipelineFeatures(const std::filesystem::path &file, int stages, std::string &error)
{
    const std::vector<float> halide = readFloats(file, error);
    if (!error.empty())
        return {};
    const size_t record = samples::kScheduleFeatureCount + samples::kTypesInUseCount + samples::kPipelineFeatureCount;
    if (halide.size() != record * static_cast<size_t>(stages)) {
        error = file.string() + ": " + std::to_string(halide.size() * 4) + " bytes, expected " +
                std::to_string(stages) + " stage records of " + std::to_string(record * 4);
        return {};
    }
    std::vector<float> out;
    for (size_t s = 0; s < static_cast<size_t>(stages); s++) {
        const float *pipeline = halide.data() + s * record + samples::kScheduleFeatureCount + samples::kTypesInUseCount;
        out.insert(out.end(), pipeline, pipeline + samples::kPipelineFeatureCount);
    }
    return out;
}

std::vector<std::string> stageNames(const search::SearchDag &dag)
{
    std::vector<std::string> names;
    for (const dag::StageRef &ref : dag.costStages())
        names.push_back(dag.dag().stage(ref).name);
    return names;
}

PipelineFeatureReport comparePipelineFeatures(const search::SearchDag &dag, const std::filesystem::path &file,
                                              Layout layout)
{
    PipelineFeatureReport report;
    std::string error;
    const std::vector<float> halide = readFloats(file, error);
    if (!error.empty()) {
        report.error = error;
        return report;
    }
    const int scheduleCount = layout == Layout::Anderson2021 ? samples::kScheduleFeatureCount : 39;
    const int record = scheduleCount + samples::kTypesInUseCount + samples::kPipelineFeatureCount;
    if (halide.size() % static_cast<size_t>(record) != 0) {
        report.error = file.string() + ": " + std::to_string(halide.size() * 4) + " bytes is not a whole number of " +
                       std::to_string(record * 4) + "-byte stage records";
        return report;
    }
    const std::vector<std::string> names = stageNames(dag);
    report.halideStages = static_cast<int>(halide.size() / static_cast<size_t>(record));
    report.ourStages = static_cast<int>(names.size());
    if (report.halideStages != report.ourStages) {
        report.error = file.string() + ": Halide has " + std::to_string(report.halideStages) + " stages, Beamscope " +
                       std::to_string(report.ourStages);
        return report;
    }
    // Beamscope's own featurization with empty schedule features: the pipeline part is the DAG's.
    const std::vector<search::ScheduleFeatures> none(names.size());
    const std::vector<float> ours = search::featurization(dag, none);
    for (int s = 0; s < report.ourStages; s++) {
        const float *h = halide.data() + static_cast<size_t>(s) * static_cast<size_t>(record) + scheduleCount;
        const float *o = ours.data() + static_cast<size_t>(s) * samples::kStageFloats + samples::kScheduleFeatureCount;
        for (int i = 0; i < samples::kTypesInUseCount + samples::kPipelineFeatureCount; i++) {
            if (h[i] == o[i])
                continue;
            const std::string cell = i < samples::kTypesInUseCount
                                         ? std::string("types_in_use.") + dag::scalarTypeName(i)
                                         : pipelineCellName(i - samples::kTypesInUseCount);
            report.differences.push_back({s, names[static_cast<size_t>(s)], cell, h[i], o[i]});
        }
    }
    return report;
}

LoopNestReport costLoopNest(const search::SearchDag &dag, const std::filesystem::path &loopNest,
                            const std::filesystem::path &weights,
                            const std::optional<std::filesystem::path> &featurization)
{
    LoopNestReport report;
    search::LoopNestParseResult parsed = search::parseLoopNestDump(dag, readText(loopNest));
    if (!parsed.state) {
        report.error = loopNest.string() + ": " + parsed.error;
        return report;
    }
    report.notes = parsed.notes;
    const search::State &state = *parsed.state;
    report.complete = state.complete();
    if (!report.complete) {
        report.error = loopNest.string() + ": the dump leaves Funcs unscheduled";
        return report;
    }
    // Halide's runs: a V100's parameters (parallelism 80), as the golden README says.
    const search::FeatureParams params = search::featureParamsFor(*gpu::findProfile("v100"));
    report.legality = state.legalityProblem(1024, params.sharedMemoryLimitBytes, params.activeWarpLimit);
    const std::vector<search::ScheduleFeatures> features = search::computeFeatures(state, params);

    std::string why;
    const std::unique_ptr<model::CostModel> model = model::loadCostModel(weights, why);
    if (!model) {
        report.error = weights.string() + ": " + why;
        return report;
    }
    std::vector<float> packed;
    for (const search::ScheduleFeatures &f : features)
        for (double v : f.values)
            packed.push_back(static_cast<float>(v));
    const model::Evaluation e =
        model->evaluate(dag.pipelineFeatures(), packed, static_cast<int>(features.size()), 1, params.parallelism);
    report.ourCost = e.predictions.at(0);
    report.ourStageCosts.assign(e.costPerStage.begin(), e.costPerStage.end());

    if (featurization) {
        std::string error;
        const std::vector<float> halide = readFloats(*featurization, error);
        const std::vector<float> ours = search::featurization(dag, features);
        if (!error.empty()) {
            report.featureError = error;
        } else if (halide.size() != ours.size()) {
            report.featureError = featurization->string() + ": " +
                                  std::to_string(halide.size() / samples::kStageFloats) + " stages, Beamscope " +
                                  std::to_string(ours.size() / samples::kStageFloats);
        } else {
            const std::vector<std::string> names = stageNames(dag);
            for (size_t s = 0; s < names.size(); s++)
                for (int i = 0; i < samples::kScheduleFeatureCount; i++) {
                    const size_t at = s * samples::kStageFloats + static_cast<size_t>(i);
                    if (halide[at] != ours[at])
                        report.scheduleDifferences.push_back(
                            {static_cast<int>(s), names[s], model::scheduleFeatureName(i), halide[at], ours[at]});
                }
        }
    }
    return report;
}

std::optional<double> halideTableValue(const std::filesystem::path &table, const std::string &app,
                                       const std::string &weights, const std::string &column)
{
    std::istringstream lines(readText(table));
    std::string line;
    std::getline(lines, line);
    std::vector<std::string> header;
    {
        std::istringstream fields(line);
        for (std::string f; std::getline(fields, f, '\t');)
            header.push_back(f);
    }
    const auto at = std::find(header.begin(), header.end(), column);
    if (at == header.end())
        return std::nullopt;
    const size_t index = static_cast<size_t>(at - header.begin());
    while (std::getline(lines, line)) {
        std::vector<std::string> fields;
        std::istringstream in(line);
        for (std::string f; std::getline(in, f, '\t');)
            fields.push_back(f);
        if (fields.size() > index && fields[0] == app && fields[1] == weights && !fields[index].empty())
            return std::stod(fields[index]);
    }
    return std::nullopt;
}

std::optional<double> halideBestCost(const std::filesystem::path &fixtures, const std::string &app,
                                     const std::string &weights, bool beam1)
{
    if (beam1)
        return halideTableValue(fixtures / "beam1.tsv", app, weights, "halide_best_cost");
    if (auto cost = halideTableValue(fixtures / "beam32_featurizations.tsv", app, weights, "halide_best_cost"))
        return cost;
    return halideTableValue(fixtures / "costs.tsv", app, weights, "halide_best_cost");
}

} // namespace beamscope::test::real_apps
