// The hwf1 container: a parser that explains every way a file can be wrong, and
// the writer that reproduces Halide's files bit for bit.

#include "core/weights/weights.h"

#include <bit>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

namespace beamscope::weights {

static_assert(std::endian::native == std::endian::little,
              "hwf1 is little-endian; this reader copies floats straight from the file");

namespace {

std::string hexWord(uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

// "bytes 31 66 77 68 ("1fwh")": what is on disk, hex and printable ASCII.
std::string describeBytes(std::span<const char> bytes)
{
    std::string hex, ascii;
    for (char c : bytes) {
        char buf[4];
        std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(c));
        if (!hex.empty())
            hex += ' ';
        hex += buf;
        ascii += std::isprint(static_cast<unsigned char>(c)) ? c : '.';
    }
    return "bytes " + hex + " (\"" + ascii + "\")";
}

std::string plural(uint64_t n, const char *word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

std::string bufferField(int index, const char *name, const std::string &what)
{
    return "buffer " + std::to_string(index) + " (" + name + ") " + what;
}

class Parser {
public:
    Parser(std::span<const char> bytes, std::string source) : m_bytes(bytes), m_source(std::move(source)) {}

    LoadResult run()
    {
        m_result.form = Form::File;
        m_result.sizeBytes = m_bytes.size();
        if (parse() && !hasError()) {
            m_result.weights = std::move(m_weights);
            addValueErrors(m_result, m_source);
        }
        return std::move(m_result);
    }

private:
    bool hasError() const { return m_result.firstError() != nullptr; }

    void error(DiagnosticKind kind, uint64_t offset, std::string field, std::string expected, std::string found,
               const std::string &detail = {})
    {
        Diagnostic d;
        d.severity = Severity::Error;
        d.kind = kind;
        d.path = m_source;
        d.offset = offset;
        d.field = std::move(field);
        d.expected = std::move(expected);
        d.found = std::move(found);
        d.message = "expected " + d.expected + ", found " + d.found + (detail.empty() ? "" : "; " + detail);
        m_result.diagnostics.push_back(std::move(d));
    }

    uint64_t remaining() const { return m_bytes.size() - m_offset; }

    // Reports a truncation when fewer than size bytes are left; never reads past the end.
    bool require(uint64_t size, const std::string &field, const std::string &what)
    {
        if (remaining() >= size)
            return true;
        error(DiagnosticKind::Truncated, m_offset, field, plural(size, "byte") + " (" + what + ")",
              plural(remaining(), "byte"),
              "the file ends at byte " + std::to_string(m_bytes.size()) + ", " + plural(size - remaining(), "byte") +
                  " missing");
        return false;
    }

    std::optional<uint32_t> readU32(const std::string &field)
    {
        if (!require(4, field, "uint32"))
            return std::nullopt;
        uint32_t v = 0;
        std::memcpy(&v, m_bytes.data() + m_offset, 4);
        m_offset += 4;
        return v;
    }

    bool parse()
    {
        // Signature: shown as the bytes found, since a wrong file is usually some other format.
        if (!require(4, "signature", "the hwf1 signature"))
            return false;
        uint32_t signature = 0;
        std::memcpy(&signature, m_bytes.data(), 4);
        if (signature != kSignature) {
            const char expectedBytes[4] = {'1', 'f', 'w', 'h'};
            error(DiagnosticKind::Signature, 0, "signature", hexWord(kSignature) + " = " + describeBytes(expectedBytes),
                  hexWord(signature) + " = " + describeBytes(m_bytes.subspan(0, 4)),
                  "this is not an hwf1 weights file");
            return false;
        }
        m_offset = 4;

        const auto pipelineVersion = readU32("pipeline features version");
        if (!pipelineVersion)
            return false;
        const auto scheduleVersion = readU32("schedule features version");
        if (!scheduleVersion)
            return false;
        m_weights.pipelineFeaturesVersion = *pipelineVersion;
        m_weights.scheduleFeaturesVersion = *scheduleVersion;
        checkVersions(*pipelineVersion, *scheduleVersion);

        const uint64_t countOffset = m_offset;
        const auto bufferCount = readU32("buffer count");
        if (!bufferCount)
            return false;
        if (*bufferCount != kTensorCount) {
            error(DiagnosticKind::BufferCount, countOffset, "buffer count", std::to_string(kTensorCount),
                  std::to_string(*bufferCount));
            return false;
        }

        // Both networks have the same buffers but head2_filter's width; parse
        // with Anderson2021's shapes until head2_filter says which network it is.
        Network network = Network::Anderson2021;
        for (int i = 0; i < kTensorCount; i++)
            if (!parseBuffer(i, network))
                return false;

        if (remaining() > 0) {
            error(DiagnosticKind::TrailingBytes, m_offset, "end of file",
                  "the file to end at byte " + std::to_string(m_offset) + " after buffer 5 (conv1_bias)",
                  plural(remaining(), "more byte"));
            return false;
        }
        m_weights.network = network;
        return true;
    }

    void checkVersions(uint32_t pipeline, uint32_t schedule)
    {
        bool supported = false;
        std::string supportedText;
        for (Network n : {Network::Anderson2021, Network::Adams2019}) {
            const auto v = supportedVersions(n);
            supported = supported || (v.pipeline == pipeline && v.schedule == schedule);
            if (!supportedText.empty())
                supportedText += ", ";
            supportedText += std::to_string(v.pipeline) + "/" + std::to_string(v.schedule) + " for " + networkName(n);
        }
        if (supported)
            return;
        const auto reference = supportedVersions(Network::Anderson2021);
        error(DiagnosticKind::Version, pipeline != reference.pipeline ? 4 : 8, "feature versions (pipeline/schedule)",
              std::to_string(reference.pipeline) + "/" + std::to_string(reference.schedule),
              std::to_string(pipeline) + "/" + std::to_string(schedule),
              "Beamscope supports " + supportedText +
                  "; weights trained on other feature versions would read the features wrongly");
    }

    bool parseBuffer(int index, Network &network)
    {
        const auto &spec = tensorSpecs(network)[index];
        const uint64_t dimsOffset = m_offset;
        const auto dims = readU32(bufferField(index, spec.name, "dimension count"));
        if (!dims)
            return false;
        if (*dims != spec.shape.size()) {
            error(DiagnosticKind::DimensionCount, dimsOffset, bufferField(index, spec.name, "dimension count"),
                  std::to_string(spec.shape.size()) + " (" + formatShape(spec.shape) + ")", std::to_string(*dims));
            return false;
        }
        std::vector<uint32_t> shape;
        for (uint32_t d = 0; d < *dims; d++) {
            const std::string field = bufferField(index, spec.name, "extent " + std::to_string(d));
            const uint64_t extentOffset = m_offset;
            const auto extent = readU32(field);
            if (!extent)
                return false;
            if (index == Head2Filter && d == 1) {
                if (auto detected = networkForHead2Width(*extent)) {
                    network = *detected;
                    shape.push_back(*extent);
                    continue;
                }
                error(DiagnosticKind::Extent, extentOffset, field,
                      std::to_string(head2Width(Network::Anderson2021)) + " (anderson2021) or " +
                          std::to_string(head2Width(Network::Adams2019)) + " (adams2019)",
                      std::to_string(*extent));
                return false;
            }
            if (*extent != spec.shape[d]) {
                error(DiagnosticKind::Extent, extentOffset, field, std::to_string(spec.shape[d]),
                      std::to_string(*extent));
                return false;
            }
            shape.push_back(*extent);
        }
        // Extents are checked against the network before this point, so the
        // size below is small; still, nothing is allocated until the bytes are there.
        const uint64_t count = elementCount(shape);
        if (!require(4 * count, bufferField(index, spec.name, "data"), formatShape(shape) + " float32"))
            return false;
        Tensor &tensor = m_weights.tensors[index];
        tensor.name = spec.name;
        tensor.shape = shape;
        tensor.data.resize(count);
        std::memcpy(tensor.data.data(), m_bytes.data() + m_offset, 4 * count);
        m_offset += 4 * count;
        return true;
    }

    std::span<const char> m_bytes;
    std::string m_source;
    uint64_t m_offset = 0;
    Weights m_weights;
    LoadResult m_result;
};

void appendU32(std::vector<char> &out, uint32_t v)
{
    char bytes[4];
    std::memcpy(bytes, &v, 4);
    out.insert(out.end(), bytes, bytes + 4);
}

} // namespace

LoadResult parseWeightsFile(std::span<const char> bytes, const std::string &sourceName)
{
    return Parser(bytes, sourceName).run();
}

LoadResult loadWeightsFile(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        LoadResult result;
        Diagnostic d;
        d.kind = DiagnosticKind::Io;
        d.path = path.string();
        d.expected = "a readable hwf1 weights file";
        std::error_code ec;
        d.found = std::filesystem::exists(path, ec) ? "a file that cannot be opened" : "no such file or directory";
        d.message = "expected " + d.expected + ", found " + d.found;
        result.diagnostics.push_back(std::move(d));
        return result;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) {
        LoadResult result;
        Diagnostic d;
        d.kind = DiagnosticKind::Io;
        d.path = path.string();
        d.message = "read error";
        result.diagnostics.push_back(std::move(d));
        return result;
    }
    return parseWeightsFile(bytes, path.string());
}

LoadResult loadWeights(const std::filesystem::path &path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return loadWeightsDirectory(path);
    return loadWeightsFile(path);
}

std::vector<char> serializeWeightsFile(const Weights &w)
{
    std::vector<char> out;
    out.reserve(fileSizeFor(w.network));
    appendU32(out, kSignature);
    appendU32(out, w.pipelineFeaturesVersion);
    appendU32(out, w.scheduleFeaturesVersion);
    appendU32(out, kTensorCount);
    for (const Tensor &t : w.tensors) {
        appendU32(out, static_cast<uint32_t>(t.shape.size()));
        for (uint32_t extent : t.shape)
            appendU32(out, extent);
        const auto *data = reinterpret_cast<const char *>(t.data.data());
        out.insert(out.end(), data, data + 4 * t.data.size());
    }
    return out;
}

WriteResult saveWeightsFile(const Weights &w, const std::filesystem::path &path, Overwrite overwrite)
{
    if (auto problem = shapeProblem(w); !problem.empty())
        return {false, path.string() + ": not written: " + problem};
    const auto bytes = serializeWeightsFile(w);
    return writeFileAtomically(path, bytes, overwrite);
}

} // namespace beamscope::weights
