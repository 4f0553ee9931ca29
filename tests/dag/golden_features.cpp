#include "tests/dag/golden_features.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace beamscope::test {

std::vector<GoldenStage> readGoldenFeatures(const std::filesystem::path &file) {
    std::ifstream in(file);
    if (!in)
        throw std::runtime_error(file.string() + ": cannot open");
    std::vector<GoldenStage> stages;
    std::string line;
    int lineNo = 0;
    int row = -1;
    auto fail = [&](const std::string &why) {
        throw std::runtime_error(file.string() + ":" + std::to_string(lineNo) + ": " + why + " (found \"" + line + "\")");
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

} // namespace beamscope::test
