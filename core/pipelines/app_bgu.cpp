// bgu: Halide's apps/bgu (bilateral guided upsampling, v14.0.0) in Beamscope's own words.

#include "core/pipelines/apps_common.h"

#include <array>

namespace beamscope::pipelines::apps {

using namespace Halide;

namespace {

// A small dense matrix of Exprs (row, column).
template <int R, int C>
using ExprMatrix = std::array<std::array<Expr, C>, R>;

// Selects exprs[c] by the channel variable: a chain of selects ending in the last entry.
Expr byChannel(const Var &c, const std::vector<Expr> &exprs)
{
    Expr e = exprs.back();
    for (int i = static_cast<int>(exprs.size()) - 2; i >= 0; i--)
        e = select(c == i, exprs[static_cast<size_t>(i)], e);
    return e;
}

// Solves A X = B per grid cell with A symmetric, by a square-root-free Cholesky
// (L D L^T) factorization held in one 5-D Func "f2" over (x, y, z, row, column):
// columns [0, M) hold A, columns [M, M + N) hold B. Each matrix entry step is an
// update definition of that Func, in the generator's order. Returns X's entries
// as reads of the Func (`f`, for scheduling).
template <int M, int N>
ExprMatrix<M, N> solveSymmetric(const ExprMatrix<M, M> &a, const ExprMatrix<M, N> &rhs, const Var &x, const Var &y,
                                const Var &z, Func &f)
{
    Var vi, vj;
    f = Func("f2");
    f(x, y, z, vi, vj) = undef<float>();
    auto A = [&](int i, int j) { return f(x, y, z, i, j); };
    auto B = [&](int i, int k) { return f(x, y, z, i, M + k); };

    for (int i = 0; i < M; i++) {
        for (int j = 0; j < M; j++)
            A(i, j) = a[static_cast<size_t>(i)][static_cast<size_t>(j)];
        for (int k = 0; k < N; k++)
            B(i, k) = rhs[static_cast<size_t>(i)][static_cast<size_t>(k)];
    }

    // Factor: the diagonal keeps 1/D, the lower triangle L; the upper triangle is
    // only read while it still holds the unscaled column.
    for (int j = 0; j < M; j++) {
        A(j, j) = fast_inverse(A(j, j));
        for (int i = j + 1; i < M; i++)
            A(i, j) *= A(j, j);
        for (int i = j + 1; i < M; i++)
            for (int k = j + 1; k < M; k++) {
                if (k < i)
                    A(i, k) = A(k, i); // symmetric: copy what was already updated
                else
                    A(i, k) -= A(k, j) * A(j, i);
            }
    }

    // Substitute back, one right-hand side column at a time: L, then D, then L^T.
    ExprMatrix<M, N> out;
    for (int k = 0; k < N; k++) {
        for (int j = 0; j < M; j++)
            for (int i = 0; i < j; i++)
                B(j, k) -= A(j, i) * B(i, k);
        for (int j = 0; j < M; j++)
            B(j, k) *= A(j, j);
        for (int j = M - 1; j >= 0; j--)
            for (int i = j + 1; i < M; i++)
                B(j, k) -= A(i, j) * B(i, k);
        for (int j = 0; j < M; j++)
            out[static_cast<size_t>(j)][static_cast<size_t>(k)] = B(j, k);
    }
    return out;
}

} // namespace

// Bilateral guided upsampling: fit, per cell of a bilateral grid over the
// low-res input, an affine colour transform taking the low-res input to the
// low-res output (accumulate the normal equations, blur them, solve), then
// apply the transforms, trilinearly interpolated, to the full-res input.
PipelineInstance bgu()
{
    Param<float> r_sigma("r_sigma"); // size of a luma bin of the grid
    Param<int> s_sigma("s_sigma");   // size of a spatial bin, in low-res pixels
    ImageParam splat_loc(Float(32), 3, "splat_loc"), values(Float(32), 3, "values"),
        slice_loc(Float(32), 3, "slice_loc");
    Var x("x"), y("y"), z("z"), c("c");

    Func clamped_values = repeatEdge(values, "lambda_0");
    Func clamped_splat_loc = repeatEdge(splat_loc, "lambda_1");

    // The upsampling factor follows from the inputs' sizes.
    Expr upsample_factor_x = cast<int>(ceil(cast<float>(slice_loc.width()) / splat_loc.width()));
    Expr upsample_factor_y = cast<int>(ceil(cast<float>(slice_loc.height()) / splat_loc.height()));
    Expr upsample_factor = max(upsample_factor_x, upsample_factor_y);

    // Luma of each input (Halide leaves these two unnamed: f0 and f1).
    Func gray_splat_loc("f0");
    gray_splat_loc(x, y) =
        (0.25f * clamped_splat_loc(x, y, 0) + 0.5f * clamped_splat_loc(x, y, 1) + 0.25f * clamped_splat_loc(x, y, 2));
    Func gray_slice_loc("f1");
    gray_slice_loc(x, y) = (0.25f * slice_loc(x, y, 0) + 0.5f * slice_loc(x, y, 1) + 0.25f * slice_loc(x, y, 2));

    // Splat: every grid cell sums the terms of a least-squares fit of output
    // against input colour (22 channels) over its s_sigma x s_sigma pixels.
    Func histogram("histogram");
    RDom r(0, s_sigma, 0, s_sigma);
    {
        histogram(x, y, z, c) = 0.0f;
        Expr sx = x * s_sigma + r.x - s_sigma / 2, sy = y * s_sigma + r.y - s_sigma / 2;
        Expr pos = clamp(gray_splat_loc(sx, sy), 0.0f, 1.0f);
        Expr zi = cast<int>(round(pos * (1.0f / r_sigma)));
        Expr vr = clamped_values(sx, sy, 0), vg = clamped_values(sx, sy, 1), vb = clamped_values(sx, sy, 2);
        Expr sr = clamped_splat_loc(sx, sy, 0), sg = clamped_splat_loc(sx, sy, 1), sb = clamped_splat_loc(sx, sy, 2);
        histogram(x, y, zi, c) +=
            byChannel(c, {sr * sr, sr * sg, sr * sb, sr,      sg * sg, sg * sb, sg, sb * sb, sb,      1.0f,    vr * sr,
                          vr * sg, vr * sb, vr,      vg * sr, vg * sg, vg * sb, vg, vb * sr, vb * sg, vb * sb, vb});
    }

    // A seven-tap, roughly 1/d^3 falloff blur of the grid in z, then y, then x.
    Expr t0 = 1.0f / 64, t1 = 1.0f / 27, t2 = 1.0f / 8, t3 = 1.0f;
    Func blurx("blurx"), blury("blury"), blurz("blurz");
    blurz(x, y, z, c) = (histogram(x, y, z - 3, c) * t0 + histogram(x, y, z - 2, c) * t1 +
                         histogram(x, y, z - 1, c) * t2 + histogram(x, y, z, c) * t3 + histogram(x, y, z + 1, c) * t2 +
                         histogram(x, y, z + 2, c) * t1 + histogram(x, y, z + 3, c) * t0);
    blury(x, y, z, c) =
        (blurz(x, y - 3, z, c) * t0 + blurz(x, y - 2, z, c) * t1 + blurz(x, y - 1, z, c) * t2 + blurz(x, y, z, c) * t3 +
         blurz(x, y + 1, z, c) * t2 + blurz(x, y + 2, z, c) * t1 + blurz(x, y + 3, z, c) * t0);
    blurx(x, y, z, c) =
        (blury(x - 3, y, z, c) * t0 + blury(x - 2, y, z, c) * t1 + blury(x - 1, y, z, c) * t2 + blury(x, y, z, c) * t3 +
         blury(x + 1, y, z, c) * t2 + blury(x + 2, y, z, c) * t1 + blury(x + 3, y, z, c) * t0);

    // Solve the normal equations of each cell for its 3x4 affine transform.
    Func line("line"), solver;
    {
        // Channels 0-9: the upper triangle of the symmetric 4x4 A; 10-21: the 4x3 right side.
        ExprMatrix<4, 4> A;
        const int upper[4][4] = {{0, 1, 2, 3}, {1, 4, 5, 6}, {2, 5, 7, 8}, {3, 6, 8, 9}};
        for (int i = 0; i < 4; i++)
            for (int j = i; j < 4; j++)
                A[static_cast<size_t>(i)][static_cast<size_t>(j)] = blurx(x, y, z, upper[i][j]);
        for (int i = 1; i < 4; i++)
            for (int j = 0; j < i; j++)
                A[static_cast<size_t>(i)][static_cast<size_t>(j)] = A[static_cast<size_t>(j)][static_cast<size_t>(i)];
        ExprMatrix<4, 3> b;
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < 4; i++)
                b[static_cast<size_t>(i)][static_cast<size_t>(k)] = blurx(x, y, z, 10 + 4 * k + i);

        // Regularize towards the cell's average gain (output luma over input
        // luma); A(3,3) counts the cell's samples, so the weights scale by it.
        const float lambda = 1e-6f, epsilon = 1e-6f;
        Expr n = A[3][3];
        Expr output_luma = b[3][0] + 2 * b[3][1] + b[3][2] + epsilon * (n + 1);
        Expr input_luma = A[3][0] + 2 * A[3][1] + A[3][2] + epsilon * (n + 1);
        Expr gain = output_luma / input_luma;
        Expr weighted_lambda = lambda * (n + 1);
        for (size_t i = 0; i < 4; i++)
            A[i][i] += weighted_lambda;
        for (size_t i = 0; i < 3; i++)
            b[i][i] += weighted_lambda * gain;

        const ExprMatrix<4, 3> solved = solveSymmetric<4, 3>(A, b, x, y, z, solver);
        // Channel 4 * row + column of the 3x4 transform (the solution transposed).
        std::vector<Expr> packed;
        for (size_t row = 0; row < 3; row++)
            for (size_t col = 0; col < 4; col++)
                packed.push_back(solved[col][row]);
        line(x, y, z, c) = byChannel(c, packed);
    }

    // Slice: interpolate the transforms in y, x, then z (by the full-res luma),
    // and apply them to the full-res input.
    Func interpolated("interpolated");
    Func slice_loc_z("slice_loc_z");
    Func interpolated_matrix_x("interpolated_matrix_x");
    Func interpolated_matrix_y("interpolated_matrix_y");
    Func interpolated_matrix_z("interpolated_matrix_z");
    {
        Expr big_sigma = s_sigma * upsample_factor; // a grid cell in full-res pixels

        Expr yf = cast<float>(y) / big_sigma;
        Expr yi = cast<int>(floor(yf));
        yf -= yi;
        interpolated_matrix_y(x, y, z, c) = lerp(line(x, yi, z, c), line(x, yi + 1, z, c), yf);

        Expr xf = cast<float>(x) / big_sigma;
        Expr xi = cast<int>(floor(xf));
        xf -= xi;
        interpolated_matrix_x(x, y, z, c) =
            lerp(interpolated_matrix_y(xi, y, z, c), interpolated_matrix_y(xi + 1, y, z, c), xf);

        Expr num_intensity_bins = cast<int>(1.0f / r_sigma);
        Expr val = clamp(gray_slice_loc(x, y), 0.0f, 1.0f);
        Expr zv = val * num_intensity_bins;
        Expr zi = cast<int>(zv);
        Expr zf = zv - zi;
        slice_loc_z(x, y) = {zi, zf};

        interpolated_matrix_z(x, y, c) =
            lerp(interpolated_matrix_x(x, y, slice_loc_z(x, y)[0], c),
                 interpolated_matrix_x(x, y, slice_loc_z(x, y)[0] + 1, c), slice_loc_z(x, y)[1]);

        // The 3x4 transform times (r, g, b, 1).
        interpolated(x, y, c) =
            (interpolated_matrix_z(x, y, 4 * c + 0) * slice_loc(x, y, 0) +
             interpolated_matrix_z(x, y, 4 * c + 1) * slice_loc(x, y, 1) +
             interpolated_matrix_z(x, y, 4 * c + 2) * slice_loc(x, y, 2) + interpolated_matrix_z(x, y, 4 * c + 3));
    }

    // The generator's output is this Func itself.
    Func slice("slice");
    slice(x, y, c) = clamp(interpolated(x, y, c), 0.0f, 1.0f);

    r_sigma.set_estimate(1.f / 8.f);
    s_sigma.set_estimate(16);
    splat_loc.set_estimates({{0, 192}, {0, 320}, {0, 3}});
    values.set_estimates({{0, 192}, {0, 320}, {0, 3}});
    slice_loc.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    slice.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});

    return makeInstance("bgu", {slice}, {r_sigma, s_sigma, splat_loc, values, slice_loc},
                        tiledGpuSchedule(slice, {histogram, blurz, blury, blurx, solver, line, interpolated_matrix_y}));
}

} // namespace beamscope::pipelines::apps
