#pragma once
// Halide 14 makes every Func name unique within a process: a second build of a
// pipeline names its Funcs "blur_x$1", "output$1", ... The suffix says nothing
// about the pipeline, so names are compared, looked up and shown without it.
// Plain text helpers (no Halide), for the core, the explorer and the tests.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace beamscope {

// The name without its uniquing suffix: "blur_x$2" -> "blur_x".
std::string baseFuncName(std::string_view name);

// The number of the uniquing suffix, which orders Funcs of one base name as they were made:
// "blur_x$2" -> 2, "blur_x" -> -1 (the first made).
int64_t uniqueSuffixNumber(std::string_view name);

// One pipeline's Func names as Beamscope shows them everywhere (the explorer,
// the CLI, traces' display, the emitted schedule): unique, and the same however
// many pipelines the process built before. Halide numbers a reused name with a
// process-wide counter ("sum", "sum$1"; after a rebuild "sum$2", "sum$3"), and
// its lambda()s likewise ("lambda_0", then "lambda_1"). Here the Funcs of one
// base name are renumbered in the order Halide made them: the first keeps the
// base name, the k-th after it is "base$k", which is what a fresh process
// names them; lambdas become lambda_0, lambda_1, ... in the same way. Two
// distinct Funcs never share a name. (Halide's dumps keep Halide's own names.)
class FuncNames {
public:
    FuncNames() = default;
    // `names`: every Func of the pipeline, as Halide named them in this process.
    explicit FuncNames(const std::vector<std::string> &names);
    // From stage names ("sum$1_s0"), as traces list them.
    static FuncNames fromStageNames(const std::vector<std::string> &stageNames);

    // The shown name of a Func (a name this pipeline lacks is returned as given).
    std::string name(const std::string &halideName) const;
    // Text with every Func name of this pipeline replaced by its shown name;
    // a name is replaced where it stands alone or before a stage suffix
    // ("_s0", ".s1"): "sum$7_s1 reads sum$6" -> "sum$1_s1 reads sum".
    std::string rewrite(std::string_view text) const;
    // True when some Func's shown name differs from Halide's.
    bool renames() const { return !m_renamed.empty(); }

private:
    std::map<std::string, std::string> m_renamed; // Halide's name -> shown name, where they differ
};

// Text with every uniquing suffix removed (a '$' and digits right after an
// identifier character): "blur_x$1_s0 reads input$3" -> "blur_x_s0 reads input".
std::string withoutUniqueSuffixes(std::string_view text);

} // namespace beamscope
