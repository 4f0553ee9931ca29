#include "tests/pipelines/small_run.h"

#include "core/dag/function_dag.h"
#include "core/pipelines/host_target.h"
#include "core/util/halide_names.h"

#include <cmath>
#include <type_traits>
#include <sstream>

namespace beamscope::test {

using namespace Halide;

namespace {

std::string baseName(const std::string &name) { return baseFuncName(name); }

// A smooth-ish deterministic pattern in [0, 1).
double pattern(const int *pos, int dims)
{
    uint32_t h = 2166136261u;
    for (int d = 0; d < dims; d++)
        h = (h ^ static_cast<uint32_t>(pos[d] + 1000)) * 16777619u;
    return static_cast<double>(h % 1000) / 1000.0;
}

template <typename T>
void fill(Buffer<> &buf, double scale)
{
    Buffer<T> typed = buf.as<T>();
    const int dims = typed.dimensions();
    typed.for_each_element([&](const int *pos) { typed(pos) = static_cast<T>(pattern(pos, dims) * scale); });
}

void fillBuffer(Buffer<> &buf)
{
    const Type t = buf.type();
    if (t == Float(32))
        fill<float>(buf, 1.0);
    else if (t == Float(64))
        fill<double>(buf, 1.0);
    else if (t == UInt(8))
        fill<uint8_t>(buf, 255.0);
    else if (t == UInt(16))
        fill<uint16_t>(buf, 1023.0); // raw sensor range for camera_pipe, fine for the others
    else if (t == Int(32))
        fill<int32_t>(buf, 1000.0);
    else
        throw std::runtime_error("small run: unsupported input type");
}

halide_scalar_value_t scalarOf(const Expr &e)
{
    halide_scalar_value_t v{};
    if (const auto *i = e.as<Internal::IntImm>()) {
        if (e.type().bits() == 32)
            v.u.i32 = static_cast<int32_t>(i->value);
        else
            v.u.i64 = i->value;
    } else if (const auto *f = e.as<Internal::FloatImm>()) {
        if (e.type().bits() == 32)
            v.u.f32 = static_cast<float>(f->value);
        else
            v.u.f64 = f->value;
    } else if (const auto *u = e.as<Internal::UIntImm>()) {
        v.u.u64 = u->value;
    } else {
        throw std::runtime_error("small run: a scalar estimate is not a constant");
    }
    return v;
}

} // namespace

std::vector<int> prepareSmallRun(pipelines::PipelineInstance &p, int maxExtent)
{
    for (Internal::Parameter &param : p.parameters) {
        if (!param.is_buffer())
            continue;
        for (int d = 0; d < param.dimensions(); d++) {
            const int64_t *e = Internal::as_const_int(param.extent_constraint_estimate(d));
            if (e && *e > maxExtent)
                param.set_extent_constraint_estimate(d, maxExtent);
        }
    }
    std::vector<int> extents;
    std::vector<dag::Span> region;
    const dag::FunctionDAG dag(p.outputs);
    const dag::Node &out = dag.nodes[static_cast<size_t>(dag.outputNodes.at(0))];
    for (const dag::Span &s : out.estimatedRegion) {
        const int e = static_cast<int>(std::min<int64_t>(s.extent(), maxExtent));
        extents.push_back(e);
        region.push_back(dag::Span{s.min, s.min + e - 1});
    }
    std::vector<std::vector<dag::Span>> outputs{region};
    for (size_t o = 1; o < dag.outputNodes.size(); o++)
        outputs.push_back(dag.nodes[static_cast<size_t>(dag.outputNodes[o])].estimatedRegion);
    const auto required = dag.regionsRequired(outputs);

    for (Internal::Parameter &param : p.parameters) {
        if (!param.is_buffer()) {
            param.set_scalar(param.type(), scalarOf(param.estimate()));
            continue;
        }
        // The region read through the <name>_im wrapper, widened to the estimate
        // (code may look at the buffer's own extent, e.g. RDom(0, input.width())).
        std::vector<dag::Span> need;
        for (const dag::Node &n : dag.nodes)
            if (n.isInput && baseName(n.name) == param.name() + "_im")
                need = required[static_cast<size_t>(n.id)];
        std::vector<int> mins, sizes;
        for (int d = 0; d < param.dimensions(); d++) {
            dag::Span s{*Internal::as_const_int(param.min_constraint_estimate(d)), 0};
            s.max = s.min + *Internal::as_const_int(param.extent_constraint_estimate(d)) - 1;
            if (static_cast<int>(need.size()) > d)
                s.unionWith(need[static_cast<size_t>(d)]);
            mins.push_back(static_cast<int>(s.min));
            sizes.push_back(static_cast<int>(s.extent()));
        }
        Buffer<> buf(param.type(), sizes);
        buf.set_min(mins);
        fillBuffer(buf);
        param.set_buffer(buf);
    }
    return extents;
}

void computeEverythingAtRoot(pipelines::PipelineInstance &p)
{
    const dag::FunctionDAG dag(p.outputs);
    for (const dag::Node &n : dag.nodes)
        if (!n.isOutput && !n.isInput)
            Func(n.func).compute_root();
    for (Func &out : p.outputs) {
        out.vectorize(out.args()[0], 8);
        if (out.dimensions() > 1)
            out.parallel(out.args()[out.dimensions() - 1]);
    }
}

void rootFuncsReadManyTimes(pipelines::PipelineInstance &p)
{
    const dag::FunctionDAG dag(p.outputs);
    for (const dag::Node &n : dag.nodes) {
        if (n.isOutput || n.isInput)
            continue;
        int calls = 0;
        for (int e : n.outgoingEdges)
            calls += dag.edges[static_cast<size_t>(e)].calls;
        // A Func with an update computed per point of its reader would redo a whole scan or
        // reduction per point (nested scans: a power of the extent).
        if (calls > 1 || Func(n.func).has_update_definition())
            Func(n.func).compute_root();
    }
}

Buffer<> realizeOnHost(pipelines::PipelineInstance &p, const std::vector<int> &extents)
{
    Buffer<> out(p.outputs.at(0).output_types().at(0), extents);
    // The region starts where the output's estimate does (Halide's harris estimates x and y
    // from 3: the image minus its border, read without a boundary condition).
    const Internal::Function f = p.outputs.at(0).function();
    std::vector<int> mins(extents.size(), 0);
    for (const Internal::Bound &b : f.schedule().estimates())
        for (size_t d = 0; d < f.args().size() && d < mins.size(); d++)
            if (f.args()[d] == b.var)
                if (const int64_t *m = Internal::as_const_int(b.min))
                    mins[d] = static_cast<int>(*m);
    out.set_min(mins);
    // strict_float: no fused multiply-adds, so values do not depend on which
    // expressions a schedule happens to inline into one another.
    p.pipeline().realize(out, pipelines::hostTarget().with_feature(Target::StrictFloat));
    return out;
}

namespace {
template <typename T>
std::string compareTyped(const Buffer<> &a, const Buffer<> &b, double tol)
{
    Buffer<T> ta = a.as<T>(), tb = b.as<T>();
    std::string diff;
    ta.for_each_element([&](const int *pos) {
        if (!diff.empty())
            return;
        const double x = static_cast<double>(ta(pos)), y = static_cast<double>(tb(pos));
        const bool same = (std::isnan(x) && std::isnan(y)) ||
                          std::abs(x - y) <= (std::is_integral_v<T> ? tol : tol * std::max(1.0, std::abs(y)));
        if (!same) {
            std::ostringstream s;
            s << "at (";
            for (int d = 0; d < ta.dimensions(); d++)
                s << (d ? "," : "") << pos[d];
            s << "): " << x << " vs reference " << y;
            diff = s.str();
        }
    });
    return diff;
}
} // namespace

std::string compareBuffers(const Buffer<> &a, const Buffer<> &b, double tol)
{
    if (a.type() != b.type() || a.dimensions() != b.dimensions())
        return "type or dimensions differ";
    const Type t = a.type();
    if (t == Float(32))
        return compareTyped<float>(a, b, tol);
    if (t == Float(64))
        return compareTyped<double>(a, b, tol);
    // Integer outputs must match exactly (runs use strict_float, see realizeOnHost).
    if (t == UInt(8))
        return compareTyped<uint8_t>(a, b, 0);
    if (t == UInt(16))
        return compareTyped<uint16_t>(a, b, 0);
    if (t == Int(32))
        return compareTyped<int32_t>(a, b, 0);
    return "unsupported output type";
}

} // namespace beamscope::test
