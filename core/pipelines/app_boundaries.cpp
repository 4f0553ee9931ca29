// Boundary conditions of the apps, named as Halide's loop-nest dumps name them.

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

Func repeatEdge(const ImageParam &im, const std::string &lambdaName)
{
    Func wrapped(lambdaName), edge("repeat_edge");
    wrapped(_) = im(_);
    std::vector<Var> args = wrapped.args();
    std::vector<Expr> coords;
    for (size_t d = 0; d < args.size(); d++) {
        Expr lo = im.dim(static_cast<int>(d)).min();
        coords.push_back(clamp(likely(args[d]), lo, lo + im.dim(static_cast<int>(d)).extent() - 1));
    }
    edge(args) = wrapped(coords);
    return edge;
}

} // namespace beamscope::pipelines::apps
