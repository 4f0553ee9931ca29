#include "core/util/halide_names.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <regex>

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

FuncNames::FuncNames(const std::vector<std::string> &names)
{
    // Funcs of one base name, in the order Halide made them.
    std::map<std::string, std::vector<std::pair<int64_t, std::string>>> byBase;
    static const std::regex lambda(R"(lambda_([0-9]+))");
    for (const std::string &n : names) {
        std::smatch m;
        const std::string base = baseFuncName(n);
        if (std::regex_match(base, m, lambda) && base == n)
            byBase["lambda_"].emplace_back(std::stoll(m[1].str()), n);
        else
            byBase[base].emplace_back(uniqueSuffixNumber(n), n);
    }
    for (auto &[base, funcs] : byBase) {
        std::sort(funcs.begin(), funcs.end());
        funcs.erase(std::unique(funcs.begin(), funcs.end()), funcs.end());
        for (size_t k = 0; k < funcs.size(); k++) {
            const std::string shown = base == "lambda_" ? base + std::to_string(k)
                                      : k == 0          ? base
                                                        : base + "$" + std::to_string(k);
            if (shown != funcs[k].second)
                m_renamed[funcs[k].second] = shown;
        }
    }
    // No shown name is another Func's: a name kept as it is sits at its own
    // place in its group (the k-th made is "base$k" already).
}

FuncNames FuncNames::fromStageNames(const std::vector<std::string> &stageNames)
{
    static const std::regex stage(R"((.*)_s[0-9]+)");
    std::vector<std::string> funcs;
    for (const std::string &s : stageNames) {
        std::smatch m;
        funcs.push_back(std::regex_match(s, m, stage) ? m[1].str() : s);
    }
    return FuncNames(funcs);
}

std::string FuncNames::name(const std::string &halideName) const
{
    const auto it = m_renamed.find(halideName);
    return it == m_renamed.end() ? halideName : it->second;
}

std::string FuncNames::rewrite(std::string_view text) const
{
    if (m_renamed.empty())
        return std::string(text);
    // What may follow a name: nothing, a stage suffix ("_s0"), or anything but
    // a character that would continue the name.
    auto endsName = [&](size_t at) {
        if (at >= text.size())
            return true;
        const char c = text[at];
        if (c == '_' && at + 1 < text.size() && text[at + 1] == 's') {
            size_t d = at + 2;
            while (d < text.size() && isDigit(text[d]))
                ++d;
            return d > at + 2 && (d == text.size() || !isIdentifier(text[d]));
        }
        return !isIdentifier(c) && c != '$';
    };
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        if (i > 0 && (isIdentifier(text[i - 1]) || text[i - 1] == '$')) {
            out += text[i++];
            continue;
        }
        const std::string *match = nullptr;
        size_t longest = 0;
        for (const auto &[halide, shown] : m_renamed)
            if (halide.size() > longest && text.substr(i, halide.size()) == halide && endsName(i + halide.size())) {
                match = &shown;
                longest = halide.size();
            }
        if (match) {
            out += *match;
            i += longest;
        } else {
            out += text[i++];
        }
    }
    return out;
}

} // namespace beamscope
