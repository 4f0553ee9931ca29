#pragma once
// One weights path as the views show it: core's load result plus the figures
// the header summary needs (SHA-256) and each tensor's statistics, computed
// together on a worker thread.

#include "core/weights/statistics.h"
#include "core/weights/weights.h"

#include <QString>

#include <memory>
#include <vector>

namespace beamscope::ui {

struct LoadedWeights {
    QString path;
    weights::LoadResult result;
    // SHA-256 of the file; for a legacy directory, of its six member files
    // concatenated in file order (the bytes a converted .weights would hold
    // after its header).
    QString sha256;
    std::vector<weights::TensorStats> stats; // one per tensor when ok()
    // What a shipped file is ("untrained: a uniform random initialisation",
    // "trained on a V100 without harris (hold-one-out)"); empty for other files.
    QString provenance;
    bool untrained = false; // a shipped untrained initialisation (baseline, gpu)

    // There are tensors to show: the weights loaded, or they were read whole
    // and refused for their values only (NaN, Inf), which the views then
    // point at. Computing with them is refused elsewhere (core's loader).
    bool ok() const { return result.ok() || result.rejected.has_value(); }
    const weights::Weights &weights() const { return result.weights ? *result.weights : *result.rejected; }
    QString errorText() const;   // every Error diagnostic, one per line
    QString warningText() const; // every Warning diagnostic, one per line
};

using LoadedWeightsPtr = std::shared_ptr<const LoadedWeights>;

// Every diagnostic of one severity, formatted as the CLI prints it, one per line.
QString diagnosticsText(const weights::LoadResult &result, weights::Severity severity);

// Blocking; call it from a worker.
LoadedWeightsPtr loadForDisplay(const QString &path);

} // namespace beamscope::ui
