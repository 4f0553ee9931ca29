#include "core/samples/apps_file.h"

#include "core/util/atomic_file.h"

#include <charconv>

namespace beamscope::samples {

namespace {

std::string_view trim(std::string_view text)
{
    const auto begin = text.find_first_not_of(" \t\r");
    if (begin == std::string_view::npos)
        return {};
    const auto end = text.find_last_not_of(" \t\r");
    return text.substr(begin, end - begin + 1);
}

// Quoted for an error message, bytes that do not print as \xNN, long text cut.
std::string shown(std::string_view text)
{
    std::string out = "\"";
    for (size_t k = 0; k < text.size() && k < 80; k++) {
        const auto c = static_cast<unsigned char>(text[k]);
        if (c >= 0x20 && c < 0x7f && c != '"') {
            out += static_cast<char>(c);
        } else {
            static const char hex[] = "0123456789abcdef";
            out += c == '"' ? std::string("\\\"") : std::string("\\x") + hex[c >> 4] + hex[c & 15];
        }
    }
    return out + (text.size() > 80 ? "...\"" : "\"");
}

} // namespace

bool parseAppsTsv(std::string_view text, const std::string &sourceName, std::map<int32_t, std::string> &apps,
                  std::vector<std::string> &errors)
{
    bool ok = true;
    int lineNumber = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos)
            eol = text.size();
        std::string_view line = text.substr(pos, eol - pos);
        pos = eol + 1;
        ++lineNumber;
        line = line.substr(0, line.find('#'));
        if (trim(line).empty())
            continue;
        const std::string where = sourceName + ":" + std::to_string(lineNumber) + ": ";
        const auto tab = line.find('\t');
        if (tab == std::string_view::npos) {
            errors.push_back(where + "expected \"<pipeline id><TAB><app>\", found " + shown(trim(line)));
            ok = false;
            continue;
        }
        const std::string_view idText = trim(line.substr(0, tab));
        const std::string_view app = trim(line.substr(tab + 1));
        int32_t id = 0;
        const auto [end, ec] = std::from_chars(idText.data(), idText.data() + idText.size(), id);
        if (idText.empty() || ec != std::errc() || end != idText.data() + idText.size()) {
            errors.push_back(where + "pipeline id: expected a 32-bit integer, found " + shown(idText));
            ok = false;
            continue;
        }
        if (app.empty() || app.find('/') != std::string_view::npos || app.find('\t') != std::string_view::npos) {
            errors.push_back(where + "app: expected a non-empty name without '/' or a tab, found " + shown(app));
            ok = false;
            continue;
        }
        auto [it, inserted] = apps.emplace(id, std::string(app));
        if (!inserted && it->second != app) {
            errors.push_back(where + "pipeline id " + std::to_string(id) + ": expected one app, found " + shown(app) +
                             " and, earlier, " + shown(it->second));
            ok = false;
        }
    }
    return ok;
}

bool readAppsTsv(const std::filesystem::path &path, std::map<int32_t, std::string> &apps,
                 std::vector<std::string> &errors)
{
    const std::optional<std::string> text = readTextFile(path);
    if (!text) {
        errors.push_back(path.string() + ": cannot open for reading");
        return false;
    }
    return parseAppsTsv(*text, path.string(), apps, errors);
}

} // namespace beamscope::samples
