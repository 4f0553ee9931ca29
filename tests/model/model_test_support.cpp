#include "tests/model/model_test_support.h"

#include "core/util/json.h"
#include "tests/support/npy.h"
#include "tests/support/test_data.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace beamscope::model::test {

std::vector<float> pipelineFromHalide(const std::vector<float> &data, int stages)
{
    std::vector<float> out(static_cast<size_t>(stages) * 280);
    for (int s = 0; s < stages; ++s)
        for (int y = 0; y < 7; ++y)
            for (int x = 0; x < 40; ++x)
                out[static_cast<size_t>(s * 280 + x * 7 + y)] = data[static_cast<size_t>(x + 40 * (y + 7 * s))];
    return out;
}

std::vector<float> scheduleFromHalide(const std::vector<float> &data, int batch, int stages)
{
    std::vector<float> out(static_cast<size_t>(batch) * stages * 73);
    for (int s = 0; s < stages; ++s)
        for (int c = 0; c < 73; ++c)
            for (int n = 0; n < batch; ++n)
                out[(static_cast<size_t>(n) * stages + s) * 73 + c] =
                    data[static_cast<size_t>(n + batch * (c + 73 * s))];
    return out;
}

GoldenInference loadGoldenInference(const std::filesystem::path &dir)
{
    GoldenInference g;
    g.name = dir.filename().string();
    const auto parsed = parseJson(beamscope::test::readFile(dir / "case.json"));
    if (!parsed.value)
        throw std::runtime_error((dir / "case.json").string() + ": " + parsed.error);
    const Json &j = *parsed.value;
    auto number = [&](const char *key) {
        const Json *v = j.find(key);
        if (!v || !v->isNumber())
            throw std::runtime_error((dir / "case.json").string() + ": missing number '" + key + "'");
        return static_cast<int>(v->toInt());
    };
    const Json *weights = j.find("weights");
    g.weightsFile = weights ? weights->toString() : std::string();
    g.numStages = number("num_stages");
    g.stageExtent = number("stage_extent");
    g.batchSize = number("batch_size");
    g.numCores = number("num_cores");
    g.pipelineFeatures =
        pipelineFromHalide(beamscope::test::readNpy(dir / "pipeline_features.npy").data, g.stageExtent);
    g.scheduleFeatures =
        scheduleFromHalide(beamscope::test::readNpy(dir / "schedule_features.npy").data, g.batchSize, g.stageExtent);
    g.prediction = beamscope::test::readNpy(dir / "prediction.npy").data;
    const auto cps = beamscope::test::readNpy(dir / "cost_per_stage.npy");
    g.costPerStage.resize(static_cast<size_t>(g.batchSize) * g.numStages);
    for (int n = 0; n < g.batchSize; ++n)
        for (int s = 0; s < g.numStages; ++s)
            g.costPerStage[static_cast<size_t>(n) * g.numStages + s] =
                cps.data[static_cast<size_t>(n + g.batchSize * s)];
    return g;
}

weights::Weights loadWeightsOrThrow(const std::filesystem::path &path)
{
    auto result = weights::loadWeights(path);
    if (!result.ok())
        throw std::runtime_error(result.firstError() ? result.firstError()->format() : path.string());
    return *result.weights;
}

weights::Weights randomWeights(uint64_t seed)
{
    Lcg rng(seed);
    weights::Weights w = weights::zeroWeights(weights::Network::Anderson2021);
    for (auto &t : w.tensors)
        for (float &v : t.data)
            v = static_cast<float>((rng.uniform() - 0.45) * 0.6);
    // Positive trunk biases keep most relu1 channels active, like trained nets.
    for (float &v : w.tensor(weights::Conv1Bias).data)
        v = static_cast<float>(0.2 + rng.uniform());
    return w;
}

std::vector<float> randomPipelineFeatures(Lcg &rng, int stages)
{
    std::vector<float> out(static_cast<size_t>(stages) * 280);
    for (float &v : out)
        v = rng.uniform() < 0.7 ? 0.0f : static_cast<float>(1 + std::floor(8 * rng.uniform()));
    return out;
}

std::vector<float> randomScheduleFeatures(Lcg &rng, int batch, int stages)
{
    std::vector<float> out(static_cast<size_t>(batch) * stages * 73);
    for (size_t i = 0; i < out.size(); ++i) {
        const int c = static_cast<int>(i % 73);
        const double u = rng.uniform();
        double v;
        switch (c) {
        case 18: v = u < 0.5 ? 0 : std::floor(1 + 4 * rng.uniform()); break; // inlined_calls
        case 10:
        case 11: v = u < 0.3 ? 1 : std::floor(1 + 1000 * rng.uniform()); break; // parallelism
        case 50: v = u < 0.2 ? 0 : std::floor(1 + 500 * rng.uniform()); break;  // num_blocks (0 is clamped)
        case 57: v = u < 0.5 ? 0 : std::floor(31 * rng.uniform()) / 32; break;  // idle_lane_wastage
        case 52:
        case 53:
        case 55:
        case 56:
        case 62:
        case 63:
        case 64:
        case 65:
        case 67:
        case 68:
        case 69:
        case 70: v = (1 + std::floor(1023 * u)) / 1024; break; // fractions
        case 71: v = 32 * (1 + std::floor(32 * u)); break;     // threads per block
        default: v = u < 0.25 ? 0 : std::floor(std::pow(10.0, 4 * rng.uniform())); break;
        }
        out[i] = static_cast<float>(v);
    }
    return out;
}

namespace {
// The fast_log polynomial in double: its constants define the normalisation.
double fastLogDouble(float xf)
{
    const int32_t bits = std::bit_cast<int32_t>(xf);
    const int32_t m = bits & static_cast<int32_t>(0x807fffff);
    const int32_t nb = 127 - (m >> 22);
    const int32_t e = (bits >> 23) - nb;
    const double x1 = static_cast<double>(std::bit_cast<float>(m | (nb << 23))) - 1.0;
    const double c[8] = {0.07640318789187280912,
                         -0.16252961013874300811,
                         0.20625219040645212387,
                         -0.25110261010892864775,
                         0.33320464908377461777,
                         -0.49997513376789826101,
                         1,
                         0};
    double p = 0;
    for (double k : c)
        p = p * x1 + k;
    return p + e * std::log(2.0);
}
double leakyD(double e) { return std::max(e, 0.0) + std::min(e, 0.0) * 1e-10; }
} // namespace

ReferenceResult referenceModel(const weights::Weights &w, const std::vector<float> &pf, const std::vector<float> &sf,
                               int stages, int extent, int batch, int numCores)
{
    const auto &h1f = w.tensor(weights::Head1Filter).data;
    const auto &h1b = w.tensor(weights::Head1Bias).data;
    const auto &h2f = w.tensor(weights::Head2Filter).data;
    const auto &h2b = w.tensor(weights::Head2Bias).data;
    const auto &f1 = w.tensor(weights::Conv1Filter).data;
    const auto &b1 = w.tensor(weights::Conv1Bias).data;
    ReferenceResult r;
    r.prediction.assign(static_cast<size_t>(batch), 0.0);
    r.costPerStage.assign(static_cast<size_t>(batch) * stages, 0.0);
    r.regulariser.assign(static_cast<size_t>(batch), 0.0);
    for (int s = 0; s < stages; ++s) {
        double head1[8];
        for (int c = 0; c < 8; ++c) {
            double sum = h1b[c];
            for (int x = 0; x < 40; ++x)
                for (int y = 0; y < 7; ++y)
                    sum += 1.0 / (1.0 + std::exp(-static_cast<double>(h1f[c + 8 * (x + 40 * y)]))) *
                           pf[static_cast<size_t>(s * 280 + x * 7 + y)];
            head1[c] = sum;
        }
        for (int n = 0; n < batch; ++n) {
            const float *f = sf.data() + (static_cast<size_t>(n) * extent + s) * 73;
            double head2[24];
            for (int k = 0; k < 24; ++k) {
                double sum = h2b[k];
                for (int c = 0; c < 73; ++c)
                    sum += h2f[k + 24 * c] * fastLogDouble(f[c] + 1.0f);
                head2[k] = leakyD(sum);
            }
            double relu[32];
            for (int j = 0; j < 32; ++j) {
                double sum = b1[j];
                for (int i = 0; i < 8; ++i)
                    sum += f1[j + 32 * i] * head1[i];
                for (int k = 0; k < 24; ++k)
                    sum += f1[j + 32 * (8 + k)] * head2[k];
                relu[j] = leakyD(sum);
                r.regulariser[static_cast<size_t>(n)] -= std::min(sum, 0.0);
            }
            auto F = [&](int i) { return static_cast<double>(f[i]); };
            const bool inl = F(18) != 0;
            const double nb = std::max(1.0, F(50)), tpb = F(71);
            double compute = inl ? F(35) * relu[3] : F(35) * relu[1];
            compute += inl ? nb * tpb * F(4) * relu[4] : nb * tpb * F(4) * relu[19];
            const double tasks = std::max(1.0, F(10) * F(11));
            const double tpc = tasks / numCores;
            compute *= std::ceil(tpc) / std::max(1.0, tpc);
            if (!inl)
                compute /= 1 - F(57);
            double load = F(0) * (F(22) * relu[5] + F(23) * relu[16] + F(24) * relu[8] + F(19) * relu[6] +
                                  F(20) * relu[20] + F(21) * relu[7]);
            load += nb * tpb *
                    (F(28) * relu[18] + F(29) * relu[17] + F(30) * relu[2] + F(25) * relu[13] + F(26) * relu[11] +
                     F(27) * relu[0]);
            load += F(35) * (F(42) * relu[10] + F(43) * relu[12]) + tasks * (F(44) * relu[14] + F(45) * relu[15]);
            load += nb * F(59) * relu[28] * (inl ? 1 : 1 / F(65)) + nb * F(58) * relu[27];
            double store = nb * F(60) * relu[29] + nb * F(61) * relu[21] * (inl ? 1 : 1 / F(64));
            store += F(10) > 1 ? relu[22] * F(35) / std::max(1.0, F(39)) : 0.0;
            const double malloc = relu[24] * F(0);
            const double parallel = F(1) * (F(10) > 1 ? relu[25] : 0.0) + F(1) * (F(10) - 1) * relu[26];
            const double ws = F(34) * relu[9];
            const double cost = (compute + store + load + malloc + parallel + ws) * 1e-9;
            r.costPerStage[static_cast<size_t>(n) * stages + s] = cost;
            r.prediction[static_cast<size_t>(n)] += cost;
        }
    }
    return r;
}

double referenceLoss(const weights::Weights &w, const std::vector<float> &pf, const std::vector<float> &sf, int stages,
                     int batch, int numCores, const std::vector<float> &trueRuntimes, int reference)
{
    const ReferenceResult r = referenceModel(w, pf, sf, stages, stages, batch, numCores);
    const double scale = 1.0 / trueRuntimes[static_cast<size_t>(reference)];
    double loss = 0;
    for (int n = 0; n < batch; ++n) {
        const double p1 = r.prediction[static_cast<size_t>(n)] * scale;
        const double r1 = trueRuntimes[static_cast<size_t>(n)] * scale;
        const double d = 1.0 / std::max(p1, 1e-10) - 1.0 / r1;
        loss += d * d + 1e-5 * r.regulariser[static_cast<size_t>(n)];
    }
    return loss;
}

} // namespace beamscope::model::test
