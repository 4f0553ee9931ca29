#pragma once
// A training checkpoint: the weights, ADAM moments and timestep after the last
// completed epoch, the options that must not change on resume, and the epoch
// history. Written atomically after every epoch (to `<out>.checkpoint`), so a
// cancelled or crashed run loses at most the epoch it was in.
//
// Binary, little-endian (docs/samples.md, "Checkpoints"):
//   char[8] "BSCKPT\r\n"; uint32 format 1; uint32 epochs completed; int64 ADAM timestep;
//   uint32 seed; float32 learning rate; int32 num_cores; uint32 max batch; uint32 min batch;
//   uint64 dataset fingerprint;
//   uint32 history count; per record: uint32 epoch, training batches, validation batches,
//     validation pipelines; float64 training loss, validation loss, Spearman, Kendall, pairwise;
//   uint32 byte count + the weights as an hwf1 image;
//   m then v: per tensor, uint32 count + float32[count];
//   uint64 FNV-1a of every byte before it.

#include "core/model/training.h"
#include "core/samples/dataset.h"
#include "core/samples/epoch_record.h"
#include "core/util/atomic_file.h"

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace beamscope::samples {

struct Checkpoint {
    int epochsCompleted = 0;
    uint32_t seed = 0;
    float learningRate = 0;
    int numCores = 0;
    uint32_t maxBatch = 0;
    uint32_t minBatch = 0;
    uint64_t datasetFingerprint = 0;
    std::vector<EpochRecord> history;
    model::TrainingState state;
};

// Identifies the training and validation schedules (ids, hashes, runtimes), so
// a resume on different samples is refused.
uint64_t datasetFingerprint(const std::vector<PipelineSet> &training, const std::vector<PipelineSet> &validation);

std::vector<char> serializeCheckpoint(const Checkpoint &checkpoint);

struct CheckpointReadResult {
    std::optional<Checkpoint> checkpoint;
    std::string error; // "<file>: offset N: <field>: expected ..., found ..."
};
CheckpointReadResult parseCheckpoint(std::span<const char> bytes, const std::string &sourceName);
CheckpointReadResult readCheckpoint(const std::filesystem::path &path);

// Always replaces (a checkpoint is ours, not the user's), atomically.
WriteResult writeCheckpoint(const Checkpoint &checkpoint, const std::filesystem::path &path);

// Where a run that writes `output` keeps its checkpoint.
std::filesystem::path checkpointPathFor(const std::filesystem::path &output);

} // namespace beamscope::samples
