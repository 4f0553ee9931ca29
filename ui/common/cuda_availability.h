#pragma once
// A CUDA target is offered only where a CUDA device answered: the target
// lists of the Search, Pipeline and Autotune workspaces keep their CUDA entry
// greyed out (its tool tip says why) on a machine without one, instead of
// letting a measurement fail with the driver's raw errors.

#include <QString>

class QComboBox;

namespace beamscope::ui {

// Queries the local device once per process, off the GUI thread, then disables
// the entry of `combo` whose item data (or text) is `cudaValue` when no CUDA
// device answered; a current choice of it moves to the first other entry.
void offerCudaOnlyWithDevice(QComboBox *combo, const QString &cudaValue = QStringLiteral("cuda"));

} // namespace beamscope::ui
