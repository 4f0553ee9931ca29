#pragma once
// expr_branching (ScheduleFeatures v3): Anderson2021's register-pressure
// estimate of a Func's pure definition, a Sethi-Ullman-like count over its
// simplified, CSE'd values and store arguments, descending into calls to
// inlined Funcs (each such call counts as the inlined Func's own measure,
// whatever its arguments). Update stages report their Func's pure-definition
// measure, as Halide does.

#include <Halide.h>

#include <functional>

namespace beamscope::search {

// `inlinedMeasure(name, out)`: when `name` is an inlined Func, sets `out` to its
// measure (the caller memoizes and recurses through exprBranching) and returns
// true; false for calls that are not inlined.
using InlinedBranching = std::function<bool(const std::string &name, int &out)>;

int exprBranching(const Halide::Internal::Function &func, const InlinedBranching &inlinedMeasure);

} // namespace beamscope::search
