#include "core/search/golden_tree.h"

#include "core/util/gzip_file.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <sstream>

namespace beamscope::search {

namespace {

std::vector<std::string> splitTabs(const std::string &line)
{
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        const size_t tab = line.find('\t', start);
        out.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
        if (tab == std::string::npos)
            return out;
        start = tab + 1;
    }
}

// One states.tsv row's fields by column name, with errors that name the place.
class Row {
public:
    Row(const std::string &file, int line, const std::vector<std::string> &header, std::vector<std::string> cells)
        : m_file(file), m_line(line), m_header(header), m_cells(std::move(cells))
    {}

    const std::string &text(const char *column)
    {
        for (size_t i = 0; i < m_header.size(); i++)
            if (m_header[i] == column) {
                if (i < m_cells.size())
                    return m_cells[i];
                break;
            }
        fail(column, "a value", "none (the row has " + std::to_string(m_cells.size()) + " columns)");
        static const std::string empty;
        return empty;
    }
    int64_t integer(const char *column)
    {
        const std::string &t = text(column);
        int64_t v = 0;
        const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        if (ec != std::errc() || end != t.data() + t.size())
            fail(column, "an integer", quoted(t));
        return v;
    }
    double number(const char *column) { return parseNumber(column, text(column)); }
    double parseNumber(const char *column, const std::string &t)
    {
        char *end = nullptr;
        const double v = std::strtod(t.c_str(), &end);
        if (t.empty() || end != t.c_str() + t.size())
            fail(column, "a number", quoted(t));
        return v;
    }
    uint64_t hash(const char *column)
    {
        const std::string &t = text(column);
        uint64_t v = 0;
        const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v, 16);
        if (t.size() != 16 || ec != std::errc() || end != t.data() + t.size())
            fail(column, "16 hex digits", quoted(t));
        return v;
    }
    const std::string &error() const { return m_error; }

private:
    static std::string quoted(const std::string &t) { return "\"" + t + "\""; }
    void fail(const char *column, const std::string &expected, const std::string &found)
    {
        if (m_error.empty())
            m_error = m_file + ": line " + std::to_string(m_line) + ": column " + column + ": expected " + expected +
                      ", found " + found;
    }

    std::string m_file;
    int m_line;
    const std::vector<std::string> &m_header;
    std::vector<std::string> m_cells;
    std::string m_error;
};

} // namespace

std::optional<GoldenTree> GoldenTree::read(const std::string &folder, std::string *error)
{
    GoldenTree tree;
    const std::string statesPath = existingOrGzipped(folder + "/states.tsv").string();
    std::string why;
    const std::optional<std::string> states = readTextFileOrGzipped(statesPath, &why);
    if (!states) {
        *error = why + " (a search-tree folder holds states.tsv and beam_dumps.txt, either may be gzipped)";
        return std::nullopt;
    }
    std::istringstream in(*states);
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> header = splitTabs(line);
    for (const char *column : {"pass", "depth", "id", "parent", "func", "phase", "costed", "cost", "hash", "rank"})
        if (std::find(header.begin(), header.end(), column) == header.end()) {
            *error = statesPath + ": line 1: expected a header with column " + column + ", found \"" + line + "\"";
            return std::nullopt;
        }
    int lineNumber = 1;
    while (std::getline(in, line)) {
        lineNumber++;
        if (line.empty())
            continue;
        Row row(statesPath, lineNumber, header, splitTabs(line));
        GoldenState s;
        s.pass = static_cast<int>(row.integer("pass"));
        s.depth = static_cast<int>(row.integer("depth"));
        s.id = row.integer("id");
        s.parent = row.integer("parent");
        s.func = row.text("func") == "-" ? "" : row.text("func");
        s.phase = row.text("phase") == "-" ? -1 : static_cast<int>(row.integer("phase"));
        s.costed = row.integer("costed") == 1;
        s.cost = row.number("cost");
        s.hash = row.hash("hash");
        s.rank = static_cast<int>(row.integer("rank"));
        if (std::find(header.begin(), header.end(), "stage_costs") != header.end() && row.text("stage_costs") != "-") {
            std::istringstream costs(row.text("stage_costs"));
            std::string c;
            while (std::getline(costs, c, ','))
                s.stageCosts.push_back(row.parseNumber("stage_costs", c));
        }
        if (!row.error().empty()) {
            *error = row.error();
            return std::nullopt;
        }
        if (s.pass < 1 || s.depth < 0 || (s.depth > 0 && (s.parent < 0 || !tree.find(s.pass, s.parent)))) {
            *error = statesPath + ": line " + std::to_string(lineNumber) + ": expected pass >= 1 and a parent listed " +
                     "above, found pass " + std::to_string(s.pass) + " parent " + std::to_string(s.parent);
            return std::nullopt;
        }
        if (!tree.m_index.emplace(std::pair(s.pass, s.id), tree.m_states.size()).second) {
            *error = statesPath + ": line " + std::to_string(lineNumber) + ": expected a new (pass, id), found pass " +
                     std::to_string(s.pass) + " id " + std::to_string(s.id) + " again";
            return std::nullopt;
        }
        tree.m_byDepth[{s.pass, s.depth}].push_back(tree.m_states.size());
        tree.m_passes = std::max(tree.m_passes, s.pass);
        tree.m_finalDepth = std::max(tree.m_finalDepth, s.depth);
        tree.m_states.push_back(std::move(s));
    }

    // beam_dumps.txt: "=== pass P depth D rank R id I role ... hash H" then the dump up to the next "=== ".
    const std::string dumpsPath = existingOrGzipped(folder + "/beam_dumps.txt").string();
    const std::optional<std::string> dumps = readTextFileOrGzipped(dumpsPath, &why);
    if (!dumps) {
        *error = why;
        return std::nullopt;
    }
    size_t pos = 0;
    int dumpLine = 1;
    while (pos < dumps->size()) {
        const size_t headerEnd = dumps->find('\n', pos);
        const std::string head = dumps->substr(pos, headerEnd - pos);
        std::istringstream h(head);
        std::string marks, word;
        int pass = 0;
        int64_t id = -1;
        h >> marks;
        while (h >> word)
            if (word == "pass")
                h >> pass;
            else if (word == "id")
                h >> id;
        if (marks != "===" || headerEnd == std::string::npos || !tree.find(pass, id)) {
            *error = dumpsPath + ": line " + std::to_string(dumpLine) +
                     ": expected \"=== pass P depth D rank R id I ...\" naming a state of states.tsv, found \"" + head +
                     "\"";
            return std::nullopt;
        }
        size_t next = dumps->find("\n=== ", headerEnd);
        next = next == std::string::npos ? dumps->size() : next + 1;
        const std::string text = dumps->substr(headerEnd + 1, next - headerEnd - 1);
        dumpLine += 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
        tree.m_dumps.emplace(std::pair(pass, id), text);
        pos = next;
    }
    if (!tree.readFeatures(folder, error))
        return std::nullopt;
    return tree;
}

namespace {

// Reads an optional table of the folder (absent: nothing to do): its header, then every row, given
// to `each` with the state of states.tsv it names (its pass, id and hash columns). False with
// `error` set at the first bad row.
bool readStateTable(const GoldenTree &tree, const std::string &path, std::string *error,
                    const std::vector<std::string> &requiredColumns,
                    const std::function<bool(Row &, const GoldenState &)> &each)
{
    if (!std::filesystem::exists(path))
        return true;
    const std::optional<std::string> text = readTextFileOrGzipped(path, error);
    if (!text)
        return false;
    std::istringstream in(*text);
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> header = splitTabs(line);
    for (const std::string &column : requiredColumns)
        if (std::find(header.begin(), header.end(), column) == header.end()) {
            *error = path + ": line 1: expected a header with column " + column;
            return false;
        }
    int lineNumber = 1;
    while (std::getline(in, line)) {
        lineNumber++;
        if (line.empty())
            continue;
        Row row(path, lineNumber, header, splitTabs(line));
        const int pass = static_cast<int>(row.integer("pass"));
        const int64_t id = row.integer("id");
        const uint64_t hash = row.hash("hash");
        const GoldenState *s = row.error().empty() ? tree.find(pass, id) : nullptr;
        if (row.error().empty() && (!s || s->hash != hash)) {
            *error = path + ": line " + std::to_string(lineNumber) + ": expected a state of states.tsv, found pass " +
                     std::to_string(pass) + " id " + std::to_string(id) + (s ? " with another hash" : "");
            return false;
        }
        if (!s || !each(row, *s) || !row.error().empty()) {
            *error = row.error();
            return false;
        }
    }
    return true;
}

} // namespace

bool GoldenTree::readFeatures(const std::string &folder, std::string *error)
{
    std::vector<std::string> featureColumns;
    for (int f = 0; f < 73; f++)
        featureColumns.push_back("f" + std::to_string(f));
    const bool features = readStateTable(*this, existingOrGzipped(folder + "/features.tsv").string(), error,
                                         featureColumns, [&](Row &row, const GoldenState &s) {
                                             GoldenStageFeatures f;
                                             f.stageIndex = static_cast<int>(row.integer("stage_index"));
                                             f.func = row.text("func");
                                             f.stage = row.text("stage");
                                             for (size_t i = 0; i < featureColumns.size(); i++)
                                                 f.values[i] =
                                                     static_cast<float>(row.number(featureColumns[i].c_str()));
                                             auto &rows = m_features[{s.pass, s.id}];
                                             if (rows.empty())
                                                 m_featured.emplace_back(s.pass, s.id);
                                             rows.push_back(std::move(f));
                                             return true;
                                         });
    return features && readStateTable(*this, existingOrGzipped(folder + "/unscheduled.tsv").string(), error,
                                      {"unscheduled"}, [&](Row &row, const GoldenState &s) {
                                          m_unscheduled[{s.pass, s.id}] = row.text("unscheduled");
                                          return true;
                                      });
}

const std::vector<GoldenStageFeatures> *GoldenTree::features(int pass, int64_t id) const
{
    const auto it = m_features.find({pass, id});
    return it == m_features.end() ? nullptr : &it->second;
}

const std::string *GoldenTree::unscheduled(int pass, int64_t id) const
{
    const auto it = m_unscheduled.find({pass, id});
    return it == m_unscheduled.end() ? nullptr : &it->second;
}

std::vector<const GoldenState *> GoldenTree::at(int pass, int depth) const
{
    std::vector<const GoldenState *> out;
    const auto it = m_byDepth.find({pass, depth});
    if (it != m_byDepth.end())
        for (const size_t i : it->second)
            out.push_back(&m_states[i]);
    return out;
}

const GoldenState *GoldenTree::find(int pass, int64_t id) const
{
    const auto it = m_index.find({pass, id});
    return it == m_index.end() ? nullptr : &m_states[it->second];
}

std::optional<std::string> GoldenTree::dump(int pass, int64_t id) const
{
    const auto it = m_dumps.find({pass, id});
    return it == m_dumps.end() ? std::nullopt : std::optional(it->second);
}

double GoldenTree::modelCost(const GoldenState &s) const
{
    const GoldenState *at = &s;
    while (!at->costed && at->parent >= 0)
        at = find(at->pass, at->parent);
    return at->costed ? at->cost : 0.0;
}

} // namespace beamscope::search
