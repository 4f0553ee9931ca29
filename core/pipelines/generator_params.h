#pragma once
// A generator's GeneratorParams (name, C++ type, default, choices for an enum),
// as the explorer lists them beside a generator and `beamscope-cli generators`
// prints them. Halide 14 keeps a generator's parameter table private; the one
// public view of it is the C++ stub the generator writes (emit_cpp_stub), whose
// GeneratorParams struct declares every parameter with its default. The stub's
// text is read here; building it runs the generator's constructor only.

#include <string>
#include <vector>

namespace beamscope::pipelines {

struct GeneratorParamSpec {
    std::string name;
    std::string type;                 // "int32_t", "float", "bool", "Halide::Type", "std::string", an enum's name, ...
    std::string defaultValue;         // as --param takes it: "32", "true", "uint8", "slide_vector"
    std::vector<std::string> choices; // an enum's values; empty otherwise
};

// The GeneratorParams a Halide 14 C++ stub declares ("target" and the other
// parameters every generator has are not in it). Lines it cannot read are skipped.
std::vector<GeneratorParamSpec> paramsFromStub(const std::string &stubText);

// Whether a value suits a parameter's type as Halide will parse it: "" when it
// does, else why not ("not an integer", "not one of false, true"). Types it does
// not know are left to Halide. The explorer checks each value as it is typed.
std::string checkGeneratorParamValue(const GeneratorParamSpec &param, const std::string &value);

// The Inputs a Halide 14 C++ stub declares, in declaration order: the order of
// the arguments of the generator's compiled function.
std::vector<std::string> inputsFromStub(const std::string &stubText);

// Generator `name`'s C++ stub, written to a temporary file and read (building
// it runs the generator's constructor only). Throws GeneratorError naming the
// library and generator.
std::string generatorStub(const std::string &path, const std::string &name);

// Generator `name` of the library at `path` (loaded as loadGeneratorLibrary does):
// its stub written to a temporary file and read. Throws GeneratorError naming the
// library and generator.
std::vector<GeneratorParamSpec> generatorParams(const std::string &path, const std::string &name);

} // namespace beamscope::pipelines
