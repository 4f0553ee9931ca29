// lens_blur: Halide's apps/lens_blur (v14.0.0) -- depth from a stereo pair by
// block matching (a cost volume smoothed by a push-pull pyramid, then its
// argmin), followed by a synthetic shallow depth of field: each pixel gathers
// random samples within the worst-case bokeh radius of its neighbourhood.

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines::apps {

using namespace Halide;

namespace {

// Halide 14's BoundaryConditions::repeat_edge, with the Func name given: the
// helper names its Func from this process's unique-name counter, which is not
// the generator's. Dimensions past `bounds` are left unclamped.
Func repeatEdge(const char *name, const Func &source, const Region &bounds)
{
    std::vector<Var> args = source.args();
    std::vector<Expr> coords;
    for (size_t i = 0; i < args.size(); i++) {
        if (i < bounds.size())
            coords.push_back(clamp(likely(args[i]), bounds[i].min, bounds[i].min + bounds[i].extent - 1));
        else
            coords.push_back(args[i]);
    }
    Func f(name);
    f(args) = source(coords);
    return f;
}

// What repeat_edge(ImageParam) builds in Halide 14: a lambda Func wrapping the
// buffer, clamped to the buffer's own extent in every dimension.
Func repeatEdgeImage(const char *lambdaName, const char *name, const ImageParam &im)
{
    Func wrapped(lambdaName);
    wrapped(_) = im(_);
    Region bounds;
    for (int d = 0; d < im.dimensions(); d++)
        bounds.push_back({im.dim(d).min(), im.dim(d).extent()});
    return repeatEdge(name, wrapped, bounds);
}

// random_float() with a fixed id instead of Halide's process-wide counter.
Expr fixedRandomFloat(int id)
{
    return Internal::Call::make(Float(32), Internal::Call::random, {id}, Internal::Call::PureIntrinsic);
}

// Defining a Func expands its random calls (Random.cpp) with a tag from another
// process-wide counter: the expansion's first step adds the id's hash and the
// tag, two uint32 constants. Zeroing the tag makes every build of the pipeline
// sample alike (a reference and a scheduled run compute the same image) and
// leaves the operations as Halide's.
class ZeroRandomTag : public Internal::IRMutator {
    using IRMutator::visit;
    Expr visit(const Internal::Add *op) override
    {
        if (op->type == UInt(32) && op->a.as<Internal::UIntImm>() && op->b.as<Internal::UIntImm>())
            return Internal::Add::make(op->a, Internal::make_zero(op->type));
        return IRMutator::visit(op);
    }
};

} // namespace

PipelineInstance lensBlur()
{
    // Inputs in the generator's order, with its defaults and ranges.
    ImageParam left_im(UInt(8), 3, "left_im");
    ImageParam right_im(UInt(8), 3, "right_im");
    Param<int> slices("slices", 32, 1, 64);                                // disparities tried
    Param<int> focus_depth("focus_depth", 13, 1, 32);                      // the depth in focus
    Param<float> blur_radius_scale("blur_radius_scale", 0.5f, 0.0f, 1.0f); // blur per unit of misfocus
    Param<int> aperture_samples("aperture_samples", 32, 1, 64);            // samples per output pixel
    Var x("x"), y("y"), z("z"), c("c");

    // The pyramid helpers: a [1 3 3 1] / 8 downsample and a bilinear upsample,
    // separable, over the first two dimensions only.
    auto downsample = [&](const char *nx, const char *ny, const Func &f) {
        Func dx(nx), dy(ny);
        dx(x, y, _) = (f(2 * x - 1, y, _) + 3.0f * (f(2 * x, y, _) + f(2 * x + 1, y, _)) + f(2 * x + 2, y, _)) / 8.0f;
        dy(x, y, _) =
            (dx(x, 2 * y - 1, _) + 3.0f * (dx(x, 2 * y, _) + dx(x, 2 * y + 1, _)) + dx(x, 2 * y + 2, _)) / 8.0f;
        return dy;
    };
    auto upsample = [&](const char *nx, const char *ny, const Func &f) {
        Func ux(nx), uy(ny);
        ux(x, y, _) = 0.25f * f((x / 2) - 1 + 2 * (x % 2), y, _) + 0.75f * f(x / 2, y, _);
        uy(x, y, _) = 0.25f * ux(x, (y / 2) - 1 + 2 * (y % 2), _) + 0.75f * ux(x, y / 2, _);
        return uy;
    };

    // The largest blur any depth can ask for; bounds the max filter and the samples.
    Expr maxBlurRadius = cast<int>(max(slices - focus_depth, focus_depth) * blur_radius_scale);

    Func left = repeatEdgeImage("lambda_0", "repeat_edge", left_im);
    Func right = repeatEdgeImage("lambda_1", "repeat_edge", right_im);

    // Per channel, the better match of the two right-image pixels at disparity z.
    Func diff("f0");
    diff(x, y, z, c) =
        min(absd(left(x, y, c), right(x + 2 * z, y, c)), absd(left(x, y, c), right(x + 2 * z + 1, y, c)));

    Func cost("f1");
    cost(x, y, z) = pow(cast<float>(diff(x, y, z, 0)), 2) + pow(cast<float>(diff(x, y, z, 1)), 2) +
                    pow(cast<float>(diff(x, y, z, 2)), 2);

    // Confidence: the variance of the cost over the disparities.
    Func cost_confidence("f2");
    {
        RDom r(0, slices);
        Expr meanOfSquares = sum(pow(cost(x, y, r), 2), "sum") / slices;
        Expr squaredMean = pow(sum(cost(x, y, r) / slices, "sum"), 2);
        cost_confidence(x, y) = meanOfSquares - squaredMean;
    }

    // Push-pull: confidence-weighted cost (c = 0) and the confidence (c = 1),
    // down a pyramid and back up, filling low-confidence regions.
    const char *pushNames[8] = {"f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10"};
    const char *downNames[7][2] = {{"f11", "f12"}, {"f13", "f14"}, {"f15", "f16"}, {"f17", "f18"},
                                   {"f19", "f20"}, {"f21", "f22"}, {"f23", "f24"}};
    Func push[8];
    for (int i = 0; i < 8; i++)
        push[i] = Func(pushNames[i]);
    push[0](x, y, z, c) = mux(c, {cost(x, y, z) * cost_confidence(x, y), cost_confidence(x, y)});
    Expr w = left_im.dim(0).extent(), h = left_im.dim(1).extent();
    for (int i = 1; i < 8; i++) {
        push[i](x, y, z, c) = downsample(downNames[i - 1][0], downNames[i - 1][1], push[i - 1])(x, y, z, c);
        w /= 2;
        h /= 2;
        // Each level's edges repeat, at that level's size.
        push[i] = repeatEdge("repeat_edge", push[i], {{0, w}, {0, h}});
    }

    const char *pullNames[8] = {"f25", "f26", "f27", "f28", "f29", "f30", "f31", "f32"};
    const char *upNames[7][2] = {{"f45", "f46"}, {"f43", "f44"}, {"f41", "f42"}, {"f39", "f40"},
                                 {"f37", "f38"}, {"f35", "f36"}, {"f33", "f34"}}; // for pull[0..6]
    Func pull[8];
    for (int i = 0; i < 8; i++)
        pull[i] = Func(pullNames[i]);
    pull[7](x, y, z, c) = push[7](x, y, z, c);
    for (int i = 6; i >= 0; i--)
        pull[i](x, y, z, c) =
            lerp(upsample(upNames[i][0], upNames[i][1], pull[i + 1])(x, y, z, c), push[i](x, y, z, c), 0.5f);

    Func filtered_cost("f47");
    filtered_cost(x, y, z) = pull[0](x, y, z, 0) / pull[0](x, y, z, 1);

    // The depth is the disparity of least filtered cost.
    Func depth("f48");
    {
        RDom r(0, slices);
        depth(x, y) = argmin(filtered_cost(x, y, r), "argmin")[0];
    }

    Func bokeh_radius("f49");
    bokeh_radius(x, y) = abs(depth(x, y) - focus_depth) * blur_radius_scale;

    Func bokeh_radius_squared("f50");
    bokeh_radius_squared(x, y) = pow(bokeh_radius(x, y), 2);

    // A separable max filter of the bokeh radius: the largest radius that can
    // reach each pixel, so the samples below cover only what may matter.
    Func worst_case_bokeh_radius_y("f51");
    Func worst_case_bokeh_radius("f52");
    {
        RDom r(-maxBlurRadius, 2 * maxBlurRadius + 1);
        worst_case_bokeh_radius_y(x, y) = maximum(bokeh_radius(x, y + r), "maximum");
        worst_case_bokeh_radius(x, y) = maximum(worst_case_bokeh_radius_y(x + r, y), "maximum");
    }

    // RGB of the left image as float, plus an opaque alpha channel that
    // accumulates the weights for the normalisation.
    Func input_with_alpha("f53");
    input_with_alpha(x, y, c) =
        mux(c, {cast<float>(left(x, y, 0)), cast<float>(left(x, y, 1)), cast<float>(left(x, y, 2)), 255.0f});

    Func output("f54");
    output(x, y, c) = input_with_alpha(x, y, c);

    // Random offsets within the worst-case radius, per pixel and sample (shared by the channels).
    Expr worstRadius = worst_case_bokeh_radius(x, y);
    Expr u = (fixedRandomFloat(0) - 0.5f) * 2 * worstRadius;
    Expr v = (fixedRandomFloat(1) - 0.5f) * 2 * worstRadius;
    u = clamp(cast<int>(u), -maxBlurRadius, maxBlurRadius);
    v = clamp(cast<int>(v), -maxBlurRadius, maxBlurRadius);
    Func sample_locations("f55");
    sample_locations(x, y, z) = Tuple(u, v);
    {
        ZeroRandomTag zeroTag;
        sample_locations.function().mutate(&zeroTag);
    }

    RDom s(0, aperture_samples);
    u = sample_locations(x, y, z)[0];
    v = sample_locations(x, y, z)[1];
    Expr sx = x + u, sy = y + v;
    Expr rr = u * u + v * v;

    // A sample counts if either bokeh reaches the other (roughly: nearer
    // samples occlude), and this pixel lies within the sample's bokeh.
    Expr sampleInOurBokeh = rr < bokeh_radius_squared(x, y);
    Expr weInSampleBokeh = rr < bokeh_radius_squared(sx, sy);
    Expr sampleInFront = depth(sx, sy) < depth(x, y);
    Func sample_weight("f56");
    sample_weight(x, y, z) = select((sampleInOurBokeh || sampleInFront) && weInSampleBokeh, 1.0f, 0.0f);

    sx = x + sample_locations(x, y, s)[0];
    sy = y + sample_locations(x, y, s)[1];
    output(x, y, c) += sample_weight(x, y, s) * input_with_alpha(sx, sy, c);

    // Divide by the accumulated alpha.
    Func final("final");
    final(x, y, c) = output(x, y, c) / output(x, y, 3);

    // The generator's estimates.
    left_im.set_estimates({{0, 192}, {0, 320}, {0, 3}});
    right_im.set_estimates({{0, 192}, {0, 320}, {0, 3}});
    slices.set_estimate(32);
    focus_depth.set_estimate(13);
    blur_radius_scale.set_estimate(0.5f);
    aperture_samples.set_estimate(32);
    final.set_estimates({{0, 192}, {0, 320}, {0, 3}});

    // Roots as in Halide's GPU schedule (the pyramid levels, depth, the max
    // filter, the alpha image), plus output, whose update cannot be inlined.
    std::vector<Func> roots = {push[0]};
    for (int i = 1; i < 8; i++) {
        roots.push_back(push[i]);
        roots.push_back(pull[i]);
    }
    for (const Func &f : {depth, input_with_alpha, worst_case_bokeh_radius_y, worst_case_bokeh_radius, output})
        roots.push_back(f);
    return makeInstance("lens_blur", {final},
                        {left_im, right_im, slices, focus_depth, blur_radius_scale, aperture_samples},
                        tiledGpuSchedule(final, roots));
}

} // namespace beamscope::pipelines::apps
