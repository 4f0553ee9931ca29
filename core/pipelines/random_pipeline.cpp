// Random pipelines are built from the stage kinds of Halide's own random
// pipeline generator for training, and of real apps: stencils, pointwise
// arithmetic, cast chains, integer arithmetic, reductions (explicit update
// definitions), scans in x and in y, all-to-all reductions to one value per
// channel, channel convolutions, max pooling, transposes, 4-D intermediates,
// down- and up-sampling (several resolutions) and table lookups. Every Func
// works on (x, y, c) over a clamped input, so any stage may read any earlier
// one at the same resolution and every access stays in bounds. The seed names
// the pipeline: the same (seed, stages) always gives the same one.

#include "core/pipelines/random_pipeline.h"

#include "core/pipelines/builtin_lists.h"

#include <charconv>

namespace beamscope::pipelines {

using namespace Halide;

namespace {

// splitmix64: tiny, seedable and the same on every platform and standard library.
class Rng {
public:
    explicit Rng(uint64_t seed) : m_state(seed) {}
    uint64_t next()
    {
        uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
    float weight() { return static_cast<float>(1 + below(8)) / 8.0f; }

private:
    uint64_t m_state;
};

struct Level {
    Func func;
    int scale = 0; // 0 = full resolution, k = downsampled k times by 2
};

constexpr int kWidth = 1024, kHeight = 1024, kChannels = 3;

// An update's GPU loops: its own pure loops (a scan in x keeps y and c; a
// per-channel reduction keeps c), tiled; a single thread when it has none.
void gpuTileUpdate(Func f, int update)
{
    std::vector<std::string> pure;
    for (const Internal::Dim &d : f.function().update(update).schedule().dims())
        if (!d.is_rvar() && d.var != Var::outermost().name())
            pure.push_back(d.var);
    Stage s = f.update(update);
    Var o0("uo0"), o1("uo1"), i0("ui0"), i1("ui1");
    if (pure.size() >= 2)
        s.gpu_tile(Var(pure[0]), Var(pure[1]), o0, o1, i0, i1, 16, 16);
    else if (pure.size() == 1)
        s.gpu_tile(Var(pure[0]), o0, i0, 64);
    else
        s.gpu_single_thread();
}

} // namespace

std::string randomPipelineName(uint64_t seed, int stages)
{
    return "random_" + std::to_string(seed) + "_" + std::to_string(stages);
}

std::optional<std::pair<uint64_t, int>> parseRandomPipelineName(const std::string &name)
{
    const std::string prefix = "random_";
    if (name.rfind(prefix, 0) != 0)
        return std::nullopt;
    const size_t sep = name.find('_', prefix.size());
    if (sep == std::string::npos)
        return std::nullopt;
    uint64_t seed = 0;
    int stages = 0;
    const char *b = name.data();
    auto r1 = std::from_chars(b + prefix.size(), b + sep, seed);
    auto r2 = std::from_chars(b + sep + 1, b + name.size(), stages);
    if (r1.ec != std::errc() || r1.ptr != b + sep || r2.ec != std::errc() || r2.ptr != b + name.size() || stages < 1 ||
        stages > 200)
        return std::nullopt;
    return std::make_pair(seed, stages);
}

PipelineInstance randomPipeline(uint64_t seed, int stageCount)
{
    Rng rng(seed);
    ImageParam input(Float(32), 3, "input");
    Var x("x"), y("y"), c("c");
    Func clamped = BoundaryConditions::repeat_edge(input);

    std::vector<Level> funcs{{clamped, 0}};
    std::vector<Func> scheduled; // Funcs the GPU schedule computes at root
    std::vector<std::string> kinds;
    auto pickAt = [&](int scale) -> Func {
        std::vector<Func> same;
        for (const Level &l : funcs)
            if (l.scale == scale)
                same.push_back(l.func);
        return same[static_cast<size_t>(rng.below(static_cast<int>(same.size())))];
    };

    for (int i = 0; i < stageCount; i++) {
        const Level &last = funcs.back();
        const int scale = last.scale;
        Func a = last.func;
        Func f("s" + std::to_string(i));
        const bool lastStage = i == stageCount - 1;
        int kind = rng.below(15);
        if (lastStage && scale > 0)
            kind = 5; // the output is at full resolution
        int newScale = scale;
        switch (kind) {
        case 0: { // 3x3 or 1x5 stencil
            kinds.push_back("stencil");
            Expr sum = 0.0f;
            if (rng.below(2) == 0) {
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++)
                        sum = sum + a(x + dx, y + dy, c) * rng.weight();
            } else {
                for (int dx = -2; dx <= 2; dx++)
                    sum = sum + a(x + dx, y, c) * rng.weight();
            }
            f(x, y, c) = sum * 0.125f;
            break;
        }
        case 1: { // pointwise combination of two same-resolution Funcs
            kinds.push_back("pointwise");
            Func b = pickAt(scale);
            switch (rng.below(3)) {
            case 0: f(x, y, c) = a(x, y, c) * rng.weight() + b(x, y, c); break;
            case 1: f(x, y, c) = max(a(x, y, c), b(x, y, c)) - min(a(x, y, c), 0.5f); break;
            default: f(x, y, c) = select(a(x, y, c) > b(x, y, c), a(x, y, c), b(x, y, c) * 0.5f); break;
            }
            break;
        }
        case 2: { // cast chain through a narrow integer type
            kinds.push_back("cast");
            Expr q = clamp(a(x, y, c) * 255.0f, 0.0f, 65535.0f);
            if (rng.below(2) == 0)
                f(x, y, c) = cast<float>(cast<uint16_t>(q)) / 255.0f;
            else
                f(x, y, c) = cast<float>(cast<uint8_t>(min(q, 255.0f))) * (1.0f / 255.0f);
            break;
        }
        case 3: { // reduction with an explicit update definition
            kinds.push_back("reduction");
            const int radius = 1 + rng.below(3);
            RDom r(-radius, 2 * radius + 1, "r" + std::to_string(i));
            f(x, y, c) = 0.0f;
            if (rng.below(2) == 0)
                f(x, y, c) += a(x + r, y, c);
            else
                f(x, y, c) += a(x, y + r, c);
            break;
        }
        case 4: { // downsample by 2 in both dimensions
            kinds.push_back("downsample");
            f(x, y, c) =
                (a(2 * x, 2 * y, c) + a(2 * x + 1, 2 * y, c) + a(2 * x, 2 * y + 1, c) + a(2 * x + 1, 2 * y + 1, c)) *
                0.25f;
            newScale = scale + 1;
            break;
        }
        case 5: { // upsample by 2 (or a channel mix at full resolution)
            kinds.push_back(scale > 0 ? "upsample" : "channel-mix");
            if (scale > 0) {
                f(x, y, c) = (a(x / 2, y / 2, c) + a((x + 1) / 2, (y + 1) / 2, c)) * 0.5f;
                newScale = scale - 1;
            } else {
                f(x, y, c) = a(x, y, 0) * 0.25f + a(x, y, 1) * 0.5f + a(x, y, 2) * 0.25f + a(x, y, c) * 0.1f;
            }
            break;
        }
        case 7: { // transpose (every level is square)
            kinds.push_back("transpose");
            f(x, y, c) = a(y, x, c) * 0.5f + a(x, y, c) * 0.5f;
            break;
        }
        case 8:
        case 9: { // a scan (a decaying running sum) in x or in y over the level's extent
            const bool inX = kind == 8;
            kinds.push_back(inX ? "scan-x" : "scan-y");
            RDom r(1, (inX ? kWidth : kHeight) / (1 << scale) - 1, "r" + std::to_string(i));
            f(x, y, c) = a(x, y, c);
            if (inX)
                f(r, y, c) = f(r - 1, y, c) * 0.5f + f(r, y, c);
            else
                f(x, r, c) = f(x, r - 1, c) * 0.5f + f(x, r, c);
            break;
        }
        case 10: { // all-to-all: one mean per channel over a strided grid, then subtracted
            kinds.push_back("all-to-all");
            Func mean("mean" + std::to_string(i));
            const int step = (kWidth / (1 << scale)) / 32;
            RDom r(0, 32, 0, 32, "r" + std::to_string(i));
            mean(c) = 0.0f;
            mean(c) += a(r.x * step, r.y * step, c) * (1.0f / 1024.0f);
            scheduled.push_back(mean);
            f(x, y, c) = a(x, y, c) - 0.5f * mean(c);
            break;
        }
        case 11: { // a channel convolution (a 1x1 conv layer) with a weights Func
            kinds.push_back("conv");
            Func w("w" + std::to_string(i));
            Var co("co"), k("k");
            w(co, k) = cast<float>(co * 3 + k + 1) * (1.0f / 16.0f);
            RDom r(0, kChannels, "r" + std::to_string(i));
            f(x, y, c) = 0.0f;
            f(x, y, c) += w(c, r) * a(x, y, r);
            break;
        }
        case 12: { // 3x3 max pooling at stride 1
            kinds.push_back("max-pool");
            Expr m = a(x - 1, y - 1, c);
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    m = max(m, a(x + dx, y + dy, c));
            f(x, y, c) = m;
            break;
        }
        case 13: { // through a 4-D intermediate of extent 3 in its last dimension
            kinds.push_back("4-d");
            Func taps("taps" + std::to_string(i));
            Var k("k");
            taps(x, y, c, k) = a(x + k - 1, y, c) * (cast<float>(k) + 1.0f);
            f(x, y, c) = (taps(x, y, c, 0) + taps(x, y, c, 1) + taps(x, y, c, 2)) * (1.0f / 6.0f);
            break;
        }
        case 14: { // integer arithmetic in 16 and 32 bits
            kinds.push_back("integer");
            Expr q = cast<uint16_t>(clamp(a(x, y, c) * 1000.0f, 0.0f, 60000.0f));
            Expr wide = cast<int32_t>(q) * 3 - cast<int32_t>(q >> 2);
            f(x, y, c) = cast<float>(wide) * (1.0f / 2750.0f);
            break;
        }
        default: { // lookup into a small table Func
            kinds.push_back("lookup");
            Func lut("lut" + std::to_string(i));
            Var t("t");
            lut(t) = pow(cast<float>(t) / 255.0f, 1.0f + 0.25f * static_cast<float>(rng.below(4)));
            f(x, y, c) = lut(clamp(cast<int>(a(x, y, c) * 255.0f), 0, 255));
            scheduled.push_back(lut);
            break;
        }
        }
        funcs.push_back(Level{f, newScale});
        // A Func with an update cannot be inlined: the GPU schedule must place it.
        if (!lastStage || f.has_update_definition())
            scheduled.push_back(f);
        // Bring the output back to full resolution when stages run out.
        if (lastStage && newScale > 0) {
            Func up = f;
            for (int k = newScale; k > 0; k--) {
                Func u("s" + std::to_string(i) + "_up" + std::to_string(k));
                u(x, y, c) = up(x / 2, y / 2, c);
                scheduled.push_back(up);
                up = u;
            }
            funcs.push_back(Level{up, 0});
        }
    }

    Func output("output");
    output(x, y, c) = funcs.back().func(x, y, c);
    input.set_estimates({{0, kWidth}, {0, kHeight}, {0, kChannels}});
    output.set_estimates({{0, kWidth}, {0, kHeight}, {0, kChannels}});

    PipelineInstance instance = makeInstance(
        randomPipelineName(seed, stageCount), {output}, {input}, [output, scheduled](const Target &) mutable {
            Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
            output.gpu_tile(output.args()[0], output.args()[1], xo, yo, xi, yi, 16, 16);
            for (Func &f : scheduled) {
                Var fxo("fxo"), fyo("fyo"), fxi("fxi"), fyi("fyi");
                f.compute_root();
                if (f.dimensions() == 1) {
                    f.gpu_tile(f.args()[0], fxo, fxi, 64);
                    for (int u = 0; u < f.num_update_definitions(); u++)
                        gpuTileUpdate(f, u);
                    continue;
                }
                f.gpu_tile(f.args()[0], f.args()[1], fxo, fyo, fxi, fyi, 16, 16);
                for (int u = 0; u < f.num_update_definitions(); u++)
                    gpuTileUpdate(f, u);
            }
        });
    instance.stageKinds = std::move(kinds);
    return instance;
}

} // namespace beamscope::pipelines
