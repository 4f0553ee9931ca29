#pragma once
// Where tests find their data: Halide's shipped weights and golden outputs in
// ../shared (optional), and the project's own fixtures in tests/fixtures.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::test {

// The shared folder (BEAMSCOPE_SHARED_DIR), or nothing when it is absent.
std::optional<std::filesystem::path> sharedDir();

// sharedDir()/relative when it exists, else nothing.
std::optional<std::filesystem::path> sharedPath(const std::string &relative);

// The project's source tree (BEAMSCOPE_SOURCE_DIR).
std::filesystem::path sourceDir();

// The beamscope-cli executable built next to the tests (BEAMSCOPE_CLI).
std::filesystem::path cliPath();

// Reads a whole file; throws std::runtime_error naming the file on failure.
std::string readFile(const std::filesystem::path &path);
void writeFile(const std::filesystem::path &path, const std::string &bytes);

// Result of running a command: exit code plus captured stdout and stderr.
struct ProcessResult {
    int exitCode = -1;
    std::string out;
    std::string err;
};
ProcessResult runProcess(const std::filesystem::path &program, const std::vector<std::string> &args);

} // namespace beamscope::test

// Skips the current QTest function with a clear message when ../shared is absent.
#define BEAMSCOPE_REQUIRE_SHARED(var, relative)                                                   \
    const auto var##_opt = ::beamscope::test::sharedPath(relative);                               \
    if (!var##_opt)                                                                               \
        QSKIP(qPrintable(QStringLiteral("shared data not found (%1 under BEAMSCOPE_SHARED_DIR); " \
                                        "the project's own fixtures cover this code path")        \
                             .arg(QString::fromStdString(relative))));                            \
    const std::filesystem::path var = *var##_opt
