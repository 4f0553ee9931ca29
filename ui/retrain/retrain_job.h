#pragma once
// One training run as the Retrain workspace asks for it: the samples loaded
// with the first slice of the progress bar, then core/samples/retrain.h's plan
// and run, the very code `beamscope-cli retrain` calls, so the two refuse,
// split, checkpoint and write alike. Plain blocking code: the workspace runs
// it on a worker thread; tests may call it directly.

#include "core/samples/dataset.h"
#include "core/samples/epoch_record.h"

#include <QString>
#include <QStringList>

#include <functional>
#include <optional>
#include <vector>

namespace beamscope {
class Progress;
}

namespace beamscope::ui {

struct RetrainRequest {
    QStringList sampleFolders;
    QString initialWeights;  // a weights file; empty with randomInit
    bool randomInit = false; // Halide's random initialiser, seeded with `seed`
    QString holdOutApp;      // empty: Halide's hash split
    int epochs = 10;
    float learningRate = 1e-4f;
    uint32_t seed = 0;
    int numCores = 80;
    int minBatch = 9;                // Halide trains on batches of more than 8
    QString output;                  // the .weights file to write
    bool partitionSchedules = false; // Halide's --partition_schedules (the hash split only)
    bool replaceOutput = false;      // the user confirmed replacing an existing output
    bool resume = false;             // continue from the output's checkpoint
    bool startOver = false;          // the user chose to drop an earlier run's checkpoint
};

struct RetrainOutcome {
    bool ok = false;
    bool cancelled = false;
    QString error;         // why nothing (more) was done
    QString refusedOption; // the setting a refusal names ("resume", "force", "hold-out", ...)
    QString output;        // written file (ok only)
    QString checkpoint;    // where the checkpoint is kept (cancelled runs)
    int epochsCompleted = 0;
    int resumedEpochs = 0;
    size_t trainingPipelines = 0, validationPipelines = 0;
    size_t trainingSchedules = 0, validationSchedules = 0;
    size_t skippedSamples = 0;
    std::vector<samples::EpochRecord> history;
};

// Apps named by the folders' layout (docs/samples.md), without reading samples.
struct SampleFolderSummary {
    size_t files = 0;
    QStringList apps;
    QStringList errors;
};
SampleFolderSummary summarizeSampleFolders(const QStringList &folders);

// runRetrain reports loading the samples as the first kRetrainLoadingShare of its
// progress and training as the rest (loading is quick next to training).
inline constexpr double kRetrainLoadingShare = 0.05;

// Runs on the calling thread. onEpoch is called (on this thread) with the
// epoch-0 record and after each completed epoch; onLoaded once the samples
// are split (message for the user, e.g. "3 training pipelines ...").
RetrainOutcome runRetrain(const RetrainRequest &request, Progress *progress,
                          const std::function<void(const samples::EpochRecord &)> &onEpoch,
                          const std::function<void(const QString &)> &onLoaded = {});

QString checkpointFor(const QString &output);

} // namespace beamscope::ui
