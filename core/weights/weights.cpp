// Network shapes, names and the small helpers every weights reader shares.

#include "core/weights/weights.h"

#include <cmath>
#include <cstdio>

namespace beamscope::weights {

const char *networkName(Network network) { return network == Network::Anderson2021 ? "anderson2021" : "adams2019"; }

const char *formName(Form form) { return form == Form::File ? "file" : "directory"; }

const char *severityName(Severity severity) { return severity == Severity::Error ? "error" : "warning"; }

const char *diagnosticKindName(DiagnosticKind kind)
{
    switch (kind) {
    case DiagnosticKind::Other: return "other";
    case DiagnosticKind::Io: return "io";
    case DiagnosticKind::Signature: return "signature";
    case DiagnosticKind::Version: return "version";
    case DiagnosticKind::BufferCount: return "buffer_count";
    case DiagnosticKind::DimensionCount: return "dimension_count";
    case DiagnosticKind::Extent: return "extent";
    case DiagnosticKind::Truncated: return "truncated";
    case DiagnosticKind::TrailingBytes: return "trailing_bytes";
    case DiagnosticKind::NonFinite: return "non_finite";
    case DiagnosticKind::MissingFile: return "missing_file";
    case DiagnosticKind::FileSize: return "file_size";
    }
    return "other";
}

uint32_t head2Width(Network network) { return network == Network::Anderson2021 ? 73 : 39; }

std::optional<Network> networkForHead2Width(uint32_t width)
{
    if (width == head2Width(Network::Anderson2021))
        return Network::Anderson2021;
    if (width == head2Width(Network::Adams2019))
        return Network::Adams2019;
    return std::nullopt;
}

FeatureVersions supportedVersions(Network) { return FeatureVersions{3, 3}; }

const std::array<TensorSpec, kTensorCount> &tensorSpecs(Network network)
{
    // Both networks share everything but head2_filter's second extent (the
    // number of schedule features: 73 on the GPU, 39 on the CPU).
    static const auto make = [](uint32_t width) {
        return std::array<TensorSpec, kTensorCount>{{
            {"head1_filter", "head1_conv1_weight.data", {8, 40, 7}},
            {"head1_bias", "head1_conv1_bias.data", {8}},
            {"head2_filter", "head2_conv1_weight.data", {24, width}},
            {"head2_bias", "head2_conv1_bias.data", {24}},
            {"conv1_filter", "trunk_conv1_weight.data", {32, 32}},
            {"conv1_bias", "trunk_conv1_bias.data", {32}},
        }};
    };
    static const auto anderson = make(head2Width(Network::Anderson2021));
    static const auto adams = make(head2Width(Network::Adams2019));
    return network == Network::Anderson2021 ? anderson : adams;
}

uint64_t elementCount(const std::vector<uint32_t> &shape)
{
    uint64_t count = 1;
    for (uint32_t extent : shape)
        count *= extent;
    return count;
}

std::string formatShape(const std::vector<uint32_t> &shape)
{
    std::string out;
    for (size_t i = 0; i < shape.size(); i++) {
        if (i)
            out += " x ";
        out += std::to_string(shape[i]);
    }
    return out;
}

uint64_t tensorDataOffset(Network network, int index)
{
    uint64_t offset = 16; // signature, two versions, buffer count
    const auto &specs = tensorSpecs(network);
    for (int i = 0; i <= index && i < kTensorCount; i++) {
        offset += 4 + 4 * specs[i].shape.size();
        if (i < index)
            offset += 4 * elementCount(specs[i].shape);
    }
    return offset;
}

uint64_t fileSizeFor(Network network)
{
    const auto &specs = tensorSpecs(network);
    return tensorDataOffset(network, kTensorCount - 1) + 4 * elementCount(specs[kTensorCount - 1].shape);
}

std::vector<uint32_t> Tensor::unflatten(size_t flat) const
{
    std::vector<uint32_t> index(shape.size(), 0);
    for (size_t d = 0; d < shape.size(); d++) {
        if (shape[d] == 0)
            break;
        index[d] = static_cast<uint32_t>(flat % shape[d]);
        flat /= shape[d];
    }
    return index;
}

Weights zeroWeights(Network network)
{
    Weights w;
    w.network = network;
    w.pipelineFeaturesVersion = supportedVersions(network).pipeline;
    w.scheduleFeaturesVersion = supportedVersions(network).schedule;
    const auto &specs = tensorSpecs(network);
    for (int i = 0; i < kTensorCount; i++) {
        w.tensors[i].name = specs[i].name;
        w.tensors[i].shape = specs[i].shape;
        w.tensors[i].data.assign(elementCount(specs[i].shape), 0.0f);
    }
    return w;
}

std::string Diagnostic::format() const
{
    std::string out = path;
    const auto part = [&out](const std::string &text) {
        if (text.empty())
            return;
        if (!out.empty())
            out += ": ";
        out += text;
    };
    if (offset)
        part("offset " + std::to_string(*offset));
    part(field);
    part(message);
    return out;
}

bool LoadResult::hasWarnings() const
{
    for (const auto &d : diagnostics)
        if (d.severity == Severity::Warning)
            return true;
    return false;
}

const Diagnostic *LoadResult::firstError() const
{
    for (const auto &d : diagnostics)
        if (d.severity == Severity::Error)
            return &d;
    return nullptr;
}

Form formForDestination(const std::filesystem::path &path)
{
    return path.extension() == ".weights" ? Form::File : Form::Directory;
}

// A Weights built in code may disagree with itself; such a file would not load back.
std::string shapeProblem(const Weights &w)
{
    for (int i = 0; i < kTensorCount; i++) {
        const Tensor &t = w.tensors[i];
        const auto &spec = tensorSpecs(w.network)[i];
        if (t.shape != spec.shape)
            return "buffer " + std::to_string(i) + " (" + spec.name + "): expected shape " + formatShape(spec.shape) +
                   " for " + networkName(w.network) + ", found " + formatShape(t.shape);
        if (t.data.size() != elementCount(t.shape))
            return "buffer " + std::to_string(i) + " (" + spec.name + "): expected " +
                   std::to_string(elementCount(t.shape)) + " values, found " + std::to_string(t.data.size());
    }
    return {};
}

namespace {
std::string formatIndex(const std::vector<uint32_t> &index)
{
    std::string out = "(";
    for (size_t i = 0; i < index.size(); i++)
        out += (i ? ", " : "") + std::to_string(index[i]);
    return out + ")";
}

std::string formatFloat(float v)
{
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
    return buf;
}
} // namespace

void addValueErrors(LoadResult &result, const std::string &path)
{
    if (!result.weights)
        return;
    const Weights &w = *result.weights;
    for (int i = 0; i < kTensorCount; i++) {
        const Tensor &t = w.tensors[i];
        size_t nans = 0, infs = 0;
        std::optional<size_t> first;
        for (size_t k = 0; k < t.data.size(); k++) {
            const float v = t.data[k];
            if (std::isnan(v))
                nans++;
            else if (std::isinf(v))
                infs++;
            else
                continue;
            if (!first)
                first = k;
        }
        if (!first)
            continue;
        Diagnostic d;
        d.severity = Severity::Error;
        d.kind = DiagnosticKind::NonFinite;
        // The offset points at the first bad value, in the file that holds it.
        if (result.form == Form::File) {
            d.path = path;
            d.offset = tensorDataOffset(w.network, i) + 4 * *first;
        } else {
            d.path = (std::filesystem::path(path) / tensorSpecs(w.network)[i].legacyFile).string();
            d.offset = 4 * *first;
        }
        d.field = "buffer " + std::to_string(i) + " (" + t.name + ") values";
        d.expected = "finite float32 values";
        d.found = std::to_string(nans) + " NaN and " + std::to_string(infs) + " Inf";
        d.message = "expected " + d.expected + ", found " + d.found + "; first at index " +
                    formatIndex(t.unflatten(*first)) + " (element " + std::to_string(*first) +
                    ") = " + formatFloat(t.data[*first]);
        result.diagnostics.push_back(std::move(d));
    }
    if (result.firstError()) {
        result.rejected = std::move(result.weights);
        result.weights.reset();
    }
}
} // namespace beamscope::weights
