#include "core/samples/run_folder.h"

#include "core/util/atomic_file.h"

#include <algorithm>
#include <cstdio>

namespace fs = std::filesystem;

namespace beamscope::samples {

std::string batchName(int batch)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "batch_%04d", batch);
    return buf;
}

fs::path RunFolder::batchWeights(int batch) const { return m_root / "weights" / (batchName(batch) + ".weights"); }

fs::path RunFolder::batchDone(int batch) const { return m_root / "batches" / (batchName(batch) + ".json"); }

fs::path RunFolder::scheduleDir(const std::string &pipeline, int batch) const
{
    return m_root / pipeline / batchName(batch);
}

fs::path RunFolder::scheduleFile(const std::string &pipeline, int batch, int32_t scheduleId,
                                 const std::string &suffix) const
{
    char id[16];
    std::snprintf(id, sizeof id, "%08d", scheduleId);
    return scheduleDir(pipeline, batch) / (std::string(id) + suffix);
}

size_t RunFolder::removeStaleTempFiles() const
{
    size_t removed = 0;
    std::error_code ec;
    if (!fs::is_directory(m_root, ec))
        return 0;
    std::vector<fs::path> stale;
    for (auto it = fs::recursive_directory_iterator(m_root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.size() > 1 && name[0] == '.' && name.find(".tmp-") != std::string::npos && it->is_regular_file(ec))
            stale.push_back(it->path());
    }
    for (const fs::path &p : stale)
        if (fs::remove(p, ec))
            removed++;
    return removed;
}

std::vector<ScheduleRecord> RunFolder::readRecords(std::vector<std::string> *errors) const
{
    std::vector<fs::path> files;
    std::error_code ec;
    if (!fs::is_directory(m_root, ec))
        return {};
    for (const auto &pipelineDir : fs::directory_iterator(m_root, ec)) {
        if (!pipelineDir.is_directory() || pipelineDir.path().filename() == "weights" ||
            pipelineDir.path().filename() == "batches" || pipelineDir.path().filename() == "slurm")
            continue;
        for (const auto &batchDir : fs::directory_iterator(pipelineDir.path(), ec)) {
            if (!batchDir.is_directory() || batchDir.path().filename().string().rfind("batch_", 0) != 0)
                continue;
            for (const auto &file : fs::directory_iterator(batchDir.path(), ec))
                if (file.path().extension() == ".json" && file.path().filename().string()[0] != '.')
                    files.push_back(file.path());
        }
    }
    std::sort(files.begin(), files.end());
    std::vector<ScheduleRecord> out;
    for (const fs::path &f : files) {
        const std::optional<std::string> text = readTextFile(f);
        const JsonParseResult parsed = text ? parseJson(*text) : JsonParseResult{std::nullopt, "cannot read the file"};
        std::string why;
        std::optional<ScheduleRecord> r;
        if (!parsed.value)
            why = parsed.error;
        else
            r = ScheduleRecord::fromJson(*parsed.value, &why);
        if (r)
            out.push_back(std::move(*r));
        else if (errors)
            errors->push_back(f.string() + ": " + why);
    }
    return out;
}

} // namespace beamscope::samples
