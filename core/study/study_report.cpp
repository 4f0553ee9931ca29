#include "core/study/study_report.h"

#include "core/util/atomic_file.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace beamscope::study {

namespace {

// JSON writes NaN as null; a reader takes null (or an absent field) back as NaN.
double numberOr(const Json &object, std::string_view key, double fallback = NAN)
{
    const Json *v = object.find(key);
    return v && v->isNumber() ? v->toNumber() : fallback;
}

Json numbers(const std::vector<double> &values)
{
    Json a = Json::array();
    for (double v : values)
        a.push(v);
    return a;
}

std::vector<double> numbersOf(const Json *array)
{
    std::vector<double> out;
    if (array)
        for (const Json &v : array->items())
            out.push_back(v.isNumber() ? v.toNumber() : NAN);
    return out;
}

Json intervalJson(const Interval &i)
{
    Json a = Json::array();
    a.push(i.low);
    a.push(i.high);
    return a;
}

Interval intervalOf(const Json *array)
{
    const std::vector<double> v = numbersOf(array);
    return v.size() == 2 ? Interval{v[0], v[1]} : Interval{};
}

Json ranksJson(const RankFigures &r)
{
    Json j = Json::object();
    j["schedules"] = static_cast<uint64_t>(r.schedules);
    j["spearman"] = r.spearman;
    j["kendall"] = r.kendall;
    j["top1"] = r.top1;
    j["top5"] = r.top5;
    return j;
}

RankFigures ranksOf(const Json *j)
{
    RankFigures r;
    if (!j)
        return r;
    r.schedules = static_cast<size_t>(numberOr(*j, "schedules", 0));
    r.spearman = numberOr(*j, "spearman");
    r.kendall = numberOr(*j, "kendall");
    r.top1 = numberOr(*j, "top1");
    r.top5 = numberOr(*j, "top5");
    return r;
}

Json ratioJson(const RatioEstimate &r)
{
    Json j = Json::object();
    j["ratio"] = r.ratio;
    j["interval"] = intervalJson(r.interval);
    return j;
}

RatioEstimate ratioOf(const Json *j)
{
    RatioEstimate r;
    if (j) {
        r.ratio = numberOr(*j, "ratio");
        r.interval = intervalOf(j->find("interval"));
    }
    return r;
}

Json pickJson(const PickResult &p)
{
    Json j = Json::object();
    j["weights"] = p.weights;
    j["predicted_cost"] = p.predictedCost;
    j["search_seconds"] = p.searchSeconds;
    j["rounds_ms"] = numbers(p.roundsMs);
    j["median_ms"] = p.runtime.medianMs;
    j["interval_ms"] = intervalJson(p.runtime.interval);
    if (!p.error.empty())
        j["error"] = p.error;
    return j;
}

PickResult pickOf(const Json *j)
{
    PickResult p;
    if (!j)
        return p;
    if (const Json *w = j->find("weights"))
        p.weights = w->toString();
    p.predictedCost = numberOr(*j, "predicted_cost");
    p.searchSeconds = numberOr(*j, "search_seconds", 0);
    p.roundsMs = numbersOf(j->find("rounds_ms"));
    p.runtime.medianMs = numberOr(*j, "median_ms");
    p.runtime.interval = intervalOf(j->find("interval_ms"));
    p.runtime.runs = p.roundsMs.size();
    if (const Json *e = j->find("error"))
        p.error = e->toString();
    return p;
}

std::string fixed(double v, int digits)
{
    if (!std::isfinite(v))
        return "–";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string significant(double v)
{
    if (!std::isfinite(v))
        return "–";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

std::string intervalText(const Interval &i, int digits)
{
    return i.defined() ? "[" + fixed(i.low, digits) + ", " + fixed(i.high, digits) + "]" : "–";
}

std::string hit(double v) { return std::isfinite(v) ? (v > 0.5 ? "yes" : "no") : "–"; }

} // namespace

Json AppResult::toJson() const
{
    Json aj = Json::object();
    aj["app"] = app;
    aj["v100"] = pickJson(v100);
    aj["tuned"] = pickJson(tuned);
    aj["speedup"] = ratioJson(speedup);
    aj["loop_best_ms"] = loopBestMs;
    aj["v100_ranks"] = ranksJson(v100Ranks);
    aj["tuned_ranks"] = ranksJson(tunedRanks);
    aj["fine_tune_schedules"] = static_cast<uint64_t>(fineTuneSchedules);
    Json batches = Json::array();
    for (const LoopBatch &b : loop) {
        Json bj = Json::object();
        bj["batch"] = b.batch;
        bj["pick_ms"] = b.pickMs;
        bj["best_so_far_ms"] = b.bestSoFarMs;
        bj["out_of_sample"] = ranksJson(b.outOfSample);
        bj["predicted"] = numbers(b.predicted);
        bj["measured_ms"] = numbers(b.measuredMs);
        batches.push(bj);
    }
    aj["loop"] = batches;
    return aj;
}

std::optional<AppResult> AppResult::fromJson(const Json &aj, std::string &error)
{
    AppResult a;
    const Json *name = aj.find("app");
    if (!name || !name->isString()) {
        error = "field 'app': expected a string";
        return std::nullopt;
    }
    a.app = name->toString();
    a.v100 = pickOf(aj.find("v100"));
    a.tuned = pickOf(aj.find("tuned"));
    a.speedup = ratioOf(aj.find("speedup"));
    a.loopBestMs = numberOr(aj, "loop_best_ms");
    a.v100Ranks = ranksOf(aj.find("v100_ranks"));
    a.tunedRanks = ranksOf(aj.find("tuned_ranks"));
    a.fineTuneSchedules = static_cast<size_t>(numberOr(aj, "fine_tune_schedules", 0));
    if (const Json *batches = aj.find("loop"))
        for (const Json &bj : batches->items()) {
            LoopBatch b;
            b.batch = static_cast<int>(numberOr(bj, "batch", 0));
            b.pickMs = numberOr(bj, "pick_ms");
            b.bestSoFarMs = numberOr(bj, "best_so_far_ms");
            b.outOfSample = ranksOf(bj.find("out_of_sample"));
            b.predicted = numbersOf(bj.find("predicted"));
            b.measuredMs = numbersOf(bj.find("measured_ms"));
            a.loop.push_back(std::move(b));
        }
    return a;
}

Json StudyReport::toJson() const
{
    Json j = Json::object();
    j["format"] = "beamscope-device-study";
    j["version"] = 1;
    j["parameters"] = parameters;
    j["device"] = device;
    j["command"] = command;
    j["wall_seconds"] = wallSeconds;
    Json geomean = ratioJson(geomeanSpeedup);
    geomean["apps"] = static_cast<uint64_t>(appsMeasured);
    j["geomean_speedup"] = geomean;
    j["geomean_loop_gain"] = ratioJson(geomeanLoopGain);
    Json appList = Json::array();
    for (const AppResult &a : apps)
        appList.push(a.toJson());
    j["apps"] = appList;
    Json failed = Json::array();
    for (const FailedSchedule &f : failures) {
        Json fj = Json::object();
        fj["pipeline"] = f.pipeline;
        fj["batch"] = f.batch;
        fj["index"] = f.index;
        fj["status"] = f.status;
        fj["message"] = f.message;
        failed.push(fj);
    }
    j["failures"] = failed;
    Json counts = Json::object();
    for (const auto &[status, n] : scheduleCounts)
        counts[status] = n;
    j["schedule_counts"] = counts;
    return j;
}

std::optional<StudyReport> StudyReport::fromJson(const Json &j, std::string &error)
{
    const Json *format = j.find("format");
    if (!format || format->toString() != "beamscope-device-study") {
        error = "field 'format': expected \"beamscope-device-study\", found " + (format ? format->dump() : "nothing");
        return std::nullopt;
    }
    const Json *appList = j.find("apps");
    if (!appList || !appList->isArray()) {
        error = "field 'apps': expected an array";
        return std::nullopt;
    }
    StudyReport r;
    if (const Json *p = j.find("parameters"))
        r.parameters = *p;
    if (const Json *d = j.find("device"))
        r.device = d->toString();
    if (const Json *c = j.find("command"))
        r.command = c->toString();
    r.wallSeconds = numberOr(j, "wall_seconds", 0);
    r.geomeanSpeedup = ratioOf(j.find("geomean_speedup"));
    if (const Json *g = j.find("geomean_speedup"))
        r.appsMeasured = static_cast<size_t>(numberOr(*g, "apps", 0));
    r.geomeanLoopGain = ratioOf(j.find("geomean_loop_gain"));
    for (const Json &aj : appList->items()) {
        std::optional<AppResult> a = AppResult::fromJson(aj, error);
        if (!a) {
            // "field 'app': ..." of the entry, said of its place in the report.
            error.insert(std::string("field '").size(), "apps[" + std::to_string(r.apps.size()) + "].");
            return std::nullopt;
        }
        r.apps.push_back(std::move(*a));
    }
    if (const Json *failed = j.find("failures"))
        for (const Json &fj : failed->items()) {
            FailedSchedule f;
            if (const Json *v = fj.find("pipeline"))
                f.pipeline = v->toString();
            f.batch = static_cast<int>(numberOr(fj, "batch", 0));
            f.index = static_cast<int>(numberOr(fj, "index", 0));
            if (const Json *v = fj.find("status"))
                f.status = v->toString();
            if (const Json *v = fj.find("message"))
                f.message = v->toString();
            r.failures.push_back(std::move(f));
        }
    if (const Json *counts = j.find("schedule_counts"))
        for (const auto &[status, n] : counts->members())
            r.scheduleCounts[status] = static_cast<int>(n.toInt());
    return r;
}

void summarize(StudyReport &report)
{
    std::vector<PairedRounds> picks, loops;
    std::vector<std::vector<double>> loopBest; // kept alive for the spans
    loopBest.reserve(report.apps.size());
    for (AppResult &a : report.apps) {
        if (!a.v100.ok() || !a.tuned.ok()) {
            a.speedup = {}; // a failed pick has no speedup, whatever an earlier summary said
            continue;
        }
        a.speedup = ratioOfMedians({a.v100.roundsMs, a.tuned.roundsMs});
        picks.push_back({a.v100.roundsMs, a.tuned.roundsMs});
    }
    report.appsMeasured = picks.size();
    report.geomeanSpeedup = geomeanOfRatios(picks);
    // The loop's best was measured once (the best of its runs): its gain is a point figure per app.
    double logSum = 0;
    size_t n = 0;
    for (const AppResult &a : report.apps)
        if (a.v100.ok() && std::isfinite(a.loopBestMs) && a.loopBestMs > 0) {
            logSum += std::log(a.v100.runtime.medianMs / a.loopBestMs);
            ++n;
        }
    report.geomeanLoopGain = {};
    if (n)
        report.geomeanLoopGain.ratio = std::exp(logSum / double(n));
}

std::string speedupReason(const AppResult &a)
{
    if (!a.v100.ok())
        return "no V100 pick measured (" + (a.v100.error.empty() ? "no rounds" : a.v100.error.substr(0, 120)) + ")";
    if (!a.tuned.ok())
        return "no fine-tuned pick measured (" + (a.tuned.error.empty() ? "no rounds" : a.tuned.error.substr(0, 120)) +
               ")";
    std::string reason;
    const Interval &i = a.speedup.interval;
    if (i.defined() && i.low <= 1 && i.high >= 1)
        reason = "not told apart from 1x: the interval " + intervalText(i, 2) + " holds it (device noise over " +
                 std::to_string(a.v100.roundsMs.size()) + " rounds)";
    else if (i.defined() && i.low > 1)
        reason = "the fine-tuned pick is faster";
    else if (i.defined())
        reason = "the fine-tuned pick is slower";
    else
        reason = "too few rounds for an interval";
    if (std::isfinite(a.v100Ranks.spearman) && std::isfinite(a.tunedRanks.spearman)) {
        const double change = a.tunedRanks.spearman - a.v100Ranks.spearman;
        const char *verdict = std::abs(change) < 0.05 ? "ordered the app's samples about as well"
                              : change > 0            ? "ordered the app's samples better"
                                                      : "did not order the app's samples better";
        reason += std::string("; the fine-tune ") + verdict + " (Spearman " + fixed(a.v100Ranks.spearman, 2) + " -> " +
                  fixed(a.tunedRanks.spearman, 2) + ", " + std::to_string(a.v100Ranks.schedules) + " schedules)";
    }
    reason += "; trained on " + std::to_string(a.fineTuneSchedules) + " schedules of other pipelines";
    return reason;
}

std::string reportMarkdown(const StudyReport &r)
{
    std::ostringstream md;
    md << "# Device study: Halide's V100 hold-one-out weights against weights fine-tuned on this device\n\n";
    md << "Device: " << r.device << ". ";
    if (r.wallSeconds > 0)
        md << "Time since the study began: " << fixed(r.wallSeconds / 60, 1) << " min. ";
    md << "Command:\n\n```\n" << r.command << "\n```\n\n";
    md << "## Picks at beam 32\n\n";
    md << "Each app's pick with Halide's file for it (trained on a V100 without the app) against the pick with that "
          "file fine-tuned on this device's samples of every other app and of random pipelines (never the app "
          "itself). Both schedules were timed in interleaved rounds; runtimes are medians of the rounds with 95% "
          "bootstrap intervals. Speedup = V100 pick / fine-tuned pick (> 1: the fine-tuned pick is faster).\n\n";
    md << "| app | V100 pick (ms) | 95% interval | fine-tuned pick (ms) | 95% interval | speedup | 95% interval | "
          "loop's best (ms) |\n";
    md << "| --- | ---: | --- | ---: | --- | ---: | --- | ---: |\n";
    for (const AppResult &a : r.apps) {
        md << "| " << a.app << " | " << significant(a.v100.runtime.medianMs) << " | "
           << intervalText(a.v100.runtime.interval, 3) << " | " << significant(a.tuned.runtime.medianMs) << " | "
           << intervalText(a.tuned.runtime.interval, 3) << " | " << fixed(a.speedup.ratio, 2) << "x | "
           << intervalText(a.speedup.interval, 2) << " | " << significant(a.loopBestMs) << " |\n";
    }
    md << "\n**Geomean speedup of the fine-tuned picks: " << fixed(r.geomeanSpeedup.ratio, 3) << "x**, 95% interval "
       << intervalText(r.geomeanSpeedup.interval, 3) << ", over " << r.appsMeasured << " app(s). ";
    md << "The Halide-style loop's best schedule against the V100 pick: " << fixed(r.geomeanLoopGain.ratio, 3)
       << "x geomean.\n\n";
    for (const AppResult &a : r.apps) {
        if (!a.v100.error.empty())
            md << "- " << a.app << ", V100 pick: " << a.v100.error << "\n";
        if (!a.tuned.error.empty())
            md << "- " << a.app << ", fine-tuned pick: " << a.tuned.error << "\n";
    }
    md << "\n![picks](plots/picks.svg)\n\n";

    md << "## Against the target of " << fixed(kTargetSpeedup, 1) << "x\n\n";
    if (std::isfinite(r.geomeanSpeedup.ratio)) {
        if (r.geomeanSpeedup.ratio >= kTargetSpeedup)
            md << "Met: the geomean speedup is " << fixed(r.geomeanSpeedup.ratio, 3) << "x.";
        else
            md << "Not met: the geomean speedup is " << fixed(r.geomeanSpeedup.ratio, 3) << "x, "
               << fixed(100 * (1 - r.geomeanSpeedup.ratio / kTargetSpeedup), 1) << "% short of "
               << fixed(kTargetSpeedup, 1) << "x.";
    } else {
        md << "No app had both picks measured.";
    }
    md << " Per app:\n\n";
    for (const AppResult &a : r.apps)
        md << "- **" << a.app << "** (" << fixed(a.speedup.ratio, 2) << "x): " << speedupReason(a) << "\n";
    md << "\n";

    md << "## Rank figures on samples the file was not trained on\n\n";
    md << "Each app's own samples from this device: neither Halide's file nor the fine-tuned one saw them. "
          "Top-1 / top-5: the fastest measured schedule is the model's first / among its first five.\n\n";
    md << "| app | schedules | V100 Spearman | tuned Spearman | V100 Kendall | tuned Kendall | V100 top-1 | tuned "
          "top-1 | "
          "V100 top-5 | tuned top-5 |\n";
    md << "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- | --- |\n";
    for (const AppResult &a : r.apps)
        md << "| " << a.app << " | " << a.v100Ranks.schedules << " | " << fixed(a.v100Ranks.spearman, 2) << " | "
           << fixed(a.tunedRanks.spearman, 2) << " | " << fixed(a.v100Ranks.kendall, 2) << " | "
           << fixed(a.tunedRanks.kendall, 2) << " | " << hit(a.v100Ranks.top1) << " | " << hit(a.tunedRanks.top1)
           << " | " << hit(a.v100Ranks.top5) << " | " << hit(a.tunedRanks.top5) << " |\n";

    md << "\n## The Halide-style loop, batch by batch\n\n";
    md << "Per app: the loop retrains on the app's own samples after each batch, as Halide's autotune script does. "
          "Batch 0's pick is the V100 pick. The Spearman of a batch is its weights' (trained on earlier batches "
          "only) on that batch's schedules.\n\n";
    md << "| app | batch | pick (ms) | best so far (ms) | schedules | Spearman | Kendall |\n";
    md << "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for (const AppResult &a : r.apps)
        for (const LoopBatch &b : a.loop)
            md << "| " << a.app << " | " << b.batch << " | " << significant(b.pickMs) << " | "
               << significant(b.bestSoFarMs) << " | " << b.outOfSample.schedules << " | "
               << fixed(b.outOfSample.spearman, 2) << " | " << fixed(b.outOfSample.kendall, 2) << " |\n";
    md << "\n![learning curve](plots/loop.svg)\n\n";

    md << "## Generated schedules that failed\n\n";
    md << "Counts over every schedule the study generated:";
    for (const auto &[status, n] : r.scheduleCounts)
        md << " " << status << " " << n << ";";
    md << "\n\n";
    if (r.failures.empty())
        md << "None hung, crashed or computed a wrong output.\n";
    for (const FailedSchedule &f : r.failures)
        md << "- " << f.pipeline << " batch " << f.batch << " #" << f.index << ": " << f.status
           << (f.message.empty() ? "" : ": " + f.message.substr(0, 200)) << "\n";
    return md.str();
}

bool isStudyFolder(const std::filesystem::path &folder)
{
    std::error_code ec;
    return std::filesystem::is_regular_file(folder / "study.json", ec) &&
           std::filesystem::is_regular_file(folder / "report.json", ec);
}

std::optional<StudyReport> readStudyReport(const std::filesystem::path &folder, std::string &error)
{
    const std::filesystem::path file = folder / "report.json";
    const std::optional<std::string> text = readTextFile(file);
    if (!text) {
        error = file.string() + ": cannot be read (run beamscope-cli device-study on the folder first)";
        return std::nullopt;
    }
    const JsonParseResult parsed = parseJson(*text);
    if (!parsed.value) {
        error = file.string() + ": " + parsed.error;
        return std::nullopt;
    }
    std::optional<StudyReport> report = StudyReport::fromJson(*parsed.value, error);
    if (!report)
        error = file.string() + ": " + error;
    return report;
}

} // namespace beamscope::study
