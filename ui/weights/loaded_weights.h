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
    std::vector<weights::TensorStats> stats; // one per tensor when result.ok()

    bool ok() const { return result.ok(); }
    const weights::Weights &weights() const { return *result.weights; }
    QString errorText() const;   // every Error diagnostic, one per line
    QString warningText() const; // every Warning diagnostic, one per line
};

using LoadedWeightsPtr = std::shared_ptr<const LoadedWeights>;

// Blocking; call it from a worker.
LoadedWeightsPtr loadForDisplay(const QString &path);

} // namespace beamscope::ui
