#pragma once
// The values options take (whole numbers, decimals, one of a few words),
// checked by CLI11 validators while the command line is parsed, so a value
// out of range, too large for any integer or not a number at all is a usage
// error naming the option, what it expects and what it was given:
//   --beam: expected an integer in 1..100000, found 99999999999
// CLI11's own conversion is not used for numbers: it reads "010" as octal
// and "0x10" as hex, and saturates at the type's limit instead of failing.
// Used by beamscope-cli and beamscope-bench-worker (CLI11 and std only).

#include <CLI/CLI.hpp>

#include <concepts>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace beamscope::cli {

// Strict decimal readers: the whole text, no sign for unsigned, no spaces,
// no hex or octal, nothing beyond 64 bits; nullopt otherwise.
std::optional<long long> readSigned(const std::string &text);
std::optional<unsigned long long> readUnsigned(const std::string &text);
// A finite decimal number ("1e-4" too; not "nan", "inf" or hex floats).
std::optional<double> readNumber(const std::string &text);

// Validators for check(): the message after "--name: " when they fail.
CLI::Validator integerIn(long long min, long long max);
CLI::Validator unsignedIn(unsigned long long min, unsigned long long max);
// [min, max], or (min, max] with minExclusive; max may be infinity.
CLI::Validator numberIn(double min, double max, bool minExclusive = false);
// One of the words, spelled exactly: "expected cuda, opencl or host, found 'metal'".
CLI::Validator oneOf(std::vector<std::string> words);

// An option holding a whole number in [min, max], stored into `set` once read.
CLI::Option *addSignedOption(CLI::App &app, const std::string &name, const std::string &help, long long min,
                             long long max, const std::string &defaultText, std::function<void(long long)> set);
CLI::Option *addUnsignedOption(CLI::App &app, const std::string &name, const std::string &help, unsigned long long min,
                               unsigned long long max, const std::string &defaultText,
                               std::function<void(unsigned long long)> set);

// --name N into `target` (which must outlive parsing), N in [min, max]; the
// range defaults to what the target's type holds. Its value before parsing
// is the default the help shows.
template <std::integral T>
CLI::Option *addInteger(CLI::App &app, const std::string &name, T &target, const std::string &help,
                        T min = std::numeric_limits<T>::min(), T max = std::numeric_limits<T>::max())
{
    if constexpr (std::is_signed_v<T>)
        return addSignedOption(app, name, help, min, max, std::to_string(target),
                               [&target](long long v) { target = static_cast<T>(v); });
    else
        return addUnsignedOption(app, name, help, min, max, std::to_string(target),
                                 [&target](unsigned long long v) { target = static_cast<T>(v); });
}

// --name X into `target`, X in [min, max] (or (min, max] with minExclusive).
template <std::floating_point T>
CLI::Option *addNumber(CLI::App &app, const std::string &name, T &target, const std::string &help, double min,
                       double max = std::numeric_limits<double>::infinity(), bool minExclusive = false)
{
    CLI::Option *option = app.add_option_function<std::string>(
        name, [&target](const std::string &text) { target = static_cast<T>(*readNumber(text)); }, help);
    option->check(numberIn(min, max, minExclusive))->type_name("NUMBER");
    option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    option->default_str(CLI::detail::to_string(target));
    return option;
}

// The same for a number whose default is only known later (empty when not given).
CLI::Option *addNumber(CLI::App &app, const std::string &name, std::optional<double> &target, const std::string &help,
                       double min, double max = std::numeric_limits<double>::infinity(), bool minExclusive = false);

} // namespace beamscope::cli
