// Per-tensor summaries and tensor-by-tensor differences, in double precision so
// that sums over a few thousand floats lose nothing visible.

#include "core/weights/statistics.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

namespace beamscope::weights {

TensorStats computeStats(const Tensor &tensor)
{
    TensorStats s;
    s.count = tensor.data.size();
    size_t finite = 0;
    double sum = 0, sumSquares = 0;
    s.min = std::numeric_limits<double>::infinity();
    s.max = -std::numeric_limits<double>::infinity();
    for (float f : tensor.data) {
        if (std::isnan(f)) {
            s.nanCount++;
            continue;
        }
        if (std::isinf(f)) {
            s.infCount++;
            continue;
        }
        const double v = f;
        if (v == 0)
            s.zeroCount++;
        finite++;
        sum += v;
        sumSquares += v * v;
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
    }
    if (finite == 0) {
        s.min = s.max = 0;
        return s;
    }
    s.mean = sum / static_cast<double>(finite);
    // Population standard deviation, second pass around the mean for accuracy.
    double squaredDeviations = 0;
    for (float f : tensor.data)
        if (std::isfinite(f))
            squaredDeviations += (f - s.mean) * (f - s.mean);
    s.stddev = std::sqrt(squaredDeviations / static_cast<double>(finite));
    s.l2norm = std::sqrt(sumSquares);
    return s;
}

namespace {

bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// NaN differences sort first: a value that became NaN is the change to look at.
bool largerChange(double x, double y)
{
    if (std::isnan(x))
        return !std::isnan(y);
    if (std::isnan(y))
        return false;
    return x > y;
}

TensorDiff diffTensor(const Tensor &a, const Tensor &b, size_t largestCount)
{
    TensorDiff d;
    d.name = a.name;
    d.shape = a.shape;
    d.difference.resize(a.data.size());
    double dot = 0, normA2 = 0, normB2 = 0, normDiff2 = 0;
    std::vector<size_t> changed;
    for (size_t i = 0; i < a.data.size(); i++) {
        const double x = a.data[i], y = b.data[i];
        const double delta = y - x;
        d.difference[i] = static_cast<float>(delta);
        dot += x * y;
        normA2 += x * x;
        normB2 += y * y;
        normDiff2 += delta * delta;
        if (!sameBits(a.data[i], b.data[i])) {
            changed.push_back(i);
            const double absDiff = std::fabs(delta);
            if (largerChange(absDiff, d.maxAbsDiff))
                d.maxAbsDiff = absDiff;
        }
    }
    d.changedCount = changed.size();
    const double normA = std::sqrt(normA2), normB = std::sqrt(normB2);
    if (normA == 0)
        d.relativeL2 = normDiff2 == 0 ? 0 : std::numeric_limits<double>::infinity();
    else
        d.relativeL2 = std::sqrt(normDiff2) / normA;
    if (normA == 0 && normB == 0)
        d.cosineSimilarity = 1;
    else if (normA == 0 || normB == 0)
        d.cosineSimilarity = 0;
    else
        d.cosineSimilarity = dot / (normA * normB);

    const auto absAt = [&](size_t i) { return std::fabs(static_cast<double>(b.data[i]) - a.data[i]); };
    const size_t keep = std::min(largestCount, changed.size());
    std::partial_sort(changed.begin(), changed.begin() + static_cast<std::ptrdiff_t>(keep), changed.end(),
                      [&](size_t i, size_t j) {
                          const double x = absAt(i), y = absAt(j);
                          if (largerChange(x, y))
                              return true;
                          if (largerChange(y, x))
                              return false;
                          return i < j; // stable, so output does not depend on the sort
                      });
    for (size_t k = 0; k < keep; k++) {
        const size_t i = changed[k];
        ElementChange c;
        c.flatIndex = i;
        c.index = a.unflatten(i);
        c.a = a.data[i];
        c.b = b.data[i];
        c.absDiff = absAt(i);
        d.largest.push_back(std::move(c));
    }
    return d;
}

} // namespace

WeightsDiff diffWeights(const Weights &a, const Weights &b, size_t largestCount)
{
    WeightsDiff result;
    for (int i = 0; i < kTensorCount; i++) {
        if (a.tensors[i].shape != b.tensors[i].shape || a.tensors[i].data.size() != b.tensors[i].data.size()) {
            result.comparable = false;
            result.reason = std::string("buffer ") + std::to_string(i) + " (" + a.tensors[i].name + ") is " +
                            formatShape(a.tensors[i].shape) + " in the first (" + networkName(a.network) + ") and " +
                            formatShape(b.tensors[i].shape) + " in the second (" + networkName(b.network) + ")";
            return result;
        }
    }
    for (int i = 0; i < kTensorCount; i++)
        result.tensors.push_back(diffTensor(a.tensors[i], b.tensors[i], largestCount));
    return result;
}

} // namespace beamscope::weights
