#pragma once
// The device study's plots as SVG text, for the report folder (the CLI turns
// them into PNG too where Qt is at hand): the speedup of each app's
// fine-tuned pick with its interval, the Spearman of both files per app, and
// the loop's learning curve. Plain SVG 1.1 with its own axes and labels, so
// that a browser, a Markdown viewer or Qt's renderer shows the same picture.

#include "core/study/study_report.h"

#include <string>

namespace beamscope::study {

std::string picksSvg(const StudyReport &report); // speedup per app, whiskers for the interval, a line at 1x
std::string ranksSvg(const StudyReport &report); // Spearman per app: V100 file against the fine-tuned one
std::string loopSvg(const StudyReport &report);  // per app: the pick's runtime per batch over the V100 pick's

} // namespace beamscope::study
