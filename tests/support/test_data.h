#pragma once
// Where tests find their data, all of it inside the project: Halide's weights
// files (weights/), Halide's reference outputs (tests/fixtures/halide/, see its
// README) and the project's own fixtures (tests/fixtures/).

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::test {

// sourceDir()/relative when it exists, else nothing (the caller fails the
// test: every file named this way is part of the project).
std::optional<std::filesystem::path> projectData(const std::string &relative);

// The project's source tree (BEAMSCOPE_SOURCE_DIR).
std::filesystem::path sourceDir();

// The beamscope-cli executable built next to the tests (BEAMSCOPE_CLI).
std::filesystem::path cliPath();

// Reads a whole file; throws std::runtime_error naming the file on failure.
std::string readFile(const std::filesystem::path &path);
void writeFile(const std::filesystem::path &path, const std::string &bytes);

// Whether a test runs every row of a heavy check (compiling or running a schedule of each of
// Halide's apps) or a sample of them: the README's test command runs the sample, `ctest --preset
// ci-full` the rest (label "full", which sets BEAMSCOPE_ALL_APP_ROWS).
bool allAppRows();

// Result of running a command: exit code plus captured stdout and stderr.
struct ProcessResult {
    int exitCode = -1;
    std::string out;
    std::string err;
};
ProcessResult runProcess(const std::filesystem::path &program, const std::vector<std::string> &args);

} // namespace beamscope::test

// Fails the current QTest function, naming the path, when a file of the project's
// data is missing (a clone without it is broken, not a reason to skip).
#define BEAMSCOPE_REQUIRE_DATA(var, relative)                                                                          \
    const auto var##_opt = ::beamscope::test::projectData(relative);                                                   \
    if (!var##_opt)                                                                                                    \
        QFAIL(qPrintable(QStringLiteral("the project's data file %1 is missing (under %2)")                            \
                             .arg(QString::fromStdString(relative),                                                    \
                                  QString::fromStdString(::beamscope::test::sourceDir().string()))));                  \
    const std::filesystem::path var = *var##_opt
