#include "app/cli/arguments.h"

#include <algorithm>

namespace beamscope::cli {

CLI::Option *addFlag(CLI::App &app, const std::string &name, bool &target, const std::string &help)
{
    return app.add_flag(name, target, help);
}

CLI::Option *addJsonFlag(CLI::App &app, bool &target)
{
    return addFlag(app, "--json", target, "print the result as one JSON document on stdout");
}

CLI::Option *addText(CLI::App &app, const std::string &name, std::optional<std::string> &target,
                     const std::string &help)
{
    CLI::Option *option = app.add_option_function<std::string>(
        name, [&target](const std::string &value) { target = value; }, help);
    return option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

CLI::Option *addText(CLI::App &app, const std::string &name, std::string &target, const std::string &help)
{
    return app.add_option(name, target, help)
        ->capture_default_str()
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

CLI::Option *addRepeated(CLI::App &app, const std::string &name, std::vector<std::string> &target,
                         const std::string &help)
{
    // One value per occurrence: "--app a b" leaves b over, as a mistake, rather than taking it.
    return app.add_option(name, target, help)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void addWeightsOptions(CLI::App &app, WeightsOptions &options)
{
    addText(app, "--weights", options.weights,
            "the cost model's weights: a .weights file, a legacy directory or a shipped file's name "
            "(default: $BEAMSCOPE_WEIGHTS_PATH, else --weights-dir, else the shipped baseline)");
    addText(app, "--weights-dir", options.weightsDir,
            "use DIR/baseline.weights when neither --weights nor $BEAMSCOPE_WEIGHTS_PATH names the weights");
}

std::vector<std::filesystem::path> SampleRoots::paths() const
{
    std::vector<std::filesystem::path> out(samples.begin(), samples.end());
    out.insert(out.end(), loose.begin(), loose.end());
    return out;
}

void addSampleRoots(CLI::App &app, SampleRoots &roots)
{
    app.add_option("--samples", roots.samples,
                   "folders or .sample files of measured schedules (several may follow one --samples)")
        ->required()
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    // "--samples A --json B": B is a sample root too, as it always was.
    app.add_option("paths", roots.loose)->group("");
}

namespace {

void keepUnknownArguments(CLI::App &app)
{
    app.allow_extras();
    for (CLI::App *sub : app.get_subcommands([](CLI::App *) { return true; }))
        keepUnknownArguments(*sub);
}

const CLI::App *deepestCommand(const CLI::App &app)
{
    const CLI::App *command = &app;
    while (!command->get_subcommands().empty())
        command = command->get_subcommands().front();
    return command;
}

// CLI11 reads "--json=0" as "not --json"; the project's flags take no value at all.
std::optional<std::string> flagGivenAValue(const CLI::App &command, const std::vector<std::string> &args)
{
    for (const std::string &arg : args) {
        if (arg == "--")
            break;
        const size_t eq = arg.find('=');
        if (arg.rfind("--", 0) != 0 || eq == std::string::npos)
            continue;
        const std::string name = arg.substr(2, eq - 2);
        for (const CLI::Option *option : command.get_options())
            if (option->get_expected_max() == 0 && option->check_lname(name))
                return "option --" + name + " takes no value";
    }
    return std::nullopt;
}

std::string unknownArgument(const std::string &arg)
{
    if (arg.size() > 1 && arg[0] == '-' && !readNumber(arg))
        return "unknown option " + arg.substr(0, arg.find('='));
    return "unexpected argument '" + arg + "'";
}

// CLI11's message, except where the project words it differently.
std::string inProjectWords(const CLI::ParseError &e)
{
    const std::string what = e.what();
    const std::string missing = " missing"; // "--beam: 1 required INT missing"
    const size_t colon = what.find(':');
    if (e.get_name() == "ArgumentMismatch" && colon != std::string::npos && what.size() > missing.size() &&
        what.compare(what.size() - missing.size(), missing.size(), missing) == 0)
        return "option " + what.substr(0, colon) + " needs a value";
    return what;
}

} // namespace

ParseOutcome parseCommandLine(CLI::App &app, const std::vector<std::string> &args)
{
    keepUnknownArguments(app);
    ParseOutcome outcome;
    std::optional<std::string> error;
    try {
        std::vector<std::string> reversed(args.rbegin(), args.rend()); // CLI11 takes them last first
        app.parse(reversed);
    } catch (const CLI::CallForHelp &) {
        outcome.kind = ParseOutcome::Kind::Help;
        outcome.command = deepestCommand(app);
        outcome.text = app.help(); // the help of the deepest command given
        return outcome;
    } catch (const CLI::ParseError &e) {
        error = inProjectWords(e);
    }
    outcome.command = deepestCommand(app);
    // An unknown option usually explains the errors that follow it (a missing required one): it goes first.
    if (const auto flag = flagGivenAValue(*outcome.command, args))
        error = flag;
    else if (const std::vector<std::string> extra = app.remaining(true); !extra.empty())
        error = unknownArgument(extra.front());
    if (error) {
        outcome.kind = ParseOutcome::Kind::Usage;
        outcome.text = *error;
    }
    return outcome;
}

std::vector<std::string> withoutOptions(const std::vector<std::string> &args, const std::set<std::string> &flags,
                                        const std::set<std::string> &valued)
{
    std::vector<std::string> out;
    for (size_t i = 0; i < args.size(); i++) {
        const std::string &a = args[i];
        if (a.rfind("--", 0) == 0) {
            const std::string body = a.substr(2);
            const size_t eq = body.find('=');
            const std::string name = body.substr(0, eq);
            if (flags.count(name))
                continue;
            if (valued.count(name)) {
                if (eq == std::string::npos)
                    i++;
                continue;
            }
        }
        out.push_back(a);
    }
    return out;
}

} // namespace beamscope::cli
