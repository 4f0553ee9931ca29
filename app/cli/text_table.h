#pragma once
// Plain-text output shared by the commands: aligned tables and numbers.

#include <ostream>
#include <string>
#include <vector>

namespace beamscope::cli {

// How the columns after the first are aligned (the first is always left-aligned).
enum class Align { Left, Right };

// Prints rows as an aligned table; rows may have different lengths.
void printTable(std::ostream &out, const std::vector<std::vector<std::string>> &rows, Align align = Align::Right);

// printf-formatted number; NaN prints as "-" (a metric that is undefined, e.g. a
// rank correlation over one schedule).
std::string formatNumber(double value, const char *format = "%.6g");

} // namespace beamscope::cli
