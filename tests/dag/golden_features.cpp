#include "tests/dag/golden_features.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace beamscope::test {

std::vector<GoldenStage> readGoldenFeatures(const std::filesystem::path &file)
{
    std::ifstream in(file);
    if (!in)
        throw std::runtime_error(file.string() + ": cannot open");
    std::vector<GoldenStage> stages;
    std::string line;
    int lineNo = 0;
    int row = -1;
    auto fail = [&](const std::string &why) {
        throw std::runtime_error(file.string() + ":" + std::to_string(lineNo) + ": " + why + " (found \"" + line +
                                 "\")");
    };
    while (std::getline(in, line)) {
        lineNo++;
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream s(line);
        std::string word;
        s >> word;
        if (word == "stage") {
            GoldenStage g;
            int index = 0;
            std::string def;
            s >> index >> g.func >> def >> g.definition;
            if (!s || def != "definition")
                fail("expected 'stage N FUNC definition D'");
            stages.push_back(g);
            row = -1;
        } else if (word == "types_in_use") {
            if (stages.empty())
                fail("types_in_use before a stage line");
            for (int &t : stages.back().features.typesInUse)
                s >> t;
            if (!s)
                fail("expected 7 integers");
        } else if (word == "row") {
            row = 0;
        } else {
            if (stages.empty() || row < 0 || row >= dag::kFeatureRows)
                fail("unexpected feature row");
            if (word != dag::featureRowName(row))
                fail("expected row " + dag::featureRowName(row));
            for (int &v : stages.back().features.matrix[static_cast<size_t>(row)])
                s >> v;
            if (!s)
                fail("expected 7 integers");
            row++;
        }
    }
    return stages;
}

namespace {
std::string trim(const std::string &s)
{
    const size_t a = s.find_first_not_of(' ');
    const size_t b = s.find_last_not_of(' ');
    return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}
} // namespace

std::vector<GoldenEdge> readGoldenEdges(const std::filesystem::path &file)
{
    std::ifstream in(file);
    if (!in)
        throw std::runtime_error(file.string() + ": cannot open");
    std::vector<GoldenEdge> edges;
    std::string line;
    std::string jacobian;
    int count = 1;
    auto flush = [&] {
        if (!jacobian.empty())
            edges.back().jacobians.push_back(std::to_string(count) + ":" + jacobian);
        jacobian.clear();
        count = 1;
    };
    while (std::getline(in, line)) {
        const std::string t = trim(line);
        if (t.rfind("Edge: ", 0) == 0) {
            if (!edges.empty())
                flush();
            const size_t arrow = t.find(" -> ");
            if (arrow == std::string::npos)
                throw std::runtime_error(file.string() + ": malformed edge line \"" + line + "\"");
            edges.push_back(GoldenEdge{t.substr(6, arrow - 6), t.substr(arrow + 4), {}, {}});
        } else if (edges.empty()) {
            continue;
        } else if (t.rfind("Min ", 0) == 0 || t.rfind("Max ", 0) == 0) {
            edges.back().footprint.push_back(t);
        } else if (t.size() > 2 && t.substr(t.size() - 2) == " x") {
            flush();
            count = std::stoi(t.substr(0, t.size() - 2));
        } else if (!t.empty() && t[0] == '[') {
            std::istringstream s(t.substr(1, t.size() - 2));
            std::string entry, row;
            while (s >> entry)
                row += " " + entry;
            jacobian += " [" + row + " ]";
        } else if (t.empty()) {
            flush();
        }
    }
    if (!edges.empty())
        flush();
    return edges;
}

} // namespace beamscope::test
