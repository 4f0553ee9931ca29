#include "app/cli/text_table.h"

#include <algorithm>
#include <cstdio>

namespace beamscope::cli {

void printTable(std::ostream &out, const std::vector<std::vector<std::string>> &rows, Align align)
{
    std::vector<size_t> widths;
    for (const auto &row : rows)
        for (size_t c = 0; c < row.size(); c++) {
            if (widths.size() <= c)
                widths.push_back(0);
            widths[c] = std::max(widths[c], row[c].size());
        }
    for (const auto &row : rows) {
        std::string line;
        for (size_t c = 0; c < row.size(); c++) {
            const std::string pad(widths[c] - row[c].size(), ' ');
            line += c == 0 ? row[c] + pad : align == Align::Right ? "  " + pad + row[c] : "  " + row[c] + pad;
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out << line << "\n";
    }
}

std::string formatNumber(double value, const char *format)
{
    if (value != value)
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, format, value);
    return buf;
}

} // namespace beamscope::cli
