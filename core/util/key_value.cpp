#include "core/util/key_value.h"

#include <sstream>

namespace beamscope {

namespace {

bool isNameChar(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!first && c >= '0' && c <= '9');
}

// The entry as an error message shows it: bytes that do not print as \xNN.
std::string quoted(std::string_view text)
{
    std::string out = "\"";
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            out += ch;
        } else {
            static const char hex[] = "0123456789abcdef";
            out += c == '"'    ? std::string("\\\"")
                   : c == '\\' ? std::string("\\\\")
                               : std::string("\\x") + hex[c >> 4] + hex[c & 15];
        }
    }
    return out + "\"";
}

} // namespace

std::optional<std::pair<std::string, std::string>> parseKeyValue(std::string_view text, std::string *error)
{
    auto fail = [&](const std::string &what) -> std::optional<std::pair<std::string, std::string>> {
        if (error)
            *error = "generator param " + quoted(text) + ": " + what;
        return std::nullopt;
    };
    const size_t eq = text.find('=');
    if (eq == std::string_view::npos)
        return fail("expected KEY=VALUE, found no '='");
    const std::string_view key = text.substr(0, eq);
    if (key.empty())
        return fail("expected KEY=VALUE, found nothing before '='");
    for (size_t k = 0; k < key.size(); k++)
        if (!isNameChar(key[k], k == 0))
            return fail("offset " + std::to_string(k) +
                        ": expected a key of letters, digits and '_' (not starting with a digit), found " +
                        quoted(key.substr(k, 1)));
    return std::make_pair(std::string(key), std::string(text.substr(eq + 1)));
}

std::optional<std::map<std::string, std::string>> parseKeyValues(const std::vector<std::string> &entries,
                                                                 std::string *error)
{
    std::map<std::string, std::string> out;
    for (const std::string &entry : entries) {
        auto kv = parseKeyValue(entry, error);
        if (!kv)
            return std::nullopt;
        const auto [it, inserted] = out.emplace(kv->first, kv->second);
        if (!inserted) {
            if (error)
                *error = "generator param " + quoted(entry) + ": expected each key once, found " + quoted(kv->first) +
                         " already set to " + quoted(it->second);
            return std::nullopt;
        }
    }
    return out;
}

std::vector<std::string> splitCommaList(const std::string &list)
{
    std::vector<std::string> out;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty())
            out.push_back(item);
    return out;
}

} // namespace beamscope
