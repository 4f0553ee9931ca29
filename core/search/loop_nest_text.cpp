#include "core/search/loop_nest_text.h"

#include <algorithm>
#include <optional>
#include <sstream>

namespace beamscope::search {

namespace {

struct ParseError {
    std::string message;
};

std::vector<std::string> splitTokens(std::string_view line)
{
    std::vector<std::string> out;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
            i++;
        size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r')
            j++;
        if (j > i)
            out.emplace_back(line.substr(i, j - i));
        i = j;
    }
    return out;
}

bool isLabel(const std::string &t)
{
    return t == "gpu_block" || t == "gpu_thread" || t == "gpu_serial" || t == "gpu_simd" || t == "gpu_none" ||
           t == "gpu_parallelized";
}

// "16", "64c", "1vc": digits then any of 'v', 'c'.
std::optional<LoopSize> parseSize(const std::string &t)
{
    size_t i = 0;
    LoopSize s;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
        if (s.value > (int64_t(1) << 50))
            return std::nullopt;
        s.value = s.value * 10 + (t[i] - '0');
        i++;
    }
    if (i == 0)
        return std::nullopt;
    for (; i < t.size(); i++) {
        if (t[i] == 'v')
            s.vectorized = true;
        else if (t[i] == 'c')
            s.constant = true;
        else
            return std::nullopt;
    }
    return s;
}

std::optional<int> parseInt(std::string_view t)
{
    if (t.empty())
        return std::nullopt;
    bool negative = t[0] == '-';
    size_t i = negative ? 1 : 0;
    if (i == t.size())
        return std::nullopt;
    int v = 0;
    for (; i < t.size(); i++) {
        if (t[i] < '0' || t[i] > '9' || v > 100000000)
            return std::nullopt;
        v = v * 10 + (t[i] - '0');
    }
    return negative ? -v : v;
}

std::string found(const std::string &t) { return "'" + t + "'"; }

// One line of the dump -> an Entry, or a ParseError naming what was expected.
NestEntry parseLine(int number, std::string_view text)
{
    NestEntry e;
    e.line = number;
    while (static_cast<size_t>(e.indent) < text.size() && text[static_cast<size_t>(e.indent)] == ' ')
        e.indent++;
    const std::vector<std::string> tok = splitTokens(text);
    const std::string where = "line " + std::to_string(number) + ": ";
    if (tok.empty())
        throw ParseError{where + "expected a loop-nest line, found an empty line"};
    if (std::all_of(tok.begin(), tok.end(), [](const std::string &t) { return t == "gpu_none" || t == "t"; }) &&
        tok.back() == "gpu_none") {
        e.kind = NestLineKind::Root;
        return e;
    }
    if (tok[0] == "realize:") {
        // realize: NAME [e0, e1c] with K stages
        e.kind = NestLineKind::Realize;
        if (tok.size() < 5 || tok[tok.size() - 1] != "stages" || tok[tok.size() - 3] != "with")
            throw ParseError{where + "expected 'realize: NAME [extents] with K stages', found '" + std::string(text) +
                             "'"};
        e.func = tok[1];
        const auto k = parseInt(tok[tok.size() - 2]);
        if (!k || *k < 1)
            throw ParseError{where + "expected a stage count after 'with', found " + found(tok[tok.size() - 2])};
        e.stages = *k;
        std::string list;
        for (size_t i = 2; i + 3 < tok.size(); i++)
            list += tok[i];
        if (list.size() < 2 || list.front() != '[' || list.back() != ']')
            throw ParseError{where + "expected a bracketed extent list such as [64c, 4c], found " + found(list)};
        std::string item;
        std::istringstream items(list.substr(1, list.size() - 2));
        while (std::getline(items, item, ',')) {
            if (item.empty() && list == "[]")
                break;
            const auto s = parseSize(item);
            if (!s)
                throw ParseError{where + "expected an extent such as 64 or 64c in the realize list, found " +
                                 found(item)};
            e.extents.push_back(*s);
        }
        return e;
    }
    if (tok[0] == "inlined:") {
        e.kind = NestLineKind::Inlined;
        if (tok.size() < 2)
            throw ParseError{where + "expected 'inlined: NAME CALLS', found '" + std::string(text) + "'"};
        e.func = tok[1];
        if (tok.size() >= 3) {
            const auto s = parseSize(tok[2]);
            if (!s || tok.size() > 3)
                throw ParseError{where + "expected a call count after 'inlined: " + e.func + "', found " +
                                 found(tok[2])};
            e.calls = s->value;
        }
        return e;
    }
    // NAME sizes... (v, d) [t] [*] [p] [label]
    e.kind = NestLineKind::Loop;
    e.func = tok[0];
    size_t i = 1;
    for (; i < tok.size() && tok[i][0] != '('; i++) {
        const auto s = parseSize(tok[i]);
        if (!s)
            throw ParseError{where + "expected a loop size such as 16, 16c or 1vc after '" + e.func + "', found " +
                             found(tok[i])};
        if (s->value == 0) // Halide never prints one; the parser divides by tile sizes
            throw ParseError{where + "expected loop sizes of at least 1 after '" + e.func + "', found " +
                             found(tok[i])};
        e.sizes.push_back(*s);
    }
    if (i + 1 >= tok.size() || tok[i].size() < 3 || tok[i].back() != ',' || tok[i + 1].back() != ')')
        throw ParseError{where + "expected '(vectorized loop, vector dim)' such as (0, 0) after the sizes of '" +
                         e.func + "', found " + (i < tok.size() ? found(tok[i]) : std::string("the end of the line"))};
    const auto v = parseInt(std::string_view(tok[i]).substr(1, tok[i].size() - 2));
    const auto d = parseInt(std::string_view(tok[i + 1]).substr(0, tok[i + 1].size() - 1));
    if (!v || !d)
        throw ParseError{where + "expected two integers in '" + tok[i] + " " + tok[i + 1] + "'"};
    e.vectorLoop = *v;
    e.vectorDim = *d;
    for (i += 2; i < tok.size(); i++) {
        if (tok[i] == "t") {
            e.tileable = true;
            continue;
        }
        if (tok[i] == "p")
            continue;
        if (tok[i] == "*") {
            e.innermost = true;
            continue;
        }
        if (isLabel(tok[i]) && i + 1 == tok.size()) {
            e.label = tok[i];
            continue;
        }
        throw ParseError{
            where + "expected 't', '*' or a GPU label (gpu_block, gpu_thread, gpu_serial, gpu_simd) at the end of '" +
            e.func + "''s loop, found " + found(tok[i])};
    }
    if (e.label.empty() && !e.innermost)
        throw ParseError{
            where +
            "expected a GPU label (gpu_block, gpu_thread, gpu_serial, gpu_simd) at the end of the line, found " +
            found(tok.back())};
    return e;
}

bool looksLikeNestLine(std::string_view text)
{
    const std::vector<std::string> tok = splitTokens(text);
    if (tok.empty())
        return false;
    if (tok[0] == "realize:" || tok[0] == "inlined:")
        return true;
    return isLabel(tok.back()) || tok.back() == "*";
}

void buildTree(std::vector<NestEntry> &entries)
{
    auto at = [](const NestEntry &x) { return "line " + std::to_string(x.line) + ": "; };
    // Halide indents every nested entry by one more space than its parent loop's line; the
    // root's entries are not indented.
    if (entries.empty())
        throw ParseError{
            "expected a loop nest (a ' gpu_none' root line followed by its loops), found no loop-nest lines"};
    if (entries[0].kind != NestLineKind::Root)
        throw ParseError{
            at(entries[0]) + "expected the root line ' gpu_none' first, found a " +
            (entries[0].kind == NestLineKind::Loop
                 ? "loop of '" + entries[0].func + "'"
                 : std::string("'") + (entries[0].kind == NestLineKind::Realize ? "realize:" : "inlined:") + "' line")};
    std::vector<std::pair<int, int>> open = {{0, 0}}; // (entry, indent of its children)
    for (size_t i = 1; i < entries.size(); i++) {
        NestEntry &x = entries[i];
        if (x.kind == NestLineKind::Root)
            throw ParseError{at(x) +
                             "expected one root line ' gpu_none', found a second one (two loop nests in one text?)"};
        while (!open.empty() && open.back().second > x.indent)
            open.pop_back();
        if (open.empty() || open.back().second != x.indent) {
            const int want = open.empty() ? 0 : open.back().second;
            throw ParseError{at(x) + "expected an indentation of " + std::to_string(want) +
                             " (or less) spaces, found " + std::to_string(x.indent)};
        }
        const int parent = open.back().first;
        if (entries[static_cast<size_t>(parent)].kind == NestLineKind::Loop &&
            entries[static_cast<size_t>(parent)].innermost && x.kind == NestLineKind::Loop)
            throw ParseError{at(x) + "expected only 'inlined:' lines inside the innermost loop of '" +
                             entries[static_cast<size_t>(parent)].func + "', found a loop of '" + x.func + "'"};
        x.parent = parent;
        entries[static_cast<size_t>(parent)].children.push_back(static_cast<int>(i));
        if (x.kind == NestLineKind::Loop)
            open.push_back({static_cast<int>(i), x.indent + 1});
    }
}

void printSize(std::string &out, const LoopSize &s)
{
    out += std::to_string(s.value);
    if (s.vectorized)
        out += 'v';
    if (s.constant)
        out += 'c';
}

} // namespace

std::string linkLoopNestEntries(std::vector<NestEntry> &entries)
{
    try {
        buildTree(entries);
    } catch (const ParseError &e) {
        return e.message;
    }
    return {};
}

std::string printLoopNestText(const LoopNestText &nest)
{
    std::string out;
    for (const NestEntry &e : nest.entries) {
        out.append(static_cast<size_t>(e.indent), ' ');
        switch (e.kind) {
        case NestLineKind::Root: out += "gpu_none"; break;
        case NestLineKind::Realize:
            out += "realize: " + e.func + " [";
            for (size_t d = 0; d < e.extents.size(); d++) {
                if (d)
                    out += ", ";
                printSize(out, e.extents[d]);
            }
            out += "] with " + std::to_string(e.stages) + " stages";
            break;
        case NestLineKind::Inlined: out += "inlined: " + e.func + " " + std::to_string(e.calls); break;
        case NestLineKind::Loop:
            out += e.func;
            for (const LoopSize &s : e.sizes) {
                out += ' ';
                printSize(out, s);
            }
            out += " (" + std::to_string(e.vectorLoop) + ", " + std::to_string(e.vectorDim) + ")";
            if (e.tileable)
                out += " t";
            if (e.innermost)
                out += " *";
            if (!e.label.empty())
                out += " " + e.label;
            break;
        }
        out += '\n';
    }
    return out;
}

std::string_view findLoopNest(std::string_view text, int *firstLine)
{
    const std::string_view marker = "** Optimal schedule:";
    const size_t m = text.rfind(marker);
    if (m == std::string_view::npos) {
        if (firstLine)
            *firstLine = 1;
        return text;
    }
    size_t start = text.find('\n', m);
    start = start == std::string_view::npos ? text.size() : start + 1;
    if (firstLine)
        *firstLine =
            1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(start), '\n'));
    size_t end = start;
    while (end < text.size()) {
        size_t eol = text.find('\n', end);
        if (eol == std::string_view::npos)
            eol = text.size();
        if (!looksLikeNestLine(text.substr(end, eol - end)))
            break;
        end = eol == text.size() ? eol : eol + 1;
    }
    return text.substr(start, end - start);
}

LoopNestText parseLoopNestText(std::string_view text)
{
    int firstLine = 1;
    const std::string_view nest = findLoopNest(text, &firstLine);
    LoopNestText result;
    try {
        int number = firstLine;
        size_t pos = 0;
        while (pos < nest.size()) {
            size_t eol = nest.find('\n', pos);
            if (eol == std::string_view::npos)
                eol = nest.size();
            std::string_view line = nest.substr(pos, eol - pos);
            if (!line.empty() && line.back() == '\r')
                line.remove_suffix(1);
            // A comment is a line whose first character past any indentation is '#'.
            const size_t first = line.find_first_not_of(" \t");
            if (first != std::string_view::npos && line[first] != '#')
                result.entries.push_back(parseLine(number, line));
            pos = eol + 1;
            number++;
        }
        buildTree(result.entries);
    } catch (const ParseError &e) {
        result.entries.clear();
        result.error = e.message;
    }
    return result;
}

} // namespace beamscope::search
