#include "core/bench/uniform_barriers.h"

#include <optional>
#include <vector>

namespace beamscope::bench {

using namespace Halide::Internal;
using Halide::Expr;

namespace {

bool isBarrier(const Stmt &s)
{
    const auto *eval = s.as<Evaluate>();
    if (!eval)
        return false;
    const auto *call = eval->value.as<Call>();
    return call && call->is_intrinsic(Call::gpu_thread_barrier);
}

// What an expression reads, for the two questions below: a variable that
// differs between the threads of a block, or memory (which other threads may
// write), or an impure call.
class ExprReads : public IRVisitor {
public:
    explicit ExprReads(const Scope<> &varying) : varying_(varying) {}
    bool varyingOrMemory = false, impureCall = false;

private:
    using IRVisitor::visit;
    const Scope<> &varying_;
    void visit(const Variable *op) override { varyingOrMemory = varyingOrMemory || varying_.contains(op->name); }
    void visit(const Load *) override { varyingOrMemory = true; }
    void visit(const Call *op) override
    {
        impureCall = impureCall || !op->is_pure();
        IRVisitor::visit(op);
    }
};

ExprReads readsOf(const Expr &e, const Scope<> &varying)
{
    ExprReads reads(varying);
    e.accept(&reads);
    return reads;
}

// True when evaluating e again, later in the same thread, gives the same value
// on every thread of a block: no memory read, no impure call, no varying variable.
bool uniformAndRepeatable(const Expr &e, const Scope<> &varying)
{
    const ExprReads reads = readsOf(e, varying);
    return !reads.varyingOrMemory && !reads.impureCall;
}

// True when e may differ between the threads of a block.
bool usesVarying(const Expr &e, const Scope<> &varying) { return readsOf(e, varying).varyingOrMemory; }

// The statement as parts separated by top-level barriers: s is the same as
// running the parts in order, each barrier among them where it stands. One
// part, with no barrier in it, when s cannot be split.
std::vector<Stmt> splitAtBarriers(const Stmt &s, const Scope<> &varying)
{
    if (!s.defined())
        return {};
    if (isBarrier(s))
        return {s};
    auto hasBarrier = [](const std::vector<Stmt> &parts) {
        for (const auto &p : parts)
            if (isBarrier(p))
                return true;
        return false;
    };
    // Each non-barrier part wrapped in the same enclosing node.
    auto wrapEach = [](const std::vector<Stmt> &parts, auto wrap) {
        std::vector<Stmt> out;
        for (const auto &p : parts)
            out.push_back(isBarrier(p) ? p : wrap(p));
        return out;
    };
    if (const auto *block = s.as<Block>()) {
        auto parts = splitAtBarriers(block->first, varying);
        for (auto &p : splitAtBarriers(block->rest, varying))
            parts.push_back(std::move(p));
        if (!hasBarrier(parts))
            return {s};
        // Consecutive plain parts are one part again.
        std::vector<Stmt> merged;
        for (auto &p : parts) {
            if (!merged.empty() && !isBarrier(p) && !isBarrier(merged.back()))
                merged.back() = Block::make(merged.back(), p);
            else
                merged.push_back(p);
        }
        return merged;
    }
    if (const auto *let = s.as<LetStmt>()) {
        if (!uniformAndRepeatable(let->value, varying))
            return {s};
        auto parts = splitAtBarriers(let->body, varying);
        if (!hasBarrier(parts))
            return {s};
        return wrapEach(parts, [&](const Stmt &p) { return LetStmt::make(let->name, let->value, p); });
    }
    if (const auto *pc = s.as<ProducerConsumer>()) {
        auto parts = splitAtBarriers(pc->body, varying);
        if (!hasBarrier(parts))
            return {s};
        return wrapEach(parts, [&](const Stmt &p) { return ProducerConsumer::make(pc->name, pc->is_producer, p); });
    }
    return {s};
}

} // namespace

Stmt LiftBarriersFromUniformIfs::visit(const For *op)
{
    const bool threadLoop = op->for_type == ForType::GPUThread || op->for_type == ForType::GPULane;
    const bool varies = threadLoop || usesVarying(op->min, varying_) || usesVarying(op->extent, varying_);
    if (!varies)
        return IRMutator::visit(op);
    varying_.push(op->name);
    Stmt result = IRMutator::visit(op);
    varying_.pop(op->name);
    return result;
}

Stmt LiftBarriersFromUniformIfs::visit(const LetStmt *op)
{
    if (!usesVarying(op->value, varying_))
        return IRMutator::visit(op);
    varying_.push(op->name);
    Stmt result = IRMutator::visit(op);
    varying_.pop(op->name);
    return result;
}

Stmt LiftBarriersFromUniformIfs::visit(const IfThenElse *op)
{
    // Inner conditionals first, so a barrier two uniform ifs deep comes up one
    // level at a time.
    Stmt mutated = IRMutator::visit(op);
    const auto *ite = mutated.as<IfThenElse>();
    if (!ite || ite->else_case.defined() || !uniformAndRepeatable(ite->condition, varying_))
        return mutated;
    const std::vector<Stmt> parts = splitAtBarriers(ite->then_case, varying_);
    if (parts.size() < 2)
        return mutated;
    std::vector<Stmt> out;
    for (const auto &p : parts)
        out.push_back(isBarrier(p) ? p : IfThenElse::make(ite->condition, p));
    ++lifted_;
    return Block::make(out);
}

Stmt liftBarriersFromUniformIfs(const Stmt &s, int *lifted)
{
    LiftBarriersFromUniformIfs pass;
    Stmt result = pass.mutate(s);
    if (lifted)
        *lifted = pass.lifted();
    return result;
}

} // namespace beamscope::bench
