#pragma once
// The shape of the explorer's run workspaces (Autotune, Retrain, Predictions):
// a scrollable column of group boxes on the left (the run's settings and its
// Start / Cancel row) and the results on the right, in a splitter whose
// state the workspace saves with its layout.

class QScrollArea;
class QSplitter;
class QVBoxLayout;
class QWidget;

namespace beamscope::ui {

// The form column: a frameless scroll area holding a widget whose layout
// takes the group boxes. finishScrollForm adds the stretch that keeps the
// boxes at the top.
struct ScrollForm {
    QScrollArea *scroll = nullptr;
    QWidget *form = nullptr;
    QVBoxLayout *layout = nullptr;
};
ScrollForm makeScrollForm(QWidget *parent);
QScrollArea *finishScrollForm(const ScrollForm &form);

// Keeps a form column from ever being cut at its right edge: the scroll area
// is at least as wide as the form needs plus the vertical scroll bar that a
// short window shows (no horizontal scroll bar, so nothing may be cut).
void fitScrollAreaToForm(QScrollArea *scroll, QWidget *form);

// Fills `workspace` with a splitter of the form (fixed) and the results
// (stretching), the form formWidth pixels wide at first; returns the splitter.
QSplitter *placeFormBesideResults(QWidget *workspace, QWidget *form, QWidget *results, int formWidth);

} // namespace beamscope::ui
