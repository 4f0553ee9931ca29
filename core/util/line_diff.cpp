#include "core/util/line_diff.h"

#include <algorithm>
#include <cstdint>

namespace beamscope {

namespace {

std::vector<std::string> splitLines(const std::string &text)
{
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
        const size_t end = text.find('\n', start);
        if (end == std::string::npos) {
            lines.push_back(text.substr(start));
            break;
        }
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

} // namespace

std::vector<DiffLine> diffLines(const std::string &before, const std::string &after)
{
    const std::vector<std::string> a = splitLines(before), b = splitLines(after);
    const size_t n = a.size(), m = b.size();
    // common[i][j]: the longest common subsequence of a[i..] and b[j..].
    std::vector<uint32_t> common((n + 1) * (m + 1), 0);
    const auto at = [m](size_t i, size_t j) { return i * (m + 1) + j; };
    for (size_t i = n; i-- > 0;)
        for (size_t j = m; j-- > 0;)
            common[at(i, j)] =
                a[i] == b[j] ? common[at(i + 1, j + 1)] + 1 : std::max(common[at(i + 1, j)], common[at(i, j + 1)]);
    std::vector<DiffLine> out;
    size_t i = 0, j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && a[i] == b[j]) {
            out.push_back({DiffLine::Kind::Kept, a[i]});
            ++i;
            ++j;
        } else if (j < m && (i == n || common[at(i, j + 1)] > common[at(i + 1, j)])) {
            out.push_back({DiffLine::Kind::Added, b[j]});
            ++j;
        } else {
            out.push_back({DiffLine::Kind::Removed, a[i]});
            ++i;
        }
    }
    return out;
}

} // namespace beamscope
