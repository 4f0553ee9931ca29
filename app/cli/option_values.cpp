#include "app/cli/option_values.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace beamscope::cli {

namespace {

template <typename T>
std::optional<T> readWhole(const std::string &text)
{
    T value{};
    const char *end = text.data() + text.size();
    // from_chars takes no '+' and no leading space; it reports a value beyond T as out of range.
    const auto [stop, ec] = std::from_chars(text.data(), end, value, 10);
    if (ec != std::errc() || stop != end || text.empty())
        return std::nullopt;
    return value;
}

// "in 1..100000": exact even where the top is only what the type holds, so a
// value just past it is not reported as within what was expected.
template <typename T>
std::string rangeText(T min, T max)
{
    return "in " + std::to_string(min) + ".." + std::to_string(max);
}

// What the help shows after the type ("INT:1..100000"): nothing for "any 64-bit value".
template <typename T>
std::string rangeHelp(T min, T max)
{
    if (min == std::numeric_limits<T>::min() && max == std::numeric_limits<T>::max())
        return {};
    return std::to_string(min) + ".." + std::to_string(max);
}

std::string numberText(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

// Digits with an optional minus: a number, even one too large for 64 bits.
bool wholeNumberText(const std::string &text)
{
    const size_t first = !text.empty() && text[0] == '-' ? 1 : 0;
    return text.size() > first && text.find_first_not_of("0123456789", first) == std::string::npos;
}

// A found value as the user wrote it: a number plainly, anything else quoted.
std::string found(const std::string &text, bool isNumber) { return isNumber ? text : "'" + text + "'"; }

} // namespace

std::optional<long long> readSigned(const std::string &text) { return readWhole<long long>(text); }

std::optional<unsigned long long> readUnsigned(const std::string &text) { return readWhole<unsigned long long>(text); }

std::optional<double> readNumber(const std::string &text)
{
    double value = 0;
    const char *end = text.data() + text.size();
    const auto [stop, ec] = std::from_chars(text.data(), end, value, std::chars_format::general);
    if (ec != std::errc() || stop != end || text.empty() || !std::isfinite(value))
        return std::nullopt;
    return value;
}

CLI::Validator integerIn(long long min, long long max)
{
    const std::string expected = "expected an integer " + rangeText(min, max);
    return CLI::Validator(
        [=](std::string &text) -> std::string {
            const auto v = readSigned(text);
            if (v && *v >= min && *v <= max)
                return {};
            return expected + ", found " + found(text, v.has_value() || wholeNumberText(text));
        },
        rangeHelp(min, max));
}

CLI::Validator unsignedIn(unsigned long long min, unsigned long long max)
{
    const std::string expected = "expected an integer " + rangeText(min, max);
    return CLI::Validator(
        [=](std::string &text) -> std::string {
            const auto v = readUnsigned(text);
            if (v && *v >= min && *v <= max)
                return {};
            return expected + ", found " + found(text, v.has_value() || wholeNumberText(text));
        },
        rangeHelp(min, max));
}

CLI::Validator numberIn(double min, double max, bool minExclusive)
{
    // "(0, 1]", or "> 0" with no top.
    const std::string range = std::isinf(max)
                                  ? (minExclusive ? "> " : ">= ") + numberText(min)
                                  : (minExclusive ? "(" : "[") + numberText(min) + ", " + numberText(max) + "]";
    const std::string expected = "expected a number " + (std::isinf(max) ? range : "in " + range);
    return CLI::Validator(
        [=](std::string &text) -> std::string {
            const auto v = readNumber(text);
            if (v && (minExclusive ? *v > min : *v >= min) && *v <= max)
                return {};
            return expected + ", found " + found(text, v.has_value());
        },
        range);
}

CLI::Validator oneOf(std::vector<std::string> words)
{
    std::string list;
    for (size_t i = 0; i < words.size(); i++)
        list += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
    return CLI::Validator(
        [words, list](std::string &text) -> std::string {
            for (const std::string &w : words)
                if (text == w)
                    return {};
            return "expected " + list + ", found '" + text + "'";
        },
        list);
}

CLI::Option *addSignedOption(CLI::App &app, const std::string &name, const std::string &help, long long min,
                             long long max, const std::string &defaultText, std::function<void(long long)> set)
{
    CLI::Option *option = app.add_option_function<std::string>(
        name, [set = std::move(set)](const std::string &text) { set(*readSigned(text)); }, help);
    option->check(integerIn(min, max))->type_name("INT")->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    option->default_str(defaultText);
    return option;
}

CLI::Option *addUnsignedOption(CLI::App &app, const std::string &name, const std::string &help, unsigned long long min,
                               unsigned long long max, const std::string &defaultText,
                               std::function<void(unsigned long long)> set)
{
    CLI::Option *option = app.add_option_function<std::string>(
        name, [set = std::move(set)](const std::string &text) { set(*readUnsigned(text)); }, help);
    option->check(unsignedIn(min, max))->type_name("INT")->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    option->default_str(defaultText);
    return option;
}

CLI::Option *addNumber(CLI::App &app, const std::string &name, std::optional<double> &target, const std::string &help,
                       double min, double max, bool minExclusive)
{
    CLI::Option *option = app.add_option_function<std::string>(
        name, [&target](const std::string &text) { target = readNumber(text); }, help);
    option->check(numberIn(min, max, minExclusive))->type_name("NUMBER");
    return option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

} // namespace beamscope::cli
