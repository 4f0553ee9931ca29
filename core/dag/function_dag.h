#pragma once
// The FunctionDAG of a Halide 14 pipeline, as Halide's learned autoschedulers
// see it: one node per Func (outputs first, producers after their consumers),
// one stage per definition, edges carrying the region of the producer that a
// consumer stage needs (symbolic in the consumer's loop bounds, evaluable for a
// concrete region), the load Jacobians of each edge, and each stage's
// PipelineFeatures v3.

#include "core/dag/pipeline_features.h"

#include <Halide.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace beamscope::dag {

// A closed integer interval [min, max] (Halide's convention: max is inclusive).
struct Span {
    int64_t min = 0;
    int64_t max = -1;
    int64_t extent() const { return max - min + 1; }
    void unionWith(const Span &other);
    bool operator==(const Span &) const = default;
};

// Thrown when the pipeline lacks something the DAG needs (an estimate on an
// output dimension, a parameter's estimate); the message names the Func or
// parameter and the dimension.
class DagError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// d(producer coordinate i) / d(consumer loop j) of one call site: a rational
// when the index is affine in the loop variable, "unknown" otherwise.
struct JacobianEntry {
    bool known = false;
    int64_t numerator = 0;
    int64_t denominator = 1;
    bool isZero() const { return known && numerator == 0; }
    bool isOne() const { return known && numerator == denominator; }
    bool operator==(const JacobianEntry &o) const;
};

// Anderson2021's OptionalRational::operator+= on a (numerator, denominator) pair, a denominator
// of 0 meaning unknown, quirks included: it tests the denominators with a bitwise and, so a sum of
// terms whose denominators share no bit (x / 8 + 1: 8 & 1 == 0) is unknown, and it reduces with
// Halide's gcd, whose sign can move onto the denominator. One copy for the DAG's Jacobians and
// the GPU memory features' compositions through inlined Funcs.
void addOptionalRational(int64_t &numerator, int64_t &denominator, int64_t otherNumerator, int64_t otherDenominator);

struct LoadJacobian {
    std::vector<std::vector<JacobianEntry>> matrix; // [producer dim][consumer loop]
    int count = 1;                                  // call sites with this Jacobian
};

struct Loop {
    std::string var;
    Halide::Expr min, max; // in terms of the node's symbolic region / concrete rvar bounds
    bool pure = true;
    bool rvar = false;
};

struct Node;

struct Stage {
    Node *node = nullptr;
    int index = 0;          // 0 = pure definition, k = update k-1
    std::string name;       // "<func>_s<index>"
    std::vector<Loop> loop; // innermost first, as Halide's schedule lists dims
    PipelineFeatures features;
    // d(store coordinate i) / d(loop j) of the definition's left-hand side, as Halide's
    // featurizer derives it (simplified, CSE'd arguments): a constant coordinate is a row of
    // zeros, `height - r - 1` gives -1 along r, a data-dependent one is unknown.
    std::vector<std::vector<JacobianEntry>> storeJacobian;
    std::vector<int> incomingEdges; // indices into FunctionDAG::edges
};

struct SymbolicInterval {
    Halide::Var min, max;
};

struct Node {
    Halide::Internal::Function func;
    std::string name;
    int id = 0;
    std::vector<SymbolicInterval> regionRequired;           // symbolic variables <func>.<arg>.min/max
    std::vector<Halide::Internal::Interval> regionComputed; // in terms of regionRequired
    std::vector<Stage> stages;
    std::vector<Span> estimatedRegion;        // outputs only: from set_estimates / bound
    std::vector<bool> estimatedRegionIsBound; // per dimension: from Func::bound, a constant extent
    std::vector<int> outgoingEdges;
    bool isOutput = false;
    bool isInput = false; // an ImageParam / Input<Buffer> wrapper (<name>_im)
    bool isWrapper = false;
    bool isPointwise = false;
    // Calling it costs at least what computing it inline does (Halide's is_func_trivial_to_inline:
    // one operation plus its output's bytes against its definition's arithmetic and loads), so
    // Anderson2021 always lets it be inlined, however often it is recomputed.
    bool trivialToInline = false;
    int bytesPerPoint = 0;
};

struct Edge {
    int producer = 0;      // node id
    int consumerNode = 0;  // node id
    int consumerStage = 0; // stage index within the consumer node
    int calls = 0;         // call sites of the producer in that stage
    // Per producer dimension: the required [min, max] as expressions of the
    // consumer stage's loop variables "<consumer>.<var>.min/max".
    std::vector<std::pair<Halide::Expr, Halide::Expr>> bounds;
    // Per producer dimension: whether the min / max bound read a parameter's estimate (Halide's
    // BoundInfo::depends_on_estimate): the extent it gives is then not a compile-time constant.
    std::vector<std::pair<bool, bool>> boundsUseEstimates;
    std::vector<LoadJacobian> loadJacobians;
};

// A stage as the cost model indexes it.
struct StageRef {
    int node = 0;
    int stage = 0;
};

class FunctionDAG {
public:
    // Throws DagError (missing estimates) or Halide::Error (invalid pipeline).
    explicit FunctionDAG(const std::vector<Halide::Func> &outputs);
    FunctionDAG(const FunctionDAG &) = delete;
    FunctionDAG &operator=(const FunctionDAG &) = delete;

    std::vector<Node> nodes; // outputs first; a producer always after its consumers
    std::vector<Edge> edges;

    // Non-input nodes in node order, each node's stages last update first:
    // the stage axis of the cost model and of .featurization / .sample files.
    std::vector<StageRef> costModelStages() const;
    // Checked: a reference to a node or stage that does not exist is an internal
    // error (std::logic_error naming the Func), not a read past the end.
    const Stage &stage(const StageRef &ref) const;

    // The loop bounds of a stage when its node computes `computed`.
    std::vector<Span> loopBounds(int node, int stage, const std::vector<Span> &computed) const;
    // The region a node computes when `required` of it is needed (update
    // definitions may widen it).
    std::vector<Span> requiredToComputed(int node, const std::vector<Span> &required) const;
    // The region of the edge's producer needed by one run of the consumer
    // stage over `consumerLoop` (one Span per consumer loop).
    std::vector<Span> producerRegion(const Edge &edge, const std::vector<Span> &consumerLoop) const;
    // Regions required of every node when the outputs are computed over their
    // estimates (indexed by node id).
    std::vector<std::vector<Span>> estimatedRegionsRequired() const;
    // The same for chosen output regions (one per output, in the order the
    // outputs were given).
    std::vector<std::vector<Span>> regionsRequired(const std::vector<std::vector<Span>> &outputRegions) const;

    std::vector<int> outputNodes; // node id of each output, in the order given

    // A readable dump in the spirit of Halide's FunctionDAG::dump().
    std::string dump() const;

private:
    void featurize();
};

} // namespace beamscope::dag
