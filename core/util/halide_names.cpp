#include "core/util/halide_names.h"

#include <charconv>

#include <cctype>

namespace beamscope {

namespace {

bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool isIdentifier(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

} // namespace

std::string baseFuncName(std::string_view name) { return std::string(name.substr(0, name.find('$'))); }

int64_t uniqueSuffixNumber(std::string_view name)
{
    const size_t dollar = name.find('$');
    int64_t number = -1;
    if (dollar != std::string_view::npos)
        std::from_chars(name.data() + dollar + 1, name.data() + name.size(), number);
    return number;
}

std::string withoutUniqueSuffixes(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const bool suffix =
            text[i] == '$' && i > 0 && i + 1 < text.size() && isDigit(text[i + 1]) && isIdentifier(text[i - 1]);
        if (!suffix) {
            out += text[i];
            continue;
        }
        while (i + 1 < text.size() && isDigit(text[i + 1]))
            ++i;
    }
    return out;
}

} // namespace beamscope
