#pragma once
// A lowering pass that lifts GPU thread barriers out of conditionals whose
// condition is the same for every thread of a block.
//
// Halide guards a per-block stage whose extent may be empty with an `if` on
// block indices only, and the barrier that ends the stage's first definition
// lands inside it. That is legal OpenCL (every work-item of a group takes the
// same branch), but PoCL's work-item-loop lowering up to its 7.x releases can
// then run the code after such a barrier for work-items that a later guard
// excludes (pocl/pocl#2235, fixed upstream in 2026; Debian 12 ships 3.1). On
// cuda_mat_mul's `prod` tiles that reads 32 rows past the end of B: a SIGSEGV
// on PoCL for a schedule that is correct on a GPU.
//
// The rewrite keeps the meaning: `if (c) { S0; barrier; S1 }` becomes
// `if (c) { S0 } barrier; if (c) { S1 }` when c depends on no thread index,
// reads no memory and calls nothing impure. Lets around the barrier are
// repeated in each part when their values read no memory either; anything
// else is left as Halide wrote it. The barrier then runs even where c is
// false, which every thread of the block does alike.

#include <Halide.h>

namespace beamscope::bench {

class LiftBarriersFromUniformIfs : public Halide::Internal::IRMutator {
public:
    int lifted() const { return lifted_; } // conditionals split so far

protected:
    using Halide::Internal::IRMutator::visit;
    Halide::Internal::Stmt visit(const Halide::Internal::For *op) override;
    Halide::Internal::Stmt visit(const Halide::Internal::LetStmt *op) override;
    Halide::Internal::Stmt visit(const Halide::Internal::IfThenElse *op) override;

private:
    // Variables whose value may differ between the threads of one block:
    // thread and lane loop variables, and what is computed from them.
    Halide::Internal::Scope<> varying_;
    int lifted_ = 0;
};

// The rewrite applied to a statement on its own (tests, and the stmt view).
Halide::Internal::Stmt liftBarriersFromUniformIfs(const Halide::Internal::Stmt &s, int *lifted = nullptr);

} // namespace beamscope::bench
