#pragma once
// What the Autotune workspace shows of a run, kept apart from the widgets so
// tests read it directly: the records of every attempted schedule (loaded from
// a folder's <sid>.json files, then appended as the run reports them), and the
// figures drawn from them: counts by status, the measured runtimes of each
// pipeline, its best runtime after each batch, and the failures.

#include "core/samples/schedule_record.h"
#include "core/study/loop_figures.h"

#include <QString>
#include <QStringList>

#include <map>
#include <vector>

namespace beamscope::ui {

class AutotuneRunData {
public:
    void clear() { m_records.clear(); }
    // Reads <folder>/<pipeline>/batch_*/<sid>.json; errors name file and field.
    QStringList load(const QString &folder);
    // A record the run just finished; one already held (same pipeline, batch, index) is replaced.
    void add(const samples::ScheduleRecord &record);

    const std::vector<samples::ScheduleRecord> &records() const { return m_records; }
    std::map<QString, int> countsByStatus() const;
    QStringList pipelines() const;                                 // sorted
    std::vector<double> runtimesMs(const QString &pipeline) const; // ok schedules, sorted
    // (batch, best runtime over batches <= batch), one point per batch with a measurement so far.
    std::vector<std::pair<int, double>> bestSoFar(const QString &pipeline) const;
    // Batch by batch as Halide's loop runs (core/study/loop_figures.h): each batch's pick, the best so
    // far, and how its weights (trained on earlier batches only) ordered its own schedules.
    std::vector<study::LoopBatch> loopBatches(const QString &pipeline) const;
    std::vector<int> batches() const;                              // every batch with a record, ascending
    std::vector<const samples::ScheduleRecord *> failures() const; // neither ok nor duplicate, in order

private:
    std::vector<samples::ScheduleRecord> m_records;
};

} // namespace beamscope::ui
