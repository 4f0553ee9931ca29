#include "core/pipelines/generator_params.h"

#include "core/pipelines/generator_library.h"
#include "core/pipelines/host_target.h"
#include "core/util/atomic_file.h"

#include <Halide.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <sstream>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <regex>

namespace beamscope::pipelines {

namespace {

std::string trim(std::string s)
{
    const auto first = s.find_first_not_of(" \t");
    const auto last = s.find_last_not_of(" \t");
    return first == std::string::npos ? std::string() : s.substr(first, last - first + 1);
}

// A default as the stub writes it, as --param takes it: "Halide::UInt(8)" -> "uint8",
// "1.5f" -> "1.5", "\"text\"" -> "text", "Enum_x::a" -> the enum's string for a.
std::string paramValue(std::string text, const std::map<std::string, std::string> &enumStrings)
{
    text = trim(text);
    static const std::regex type(R"(Halide::(UInt|Int|Float)\((\d+)\))");
    std::smatch m;
    if (std::regex_match(text, m, type)) {
        std::string kind = m[1].str();
        for (char &c : kind)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return kind + m[2].str();
    }
    if (text == "Halide::Bool()")
        return "bool";
    if (auto it = enumStrings.find(text); it != enumStrings.end())
        return it->second;
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"')
        return text.substr(1, text.size() - 2);
    if (text.size() > 1 && (text.back() == 'f' || text.back() == 'F') &&
        text.find_first_of("0123456789") != std::string::npos && text.find('.') != std::string::npos)
        text.pop_back();
    return text;
}

} // namespace

std::vector<GeneratorParamSpec> paramsFromStub(const std::string &stubText)
{
    // The enums' values and their strings: { Enum_schedule::slide, "slide"},
    std::map<std::string, std::string> enumStrings;
    std::map<std::string, std::vector<std::string>> enumChoices;
    static const std::regex enumEntry(R"re(\{\s*(Enum_\w+)::(\w+),\s*"([^"]*)"\s*\})re");
    for (auto it = std::sregex_iterator(stubText.begin(), stubText.end(), enumEntry); it != std::sregex_iterator();
         ++it) {
        enumStrings[(*it)[1].str() + "::" + (*it)[2].str()] = (*it)[3].str();
        enumChoices[(*it)[1].str()].push_back((*it)[3].str());
    }
    std::vector<GeneratorParamSpec> out;
    const size_t start = stubText.find("struct GeneratorParams final {");
    if (start == std::string::npos)
        return out;
    const size_t end = stubText.find("GeneratorParams() {}", start);
    const std::string body = stubText.substr(start, end == std::string::npos ? std::string::npos : end - start);
    // "  int32_t tile_x{ 32 };", "  Halide::Type type{ Halide::UInt(8) };", "  std::string s{ "x" };"
    static const std::regex declaration(R"(^\s*([\w:<>, ]+?)\s+(\w+)\{\s*(.*?)\s*\};\s*$)");
    size_t line = body.find('\n');
    while (line != std::string::npos && line + 1 < body.size()) {
        const size_t next = body.find('\n', line + 1);
        const std::string text = body.substr(line + 1, next == std::string::npos ? std::string::npos : next - line - 1);
        std::smatch m;
        if (std::regex_match(text, m, declaration)) {
            GeneratorParamSpec p;
            p.type = trim(m[1].str());
            p.name = m[2].str();
            p.defaultValue = paramValue(m[3].str(), enumStrings);
            if (auto it = enumChoices.find(p.type); it != enumChoices.end())
                p.choices = it->second;
            else if (p.type == "bool")
                p.choices = {"false", "true"};
            out.push_back(std::move(p));
        }
        line = next;
    }
    return out;
}

std::string checkGeneratorParamValue(const GeneratorParamSpec &param, const std::string &value)
{
    const std::string v = trim(value);
    if (!param.choices.empty()) {
        if (std::find(param.choices.begin(), param.choices.end(), v) != param.choices.end())
            return {};
        std::string list;
        for (const std::string &c : param.choices)
            list += (list.empty() ? "" : ", ") + c;
        return "not one of " + list;
    }
    static const std::regex integer(R"(^[+-]?[0-9]+$)"), unsignedInteger(R"(^\+?[0-9]+$)");
    static const std::regex halideType(R"(^(int|uint)(8|16|32|64)$|^float(16|32|64)$|^bool$)");
    const std::string &t = param.type;
    if (t == "float" || t == "double") {
        char *end = nullptr;
        errno = 0;
        const double d = std::strtod(v.c_str(), &end);
        if (v.empty() || end != v.c_str() + v.size() || errno == ERANGE || !std::isfinite(d))
            return "not a number";
        return {};
    }
    const bool isUnsigned = t.rfind("uint", 0) == 0 || t.rfind("unsigned", 0) == 0;
    if (t.find("int") != std::string::npos && t.find("Halide") == std::string::npos) {
        if (!std::regex_match(v, isUnsigned ? unsignedInteger : integer))
            return isUnsigned ? "not a whole number of 0 or more" : "not a whole number";
        errno = 0;
        if (isUnsigned ? (std::strtoull(v.c_str(), nullptr, 10), errno == ERANGE)
                       : (std::strtoll(v.c_str(), nullptr, 10), errno == ERANGE))
            return "out of range";
        return {};
    }
    if (t == "Halide::Type" && !std::regex_match(v, halideType))
        return "not a Halide type (int8 ... int64, uint8 ... uint64, float16, float32, float64, bool)";
    return {};
}

std::vector<std::string> inputsFromStub(const std::string &stubText)
{
    // struct Inputs final {
    //  Expr gain;
    //  Halide::Internal::StubInputBuffer<float> input;
    //
    //  Inputs() {}
    std::vector<std::string> out;
    const size_t start = stubText.find("struct Inputs final {");
    if (start == std::string::npos)
        return out;
    std::istringstream in(stubText.substr(start));
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
        if (line.find('(') != std::string::npos || line.find('}') != std::string::npos)
            break;
        const size_t semicolon = line.rfind(';');
        if (semicolon == std::string::npos)
            continue;
        const size_t space = line.find_last_of(" \t>", semicolon);
        if (space != std::string::npos && space + 1 < semicolon)
            out.push_back(line.substr(space + 1, semicolon - space - 1));
    }
    return out;
}

std::string generatorStub(const std::string &path, const std::string &name)
{
    const std::vector<std::string> names = loadGeneratorLibrary(path);
    if (std::find(names.begin(), names.end(), name) == names.end())
        throw GeneratorError(path + ": no generator named \"" + name + "\"");
    std::error_code ec;
    static std::atomic<int> stubs{0}; // one file per call: threads may build the same generator at once
    const std::filesystem::path stub =
        std::filesystem::temp_directory_path(ec) /
        ("beamscope-stub-" + std::to_string(::getpid()) + "-" + std::to_string(++stubs) + "-" + name + ".h");
    try {
        std::unique_ptr<Halide::Internal::GeneratorBase> gen =
            Halide::Internal::GeneratorRegistry::create(name, Halide::GeneratorContext(hostTarget()));
        gen->emit_cpp_stub(stub.string());
    } catch (const Halide::Error &e) {
        std::filesystem::remove(stub, ec);
        throw GeneratorError(path + ": generator \"" + name + "\": cannot list its parameters: " + e.what());
    }
    const std::optional<std::string> text = readTextFile(stub);
    std::filesystem::remove(stub, ec);
    if (!text)
        throw GeneratorError(path + ": generator \"" + name + "\": its parameter stub could not be read");
    return *text;
}

std::vector<GeneratorParamSpec> generatorParams(const std::string &path, const std::string &name)
{
    return paramsFromStub(generatorStub(path, name));
}

} // namespace beamscope::pipelines
