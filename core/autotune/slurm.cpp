#include "core/autotune/slurm.h"

#include "core/samples/dataset.h"
#include "core/samples/run_folder.h"
#include "core/util/atomic_file.h"

#include <cstdio>
#include <map>
#include <set>

namespace fs = std::filesystem;

namespace beamscope::autotune {

namespace {

std::string joinQuoted(const std::vector<std::string> &args)
{
    std::string out;
    for (const std::string &a : args)
        out += " " + shellQuote(a);
    return out;
}

std::string batchTag(int batch)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04d", batch);
    return buf;
}

bool writeText(const fs::path &path, const std::string &text, std::string *error)
{
    const WriteResult w = replaceTextFile(path, text);
    if (!w.ok && error)
        *error = w.error;
    return w.ok;
}

} // namespace

fs::path slurmFolder(const fs::path &out) { return out / "slurm"; }

fs::path shardFolder(const fs::path &out, int batch, int task)
{
    return slurmFolder(out) / ("batch_" + batchTag(batch)) / ("task_" + std::to_string(task));
}

Json SlurmPlan::toJson() const
{
    Json j = Json::object();
    j["out"] = out.string();
    j["cli"] = cli;
    Json args = Json::array();
    for (const std::string &a : autotuneArgs)
        args.push(a);
    j["autotune_args"] = args;
    j["batches"] = batches;
    Json s = Json::object();
    s["tasks"] = slurm.tasks;
    s["partition"] = slurm.partition;
    s["account"] = slurm.account;
    s["time"] = slurm.time;
    s["gpus_per_task"] = slurm.gpusPerTask;
    s["cpus_per_task"] = slurm.cpusPerTask;
    s["retries"] = slurm.retries;
    Json extra = Json::array();
    for (const std::string &a : slurm.sbatchArgs)
        extra.push(a);
    s["sbatch_args"] = extra;
    j["slurm"] = s;
    return j;
}

std::optional<SlurmPlan> SlurmPlan::fromJson(const Json &j, std::string *error)
{
    const Json *s = j.find("slurm");
    if (!j.find("out") || !j.find("cli") || !j.find("autotune_args") || !j.find("batches") || !s) {
        if (error)
            *error = "plan.json: expected fields out, cli, autotune_args, batches and slurm";
        return std::nullopt;
    }
    SlurmPlan p;
    p.out = j.find("out")->toString();
    p.cli = j.find("cli")->toString();
    for (const Json &a : j.find("autotune_args")->items())
        p.autotuneArgs.push_back(a.toString());
    p.batches = static_cast<int>(j.find("batches")->toInt(1));
    auto text = [&](const char *k) { return s->find(k) ? s->find(k)->toString() : std::string(); };
    auto number = [&](const char *k, int64_t d) { return s->find(k) ? s->find(k)->toInt(d) : d; };
    p.slurm.tasks = static_cast<int>(number("tasks", 2));
    p.slurm.partition = text("partition");
    p.slurm.account = text("account");
    p.slurm.time = text("time");
    p.slurm.gpusPerTask = static_cast<int>(number("gpus_per_task", 0));
    p.slurm.cpusPerTask = static_cast<int>(number("cpus_per_task", 0));
    p.slurm.retries = static_cast<int>(number("retries", 2));
    if (const Json *extra = s->find("sbatch_args"))
        for (const Json &a : extra->items())
            p.slurm.sbatchArgs.push_back(a.toString());
    return p;
}

std::string arrayScript(const SlurmPlan &plan)
{
    const std::string out = plan.out.string();
    return "#!/bin/bash\n"
           "# One shard of an autotune batch (beamscope-cli autotune --slurm; docs/slurm.md).\n"
           "# Usage (by the merge job and the first submission): sbatch --array=TASKS autotune.sbatch BATCH\n"
           "#SBATCH --job-name=beamscope-autotune\n"
           "#SBATCH --output=" +
           out + "/slurm/logs/autotune-%A_%a.log\n" + sbatchDirectives(plan.slurm, true) +
           "set -euo pipefail\n"
           "batch=\"$1\"\n"
           "task=\"$SLURM_ARRAY_TASK_ID\"\n"
           "shard=\"$(printf '%s/slurm/batch_%04d/task_%d' " +
           shellQuote(out) +
           " \"$batch\" \"$task\")\"\n"
           "exec " +
           shellQuote(plan.cli) + " autotune --out \"$shard\" --prior " + shellQuote(out) +
           " --batch \"$batch\" --shard \"$task/" + std::to_string(plan.slurm.tasks) + "\" --batches " +
           std::to_string(plan.batches) + joinQuoted(plan.autotuneArgs) + " --no-retrain\n";
}

std::string mergeScript(const SlurmPlan &plan)
{
    const std::string out = plan.out.string();
    return "#!/bin/bash\n"
           "# Gathers an autotune batch's shards into the run folder, resubmits failed shards, retrains,\n"
           "# submits the next batch (beamscope-cli autotune --slurm; docs/slurm.md).\n"
           "# Usage: sbatch --dependency=afterany:ARRAY merge.sbatch BATCH ATTEMPT\n"
           "#SBATCH --job-name=beamscope-merge\n"
           "#SBATCH --output=" +
           out + "/slurm/logs/merge-%j.log\n" + sbatchDirectives(plan.slurm, false) +
           "set -euo pipefail\n"
           "exec " +
           shellQuote(plan.cli) + " autotune --out " + shellQuote(out) + " --batches " + std::to_string(plan.batches) +
           joinQuoted(plan.autotuneArgs) + " --slurm-merge \"$1\" --slurm-attempt \"$2\"\n";
}

Json Submission::toJson() const
{
    Json j = Json::object();
    j["batch"] = batch;
    j["attempt"] = attempt;
    Json t = Json::array();
    for (int k : tasks)
        t.push(k);
    j["tasks"] = t;
    j["array_job"] = arrayJob;
    j["merge_job"] = mergeJob;
    return j;
}

std::vector<Submission> readSubmissions(const fs::path &out)
{
    std::vector<Submission> subs;
    const auto text = readTextFile(slurmFolder(out) / "jobs.json");
    const JsonParseResult parsed = text ? parseJson(*text) : JsonParseResult{};
    if (!parsed.value)
        return subs;
    for (const Json &j : parsed.value->items()) {
        Submission s;
        s.batch = static_cast<int>(j.find("batch") ? j.find("batch")->toInt() : 0);
        s.attempt = static_cast<int>(j.find("attempt") ? j.find("attempt")->toInt() : 0);
        if (const Json *t = j.find("tasks"))
            for (const Json &k : t->items())
                s.tasks.push_back(static_cast<int>(k.toInt()));
        s.arrayJob = j.find("array_job") ? j.find("array_job")->toString() : "";
        s.mergeJob = j.find("merge_job") ? j.find("merge_job")->toString() : "";
        subs.push_back(s);
    }
    return subs;
}

std::optional<SlurmPlan> readPlan(const fs::path &out, std::string &error)
{
    const auto text = readTextFile(slurmFolder(out) / "plan.json");
    if (!text) {
        error = (slurmFolder(out) / "plan.json").string() + ": not found (was this run submitted with --slurm?)";
        return std::nullopt;
    }
    const JsonParseResult parsed = parseJson(*text);
    if (!parsed.value) {
        error = (slurmFolder(out) / "plan.json").string() + ": " + parsed.error;
        return std::nullopt;
    }
    return SlurmPlan::fromJson(*parsed.value, &error);
}

std::optional<Submission> submitBatch(const SlurmPlan &plan, int batch, const std::vector<int> &tasks, int attempt,
                                      std::string &error)
{
    const fs::path dir = slurmFolder(plan.out);
    std::error_code ec;
    fs::create_directories(dir / "logs", ec);
    if (!writeText(dir / samples::kNotSamplesMarker,
                   "The unmerged shards of a Slurm autotune run: the merge job copies them into the run folder.\n",
                   &error) ||
        !writeText(dir / "plan.json", plan.toJson().dump(2) + "\n", &error) ||
        !writeText(dir / "autotune.sbatch", arrayScript(plan), &error) ||
        !writeText(dir / "merge.sbatch", mergeScript(plan), &error))
        return std::nullopt;
    fs::permissions(dir / "autotune.sbatch", fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add, ec);
    fs::permissions(dir / "merge.sbatch", fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add, ec);

    std::string list;
    for (int k : tasks)
        list += (list.empty() ? "" : ",") + std::to_string(k);
    std::vector<std::string> array = {"--array=" + list};
    array.insert(array.end(), plan.slurm.sbatchArgs.begin(), plan.slurm.sbatchArgs.end());
    array.push_back((dir / "autotune.sbatch").string());
    array.push_back(std::to_string(batch));
    const std::optional<std::string> arrayJob = sbatch(array, error);
    if (!arrayJob) {
        error = "the array of batch " + std::to_string(batch) + ": " + error;
        return std::nullopt;
    }
    Submission s;
    s.batch = batch;
    s.attempt = attempt;
    s.tasks = tasks;
    s.arrayJob = *arrayJob;
    std::vector<std::string> merge = {"--dependency=afterany:" + s.arrayJob};
    merge.insert(merge.end(), plan.slurm.sbatchArgs.begin(), plan.slurm.sbatchArgs.end());
    merge.push_back((dir / "merge.sbatch").string());
    merge.push_back(std::to_string(batch));
    merge.push_back(std::to_string(attempt));
    const std::optional<std::string> mergeJob = sbatch(merge, error);
    if (!mergeJob) {
        error = "the merge job of batch " + std::to_string(batch) + ": " + error;
        std::string ignored;
        scancel({s.arrayJob}, ignored);
        return std::nullopt;
    }
    s.mergeJob = *mergeJob;

    Json all = Json::array();
    for (const Submission &old : readSubmissions(plan.out))
        all.push(old.toJson());
    all.push(s.toJson());
    if (!writeText(dir / "jobs.json", all.dump(2) + "\n", &error))
        return std::nullopt;
    return s;
}

std::vector<int> incompleteShards(const fs::path &out, int batch, int tasks)
{
    std::vector<int> missing;
    for (int k = 0; k < tasks; k++)
        if (!fs::exists(samples::RunFolder(shardFolder(out, batch, k)).batchDone(batch)))
            missing.push_back(k);
    return missing;
}

SlurmStatus slurmStatus(const fs::path &out)
{
    SlurmStatus st;
    std::string error;
    const std::optional<SlurmPlan> plan = readPlan(out, error);
    if (!plan) {
        st.error = error;
        return st;
    }
    st.batches = plan->batches;
    for (int b = 0; b < plan->batches; b++)
        if (fs::exists(samples::RunFolder(out).batchDone(b)))
            st.batchesDone++;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(out, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (it->is_directory() && it->path().filename() == "slurm") {
            it.disable_recursion_pending();
            continue;
        }
        if (it->path().extension() == ".sample")
            st.samples++;
    }

    const std::vector<Submission> subs = readSubmissions(out);
    std::vector<std::string> ids;
    for (const Submission &s : subs) {
        ids.push_back(s.arrayJob);
        ids.push_back(s.mergeJob);
    }
    std::map<std::string, std::string> queued = squeueStates(ids); // "<job>_<task>" or "<job>" -> state
    // The latest submission of each (batch, task).
    std::map<std::pair<int, int>, const Submission *> latest;
    std::map<int, int> lastAttempt;
    for (const Submission &s : subs) {
        for (int k : s.tasks)
            latest[{s.batch, k}] = &s;
        lastAttempt[s.batch] = std::max(lastAttempt[s.batch], s.attempt);
        if (s.attempt > 0)
            for (int k : s.tasks)
                st.resubmitted.push_back("batch " + std::to_string(s.batch) + " task " + std::to_string(k) +
                                         " (attempt " + std::to_string(s.attempt) + ")");
        if (queued.count(s.mergeJob))
            st.pendingJobs.push_back(s.mergeJob + " (merge of batch " + std::to_string(s.batch) + ", " +
                                     queued[s.mergeJob] + ")");
    }
    for (const auto &[key, s] : latest) {
        SlurmTaskState t;
        t.batch = key.first;
        t.task = key.second;
        t.attempt = s->attempt;
        t.jobId = s->arrayJob + "_" + std::to_string(key.second);
        const samples::RunFolder shard(shardFolder(out, key.first, key.second));
        t.records = shard.readRecords().size();
        if (auto q = queued.find(t.jobId); q != queued.end())
            t.state = q->second;
        else if (fs::exists(shard.batchDone(key.first)))
            t.state = "done";
        else
            t.state = "failed";
        if (t.state == "failed" && s->attempt >= plan->slurm.retries && !queued.count(s->mergeJob))
            st.failedFinally.push_back("batch " + std::to_string(t.batch) + " task " + std::to_string(t.task));
        st.tasks.push_back(t);
    }
    return st;
}

Json SlurmStatus::toJson() const
{
    Json j = Json::object();
    j["batches"] = batches;
    j["batches_done"] = batchesDone;
    j["samples"] = static_cast<uint64_t>(samples);
    std::map<std::string, int> counts;
    Json tasksJson = Json::array();
    for (const SlurmTaskState &t : tasks) {
        counts[t.state]++;
        Json e = Json::object();
        e["batch"] = t.batch;
        e["task"] = t.task;
        e["attempt"] = t.attempt;
        e["job"] = t.jobId;
        e["state"] = t.state;
        e["records"] = static_cast<uint64_t>(t.records);
        tasksJson.push(e);
    }
    Json c = Json::object();
    for (const auto &[k, v] : counts)
        c[k] = v;
    j["task_states"] = c;
    j["tasks"] = tasksJson;
    Json p = Json::array();
    for (const std::string &s : pendingJobs)
        p.push(s);
    j["pending_merge_jobs"] = p;
    Json r = Json::array();
    for (const std::string &s : resubmitted)
        r.push(s);
    j["resubmitted"] = r;
    Json f = Json::array();
    for (const std::string &s : failedFinally)
        f.push(s);
    j["failed"] = f;
    if (!error.empty())
        j["error"] = error;
    return j;
}

std::optional<Submission> submitSlurmRun(const AutotuneRequest &request, const SlurmOptions &slurm,
                                         const std::string &cli, std::string &error, bool *allComplete)
{
    if (allComplete)
        *allComplete = false;
    SlurmPlan plan;
    plan.out = fs::absolute(request.outDir);
    plan.cli = cli;
    plan.autotuneArgs = requestArguments(request);
    plan.batches = request.batches;
    plan.slurm = slurm;
    AutotuneRequest prepare = request;
    prepare.outDir = plan.out.string();
    prepare.prepareOnly = true;
    const AutotuneResult prepared = runAutotune(prepare);
    if (!prepared.ok) {
        error = prepared.error;
        return std::nullopt;
    }
    int first = 0;
    while (first < request.batches && fs::exists(samples::RunFolder(plan.out).batchDone(first)))
        first++;
    if (first == request.batches) {
        if (allComplete)
            *allComplete = true;
        return std::nullopt;
    }
    std::vector<int> tasks;
    for (int k = 0; k < slurm.tasks; k++)
        tasks.push_back(k);
    return submitBatch(plan, first, tasks, 0, error);
}

MergeOutcome mergeSlurmBatch(AutotuneRequest request, int batch, int attempt, Progress *progress,
                             const AutotuneEvents &events)
{
    MergeOutcome m;
    const std::optional<SlurmPlan> plan = readPlan(request.outDir, m.error);
    if (!plan)
        return m;
    const std::vector<int> missing = incompleteShards(plan->out, batch, plan->slurm.tasks);
    if (!missing.empty() && attempt < plan->slurm.retries) {
        m.resubmitted = submitBatch(*plan, batch, missing, attempt + 1, m.error);
        m.ok = m.resubmitted.has_value();
        return m;
    }
    m.givenUp = missing;
    request.onlyBatch = batch;
    request.mergeFrom.clear();
    for (int k = 0; k < plan->slurm.tasks; k++)
        request.mergeFrom.push_back(shardFolder(plan->out, batch, k).string());
    m.result = runAutotune(request, progress, events);
    if (!m.result.ok) {
        m.error = m.result.error;
        return m;
    }
    if (batch + 1 < plan->batches && !m.result.cancelled) {
        std::vector<int> tasks;
        for (int k = 0; k < plan->slurm.tasks; k++)
            tasks.push_back(k);
        m.next = submitBatch(*plan, batch + 1, tasks, 0, m.error);
        if (!m.next)
            return m;
    }
    m.ok = true;
    return m;
}

std::vector<std::string> cancelSlurmRun(const fs::path &out, std::string &error)
{
    std::vector<std::string> ids;
    for (const Submission &s : readSubmissions(out)) {
        ids.push_back(s.arrayJob);
        ids.push_back(s.mergeJob);
    }
    if (ids.empty()) {
        error = "no Slurm jobs recorded in " + (slurmFolder(out) / "jobs.json").string();
        return {};
    }
    scancel(ids, error);
    return ids;
}

} // namespace beamscope::autotune
