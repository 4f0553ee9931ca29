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

std::vector<study::LoopBatch> AutotuneRunData::loopBatches(const QString &pipeline) const
{
    const std::string name = pipeline.toStdString();
    std::vector<samples::ScheduleRecord> mine;
    for (const samples::ScheduleRecord &r : m_records)
        if (r.pipeline == name)
            mine.push_back(r);
    return study::loopBatches(std::move(mine));
}

std::vector<int> AutotuneRunData::batches() const
{
    std::set<int> found;
    for (const samples::ScheduleRecord &r : m_records)
        found.insert(r.batch);
    return {found.begin(), found.end()};
}

std::vector<std::pair<int, double>> AutotuneRunData::bestSoFar(const QString &pipeline) const
{
    std::vector<std::pair<int, double>> out;
    for (const study::LoopBatch &b : loopBatches(pipeline))
        if (!b.measuredMs.empty())
            out.emplace_back(b.batch, b.bestSoFarMs);
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
