// libFuzzer target for the text layer of the loop-nest dump reader
// (core/search/loop_nest_text.cpp). Mapping the entries onto a pipeline's
// Funcs (loop_nest_parser.cpp) needs Halide and is not reached here. Any text
// gives a tree of entries rooted at the first, or a "line N: ..." / "expected
// ..." error; a tree printed (printLoopNestText) reads back into the same tree.

#include "core/search/loop_nest_text.h"
#include "tests/fuzz/fuzz_support.h"

#include <algorithm>

using namespace beamscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    constexpr const char *target = "fuzz_loop_nest_text";
    const std::string_view text = fuzz::text(data, size);
    int firstLine = 0;
    const std::string_view nest = search::findLoopNest(text, &firstLine);
    if (nest.data() < text.data() || nest.data() + nest.size() > text.data() + text.size() || firstLine < 1)
        fuzz::fail(target, "findLoopNest returned text outside its input");
    const search::LoopNestText r = search::parseLoopNestText(text);
    if (!r.ok()) {
        if (!r.entries.empty() || (r.error.rfind("line ", 0) != 0 && r.error.rfind("expected ", 0) != 0))
            fuzz::fail(target, "an error without its line, or with entries");
        return 0;
    }
    if (r.entries.empty() || r.entries[0].kind != search::NestLineKind::Root || r.entries[0].parent != -1)
        fuzz::fail(target, "a tree not rooted at its first entry");
    for (size_t k = 1; k < r.entries.size(); k++) {
        const auto &e = r.entries[k];
        if (e.parent < 0 || static_cast<size_t>(e.parent) >= k)
            fuzz::fail(target, "an entry whose parent is not an earlier entry");
        const auto &siblings = r.entries[static_cast<size_t>(e.parent)].children;
        if (std::find(siblings.begin(), siblings.end(), static_cast<int>(k)) == siblings.end())
            fuzz::fail(target, "an entry missing from its parent's children");
        if (e.kind == search::NestLineKind::Loop)
            for (const auto &s : e.sizes)
                if (s.value < 1)
                    fuzz::fail(target, "a loop size below 1");
    }
    const std::string printed = search::printLoopNestText(r);
    const search::LoopNestText back = search::parseLoopNestText(printed);
    if (!back.ok() || back.entries.size() != r.entries.size())
        fuzz::fail(target, "a printed tree that does not read back");
    for (size_t k = 0; k < r.entries.size(); k++) {
        const auto &a = r.entries[k], &b = back.entries[k];
        const auto sameSizes = [](const std::vector<search::LoopSize> &x, const std::vector<search::LoopSize> &y) {
            return std::equal(x.begin(), x.end(), y.begin(), y.end(), [](const auto &p, const auto &q) {
                return p.value == q.value && p.vectorized == q.vectorized && p.constant == q.constant;
            });
        };
        if (a.kind != b.kind || a.indent != b.indent || a.func != b.func || !sameSizes(a.sizes, b.sizes) ||
            !sameSizes(a.extents, b.extents) || a.vectorLoop != b.vectorLoop || a.vectorDim != b.vectorDim ||
            a.innermost != b.innermost || a.tileable != b.tileable || a.label != b.label || a.stages != b.stages ||
            a.calls != b.calls || a.parent != b.parent || a.children != b.children)
            fuzz::fail(target, "a printed tree that reads back as another tree");
    }
    if (search::printLoopNestText(back) != printed)
        fuzz::fail(target, "printing is not stable");
    return 0;
}
