#pragma once
// An autotune run read batch by batch, as Halide's loop runs it: each batch's
// pick (sample 0, the beam search with the batch's weights), the best
// schedule measured so far, and how well the batch's weights (trained on the
// earlier batches only) ordered the batch's own schedules: figures out of
// sample by construction. The device study's report and the explorer's
// Autotune workspace both draw their learning curves from here.

#include "core/samples/schedule_record.h"
#include "core/study/study_report.h"

#include <span>
#include <vector>

namespace beamscope::study {

// Spearman, Kendall tau-b, top-1 and top-5 hit of predictions against runtimes.
RankFigures rankFigures(std::span<const double> predicted, std::span<const double> measuredMs);

// One pipeline's records (any order), one entry per batch that has records, in batch order.
// Only measured schedules count; duplicates and failures are left out of every figure.
std::vector<LoopBatch> loopBatches(std::vector<samples::ScheduleRecord> records);

} // namespace beamscope::study
