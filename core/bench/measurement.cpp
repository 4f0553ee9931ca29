#include "core/bench/measurement.h"

#include "core/util/bench_worker_path.h"

#include "core/util/child_process.h"

#include <cstdlib>
#include <sstream>
#include <unistd.h>

namespace beamscope::bench {

namespace fs = std::filesystem;

const char *failureName(Failure failure)
{
    switch (failure) {
    case Failure::None: return "none";
    case Failure::Compile: return "compile";
    case Failure::WorkerMissing: return "worker missing";
    case Failure::Crash: return "crash";
    case Failure::Timeout: return "timeout";
    case Failure::WrongOutput: return "wrong output";
    case Failure::PipelineError: return "pipeline error";
    case Failure::BadExit: return "bad exit";
    case Failure::BadReport: return "bad report";
    case Failure::Cancelled: return "cancelled";
    }
    return "?";
}

Json Measurement::toJson() const
{
    Json j = Json::object();
    j["pipeline"] = pipeline;
    j["schedule"] = schedule;
    j["target"] = target;
    j["ok"] = ok;
    if (failure != Failure::None) {
        j["failure"] = failureName(failure);
        j["message"] = message;
    }
    j["compile_seconds"] = compileSeconds;
    j["cache_hit"] = cacheHit;
    Json times = Json::array();
    for (double t : timesMs)
        times.push(t);
    j["times_ms"] = times;
    if (!timesMs.empty()) {
        j["min_ms"] = minMs;
        j["median_ms"] = medianMs;
    }
    Json c = Json::object();
    c["checked"] = checked;
    if (checked) {
        c["matches"] = matches;
        c["values"] = values;
        c["mismatches"] = mismatches;
        c["max_abs_error"] = maxAbsError;
        c["max_rel_error"] = maxRelError;
        if (!firstMismatch.empty())
            c["first_mismatch"] = firstMismatch;
        c["reference_target"] = referenceTarget;
        c["strict_float"] = strictFloat;
        if (!tolerance.empty())
            c["tolerance"] = tolerance;
    }
    j["correctness"] = c;
    if (!outputs.isNull())
        j["outputs"] = outputs;
    return j;
}

fs::path defaultWorkerPath() { return benchWorkerPath(); }

namespace {

// The last "phase X" line the worker wrote before it stopped.
std::string lastPhase(const std::string &log)
{
    const std::string marker = "beamscope-bench-worker: phase ";
    const size_t at = log.rfind(marker);
    if (at == std::string::npos)
        return "";
    const size_t end = log.find('\n', at);
    return log.substr(at + marker.size(), end == std::string::npos ? std::string::npos : end - at - marker.size());
}

std::string tail(const std::string &s, size_t n) { return s.size() <= n ? s : "..." + s.substr(s.size() - n); }

// The worker's stderr without its own lines: what the pipeline (the Halide
// runtime, an extern stage) said, most recent last.
std::string pipelineMessages(const std::string &log)
{
    std::istringstream in(log);
    std::string line, out;
    while (std::getline(in, line))
        if (!line.empty() && line.rfind("beamscope-bench-worker: ", 0) != 0)
            out += line + "\n";
    while (!out.empty() && out.back() == '\n')
        out.pop_back();
    return tail(out, 600);
}

const Json *lastJsonLine(const std::string &out, Json &storage)
{
    std::istringstream in(out);
    std::string line, last;
    while (std::getline(in, line))
        if (!line.empty() && line.front() == '{')
            last = line;
    if (last.empty())
        return nullptr;
    auto parsed = parseJson(last);
    if (!parsed.value)
        return nullptr;
    storage = *parsed.value;
    return &storage;
}

} // namespace

Measurement measure(const CompiledLibrary &candidate, const CompiledLibrary *reference, const RunOptions &options,
                    const Progress *progress)
{
    Measurement m;
    m.pipeline = candidate.pipeline;
    m.schedule = candidate.schedule;
    m.target = candidate.target;
    m.compileSeconds = candidate.compileSeconds;
    m.cacheHit = candidate.cacheHit;
    if (!candidate.ok) {
        m.failure = Failure::Compile;
        m.message = candidate.error;
        return m;
    }
    if (reference && !reference->ok) {
        m.failure = Failure::Compile;
        m.message = "the reference did not compile: " + reference->error;
        return m;
    }

    const fs::path worker = options.worker.empty() ? defaultWorkerPath() : options.worker;
    std::vector<std::string> argv = {worker.string(),
                                     "--candidate",
                                     candidate.library.string(),
                                     "--function",
                                     candidate.function,
                                     "--reps",
                                     std::to_string(options.reps),
                                     "--warmup",
                                     std::to_string(options.warmup),
                                     "--scale",
                                     std::to_string(options.scale),
                                     "--seed",
                                     std::to_string(options.seed)};
    if (reference) {
        for (const std::string &a : {std::string("--reference"), reference->library.string(),
                                     std::string("--reference-function"), reference->function})
            argv.push_back(a);
    }
    if (!options.injectFault.empty()) {
        argv.push_back("--inject-fault");
        argv.push_back(options.injectFault);
    }
    const ChildResult run = runChild(argv, options.timeoutSeconds, progress);
    m.workerLog = tail(run.err, 4000);
    const std::string phase = lastPhase(run.err);
    const std::string during = phase.empty() ? "" : " during " + phase;
    const std::string said = pipelineMessages(run.err);
    const std::string saidSuffix = said.empty() ? "" : "; it said: " + said;

    if (!run.started) {
        m.failure = Failure::WorkerMissing;
        m.message = run.startError + " (set BEAMSCOPE_BENCH_WORKER to the beamscope-bench-worker executable)";
        return m;
    }
    if (run.cancelled) {
        m.failure = Failure::Cancelled;
        m.message = "cancelled" + during;
        return m;
    }
    if (run.timedOut) {
        m.failure = Failure::Timeout;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", options.timeoutSeconds);
        m.message = std::string("timeout: the worker ran past ") + buf + " s" + during + " and was killed";
        return m;
    }
    if (run.signaled) {
        m.failure = Failure::Crash;
        m.message = "crash: the worker was killed by " + signalName(run.signal) + during + saidSuffix;
        return m;
    }
    Json storage;
    const Json *report = lastJsonLine(run.out, storage);
    if (run.exitCode != 0) {
        const std::string error = report && report->find("error") ? report->find("error")->toString() : said;
        m.failure = run.exitCode == 4 ? Failure::PipelineError : Failure::BadExit;
        m.message = "the worker exited with status " + std::to_string(run.exitCode) + during + ": " + error;
        if (!said.empty() && said != error)
            m.message += "; it said: " + said;
        return m;
    }
    if (!report || !report->find("ok") || !report->find("ok")->toBool()) {
        m.failure = Failure::BadReport;
        m.message = "the worker exited normally without a result line" + saidSuffix;
        return m;
    }

    for (const auto &t : report->find("times_ms") ? report->find("times_ms")->items() : Json::Array{})
        m.timesMs.push_back(t.toNumber());
    m.minMs = report->find("min_ms") ? report->find("min_ms")->toNumber() : 0;
    m.medianMs = report->find("median_ms") ? report->find("median_ms")->toNumber() : 0;
    if (const Json *t = report->find("target"))
        m.target = t->toString();
    if (const Json *o = report->find("outputs"))
        m.outputs = *o;
    if (const Json *c = report->find("correct")) {
        auto num = [&](const char *k) { return c->find(k) ? c->find(k)->toNumber() : 0.0; };
        m.checked = c->find("checked") && c->find("checked")->toBool();
        m.matches = c->find("matches") && c->find("matches")->toBool();
        m.values = num("values");
        m.mismatches = num("mismatches");
        m.maxAbsError = num("max_abs_error");
        m.maxRelError = num("max_rel_error");
        if (const Json *f = c->find("first_mismatch"))
            m.firstMismatch = f->toString();
        if (const Json *f = c->find("reference_target"))
            m.referenceTarget = f->toString();
    }
    if (m.checked && !m.matches) {
        m.failure = Failure::WrongOutput;
        char buf[96];
        std::snprintf(buf, sizeof buf, "%.0f of %.0f values", m.mismatches, m.values);
        m.message = std::string("wrong output: ") + buf + " differ from the reference; first at " + m.firstMismatch;
        return m;
    }
    m.ok = true;
    return m;
}

} // namespace beamscope::bench
