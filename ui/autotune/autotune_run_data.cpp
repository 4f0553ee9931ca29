#include "ui/autotune/autotune_run_data.h"

#include "core/samples/run_folder.h"

#include <algorithm>
#include <set>

namespace beamscope::ui {

QStringList AutotuneRunData::load(const QString &folder)
{
    std::vector<std::string> errors;
    m_records = samples::RunFolder(folder.toStdString()).readRecords(&errors);
    QStringList out;
    for (const std::string &e : errors)
        out << QString::fromStdString(e);
    return out;
}

void AutotuneRunData::add(const samples::ScheduleRecord &record)
{
    for (samples::ScheduleRecord &r : m_records)
        if (r.pipeline == record.pipeline && r.batch == record.batch && r.index == record.index) {
            r = record;
            return;
        }
    m_records.push_back(record);
}

std::map<QString, int> AutotuneRunData::countsByStatus() const
{
    std::map<QString, int> counts;
    for (const samples::ScheduleRecord &r : m_records)
        counts[QString::fromUtf8(samples::statusName(r.status))]++;
    return counts;
}

QStringList AutotuneRunData::pipelines() const
{
    std::set<QString> names;
    for (const samples::ScheduleRecord &r : m_records)
        names.insert(QString::fromStdString(r.pipeline));
    return QStringList(names.begin(), names.end());
}

std::vector<double> AutotuneRunData::runtimesMs(const QString &pipeline) const
{
    std::vector<double> out;
    const std::string name = pipeline.toStdString();
    for (const samples::ScheduleRecord &r : m_records)
        if (r.pipeline == name && r.status == samples::Status::Ok)
            out.push_back(r.runtimeMs);
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::pair<int, double>> AutotuneRunData::bestSoFar(const QString &pipeline) const
{
    std::map<int, double> bestInBatch;
    const std::string name = pipeline.toStdString();
    for (const samples::ScheduleRecord &r : m_records) {
        if (r.pipeline != name || r.status != samples::Status::Ok)
            continue;
        auto [it, inserted] = bestInBatch.emplace(r.batch, r.runtimeMs);
        if (!inserted)
            it->second = std::min(it->second, r.runtimeMs);
    }
    std::vector<std::pair<int, double>> out;
    double best = 0;
    for (const auto &[batch, ms] : bestInBatch) {
        best = out.empty() ? ms : std::min(best, ms);
        out.emplace_back(batch, best);
    }
    return out;
}

std::vector<const samples::ScheduleRecord *> AutotuneRunData::failures() const
{
    std::vector<const samples::ScheduleRecord *> out;
    for (const samples::ScheduleRecord &r : m_records)
        if (r.status != samples::Status::Ok && r.status != samples::Status::Duplicate)
            out.push_back(&r);
    return out;
}

} // namespace beamscope::ui
