#include "ui/common/form_beside_results.h"

#include <QFrame>
#include <QScrollBar>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

namespace beamscope::ui {

ScrollForm makeScrollForm(QWidget *parent)
{
    ScrollForm f;
    f.scroll = new QScrollArea(parent);
    f.scroll->setWidgetResizable(true);
    f.scroll->setFrameShape(QFrame::NoFrame);
    f.form = new QWidget(f.scroll);
    f.layout = new QVBoxLayout(f.form);
    f.layout->setContentsMargins(6, 6, 6, 6);
    return f;
}

QScrollArea *finishScrollForm(const ScrollForm &f)
{
    f.layout->addStretch(1);
    f.scroll->setWidget(f.form);
    fitScrollAreaToForm(f.scroll, f.form);
    return f.scroll;
}

void fitScrollAreaToForm(QScrollArea *scroll, QWidget *form)
{
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    form->ensurePolished();
    const int wanted = std::max(form->sizeHint().width(), form->minimumSizeHint().width());
    const int bar = scroll->verticalScrollBar()->sizeHint().width();
    scroll->setMinimumWidth(wanted + bar + 2 * scroll->frameWidth() + 4);
}

QSplitter *placeFormBesideResults(QWidget *workspace, QWidget *form, QWidget *results, int formWidth)
{
    auto *splitter = new QSplitter(Qt::Horizontal, workspace);
    splitter->addWidget(form);
    splitter->addWidget(results);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({formWidth, 1100});
    splitter->setChildrenCollapsible(false);
    auto *layout = new QVBoxLayout(workspace);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);
    return splitter;
}

} // namespace beamscope::ui
