#include "tests/support/test_data.h"

#include <QProcess>
#include <QStringList>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace beamscope::test {

namespace {
std::optional<std::filesystem::path> envPath(const char *name)
{
    const char *value = std::getenv(name);
    if (!value || !*value)
        return std::nullopt;
    return std::filesystem::path(value);
}
} // namespace

std::optional<std::filesystem::path> projectData(const std::string &relative)
{
    const std::filesystem::path path = sourceDir() / relative;
    if (!std::filesystem::exists(path))
        return std::nullopt;
    return path;
}

std::filesystem::path sourceDir()
{
    auto dir = envPath("BEAMSCOPE_SOURCE_DIR");
    if (!dir)
        throw std::runtime_error("BEAMSCOPE_SOURCE_DIR is not set (run the tests through ctest)");
    return *dir;
}

bool allAppRows()
{
    const char *all = std::getenv("BEAMSCOPE_ALL_APP_ROWS");
    return all && *all && std::string(all) != "0";
}

std::filesystem::path cliPath()
{
    auto path = envPath("BEAMSCOPE_CLI");
    if (!path)
        throw std::runtime_error("BEAMSCOPE_CLI is not set (run the tests through ctest)");
    return *path;
}

std::string readFile(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read " + path.string());
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

void writeFile(const std::filesystem::path &path, const std::string &bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out)
        throw std::runtime_error("cannot write " + path.string());
}

ProcessResult runProcess(const std::filesystem::path &program, const std::vector<std::string> &args)
{
    QStringList qargs;
    for (const auto &arg : args)
        qargs << QString::fromStdString(arg);
    QProcess process;
    process.start(QString::fromStdString(program.string()), qargs);
    ProcessResult result;
    if (!process.waitForFinished(300000)) {
        process.kill();
        process.waitForFinished();
        result.err = "process did not finish";
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput().toStdString();
    result.err = process.readAllStandardError().toStdString();
    return result;
}

} // namespace beamscope::test
