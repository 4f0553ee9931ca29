#pragma once
// The layout of an autotune output folder (docs/autotune.md), which
// core/autotune writes and anything that reads samples may read:
//
//   manifest.json                      provenance and every parameter
//   apps.tsv                           pipeline id -> pipeline name (hold-one-out reads it)
//   records.tsv                        every attempted schedule, one line each
//   training.tsv                       the loss of each batch's retrain
//   weights/start.weights              the starting weights, copied
//   weights/current.weights            the working weights (after the last retrain)
//   weights/batch_NNNN.weights         after batch NNNN's retrain
//   batches/batch_NNNN.json            written when batch NNNN is complete
//   <pipeline>/batch_NNNN/<sid>.sample          Halide's .sample
//   <pipeline>/batch_NNNN/<sid>.schedule.h      the schedule as Halide C++
//   <pipeline>/batch_NNNN/<sid>.loop_nest.txt   the searched loop nest
//   <pipeline>/batch_NNNN/<sid>.json            the record (written last)
//
// Every file is written atomically (temp file + rename); a temp file left by
// a killed run is removed when the folder is opened again.

#include "core/samples/schedule_record.h"

#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace beamscope::samples {

class RunFolder {
public:
    explicit RunFolder(std::filesystem::path root) : m_root(std::move(root)) {}

    const std::filesystem::path &root() const { return m_root; }
    std::filesystem::path manifest() const { return m_root / "manifest.json"; }
    std::filesystem::path appsTsv() const { return m_root / "apps.tsv"; }
    std::filesystem::path recordsTsv() const { return m_root / "records.tsv"; }
    std::filesystem::path trainingTsv() const { return m_root / "training.tsv"; }
    std::filesystem::path startWeights() const { return m_root / "weights" / "start.weights"; }
    std::filesystem::path currentWeights() const { return m_root / "weights" / "current.weights"; }
    std::filesystem::path batchWeights(int batch) const;
    std::filesystem::path batchDone(int batch) const;
    std::filesystem::path scheduleDir(const std::string &pipeline, int batch) const;
    // <pipeline>/batch_NNNN/<sid><suffix>, suffix ".sample", ".json", ...
    std::filesystem::path scheduleFile(const std::string &pipeline, int batch, int32_t scheduleId,
                                       const std::string &suffix) const;

    // Removes temp files (".<name>.tmp-XXXXXX") that a killed run left; returns how many.
    size_t removeStaleTempFiles() const;

    // Every <pipeline>/batch_*/<sid>.json, in path order; unreadable ones are
    // reported in errors (file and reason) and left out.
    std::vector<ScheduleRecord> readRecords(std::vector<std::string> *errors = nullptr) const;

private:
    std::filesystem::path m_root;
};

std::string batchName(int batch); // "batch_0003"

} // namespace beamscope::samples
