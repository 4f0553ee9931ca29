#include "core/samples/checkpoint.h"
#include "core/util/fnv1a.h"

#include "core/weights/weights.h"

#include <bit>
#include <cstring>
#include <fstream>
#include <sstream>

namespace beamscope::samples {

namespace {

constexpr char kMagic[8] = {'B', 'S', 'C', 'K', 'P', 'T', '\r', '\n'};
constexpr uint32_t kFormat = 1;

uint64_t fnv1a(std::span<const char> bytes) { return beamscope::fnv1a(std::string_view(bytes.data(), bytes.size())); }

class Writer {
public:
    template <typename T>
    void put(T value)
    {
        const char *p = reinterpret_cast<const char *>(&value);
        bytes.insert(bytes.end(), p, p + sizeof(T));
    }
    void putBytes(std::span<const char> data) { bytes.insert(bytes.end(), data.begin(), data.end()); }
    std::vector<char> bytes;
};

class Reader {
public:
    Reader(std::span<const char> data, std::string name) : m_data(data), m_name(std::move(name)) {}

    template <typename T>
    bool get(T &value, const char *field)
    {
        if (m_offset + sizeof(T) > m_data.size())
            return fail(field, "expected " + std::to_string(sizeof(T)) + " more bytes, found the end of the file");
        std::memcpy(&value, m_data.data() + m_offset, sizeof(T));
        m_offset += sizeof(T);
        return true;
    }
    bool getBytes(size_t count, std::span<const char> &out, const char *field)
    {
        if (m_offset + count > m_data.size())
            return fail(field, "expected " + std::to_string(count) + " bytes, found " +
                                   std::to_string(m_data.size() - m_offset));
        out = m_data.subspan(m_offset, count);
        m_offset += count;
        return true;
    }
    bool fail(const std::string &field, const std::string &message)
    {
        if (m_error.empty())
            m_error = m_name + ": offset " + std::to_string(m_offset) + ": " + field + ": " + message;
        return false;
    }
    size_t offset() const { return m_offset; }
    size_t remaining() const { return m_data.size() - m_offset; }
    const std::string &error() const { return m_error; }

private:
    std::span<const char> m_data;
    std::string m_name;
    size_t m_offset = 0;
    std::string m_error;
};

void putTensors(Writer &w, const model::TensorSet &set)
{
    for (const auto &tensor : set) {
        w.put(static_cast<uint32_t>(tensor.size()));
        w.putBytes({reinterpret_cast<const char *>(tensor.data()), tensor.size() * sizeof(float)});
    }
}

bool getTensors(Reader &r, model::TensorSet &set, const weights::Weights &shapes, const char *which)
{
    for (int i = 0; i < weights::kTensorCount; ++i) {
        const std::string field = std::string(which) + " tensor " + std::to_string(i) + " (" +
                                  shapes.tensors[static_cast<size_t>(i)].name + ")";
        uint32_t count = 0;
        if (!r.get(count, field.c_str()))
            return false;
        const size_t expected = shapes.tensors[static_cast<size_t>(i)].elementCount();
        if (count != expected)
            return r.fail(field, "expected " + std::to_string(expected) + " values (the weights' shape), found " +
                                     std::to_string(count));
        std::span<const char> raw;
        if (!r.getBytes(size_t{count} * sizeof(float), raw, field.c_str()))
            return false;
        auto &tensor = set[static_cast<size_t>(i)];
        tensor.resize(count);
        std::memcpy(tensor.data(), raw.data(), raw.size());
    }
    return true;
}

} // namespace

uint64_t datasetFingerprint(const std::vector<PipelineSet> &training, const std::vector<PipelineSet> &validation)
{
    Writer w;
    for (const auto *set : {&training, &validation}) {
        w.put(static_cast<uint64_t>(set->size()));
        for (const auto &pipeline : *set) {
            w.put(pipeline.pipelineId);
            w.put(pipeline.pipelineHash);
            w.put(static_cast<uint64_t>(pipeline.schedules.size()));
            for (const auto &schedule : pipeline.schedules) {
                w.put(schedule.hash);
                w.put(schedule.bestRuntimeMs());
            }
        }
    }
    return fnv1a(w.bytes);
}

std::vector<char> serializeCheckpoint(const Checkpoint &c)
{
    Writer w;
    w.putBytes(kMagic);
    w.put(kFormat);
    w.put(static_cast<uint32_t>(c.epochsCompleted));
    w.put(static_cast<int64_t>(c.state.timestep));
    w.put(c.seed);
    w.put(c.learningRate);
    w.put(static_cast<int32_t>(c.numCores));
    w.put(c.maxBatch);
    w.put(c.minBatch);
    w.put(c.datasetFingerprint);
    w.put(static_cast<uint32_t>(c.history.size()));
    for (const auto &e : c.history) {
        w.put(static_cast<uint32_t>(e.epoch));
        w.put(static_cast<uint32_t>(e.trainingBatches));
        w.put(static_cast<uint32_t>(e.validationBatches));
        w.put(static_cast<uint32_t>(e.validation.pipelines));
        for (double v : {e.trainingLoss, e.validationLoss, e.validation.spearman, e.validation.kendall,
                         e.validation.pairwiseAccuracy})
            w.put(v);
    }
    const auto image = weights::serializeWeightsFile(c.state.weights);
    w.put(static_cast<uint32_t>(image.size()));
    w.putBytes(image);
    putTensors(w, c.state.m);
    putTensors(w, c.state.v);
    w.put(fnv1a(w.bytes));
    return w.bytes;
}

CheckpointReadResult parseCheckpoint(std::span<const char> bytes, const std::string &sourceName)
{
    CheckpointReadResult result;
    Reader r(bytes, sourceName);
    auto failed = [&]() {
        result.error = r.error();
        return result;
    };
    std::span<const char> magic;
    if (!r.getBytes(sizeof(kMagic), magic, "signature"))
        return failed();
    if (std::memcmp(magic.data(), kMagic, sizeof(kMagic)) != 0) {
        Reader at0(bytes, sourceName);
        at0.fail("signature", "expected \"BSCKPT\\r\\n\" (a Beamscope training checkpoint), found other bytes");
        result.error = at0.error();
        return result;
    }
    if (bytes.size() < sizeof(kMagic) + 8) {
        r.fail("checksum", "file too short");
        return failed();
    }
    uint64_t stored = 0;
    std::memcpy(&stored, bytes.data() + bytes.size() - 8, 8);
    if (stored != fnv1a(bytes.first(bytes.size() - 8))) {
        Reader atEnd(bytes, sourceName);
        std::span<const char> skip;
        atEnd.getBytes(bytes.size() - 8, skip, "checksum");
        atEnd.fail("checksum", "does not match the contents (damaged or partly written checkpoint)");
        result.error = atEnd.error();
        return result;
    }
    const auto body = bytes.first(bytes.size() - 8);
    Reader b(body, sourceName);
    auto bodyFailed = [&]() {
        result.error = b.error();
        return result;
    };
    std::span<const char> skipMagic;
    b.getBytes(sizeof(kMagic), skipMagic, "signature");
    Checkpoint c;
    uint32_t format = 0, epochs = 0, historyCount = 0, imageSize = 0;
    int64_t timestep = 0;
    int32_t numCores = 0;
    if (!b.get(format, "format version"))
        return bodyFailed();
    if (format != kFormat) {
        b.fail("format version", "expected 1, found " + std::to_string(format));
        return bodyFailed();
    }
    if (!b.get(epochs, "epochs completed") || !b.get(timestep, "ADAM timestep") || !b.get(c.seed, "seed") ||
        !b.get(c.learningRate, "learning rate") || !b.get(numCores, "num_cores") || !b.get(c.maxBatch, "max batch") ||
        !b.get(c.minBatch, "min batch") || !b.get(c.datasetFingerprint, "dataset fingerprint") ||
        !b.get(historyCount, "history count"))
        return bodyFailed();
    c.epochsCompleted = static_cast<int>(epochs);
    c.numCores = numCores;
    // 64-bit: epochs + 1 must not wrap to 0 for a damaged epoch count.
    if (uint64_t{historyCount} > uint64_t{epochs} + 1) {
        b.fail("history count",
               "expected at most " + std::to_string(uint64_t{epochs} + 1) + ", found " + std::to_string(historyCount));
        return bodyFailed();
    }
    constexpr size_t kRecordBytes = 4 * sizeof(uint32_t) + 5 * sizeof(double);
    if (historyCount > b.remaining() / kRecordBytes) {
        b.fail("history count", "expected at most " + std::to_string(b.remaining() / kRecordBytes) + " records of " +
                                    std::to_string(kRecordBytes) + " bytes (what the file holds), found " +
                                    std::to_string(historyCount));
        return bodyFailed();
    }
    c.history.reserve(historyCount);
    for (uint32_t i = 0; i < historyCount; ++i) {
        EpochRecord e;
        uint32_t epoch = 0, tb = 0, vb = 0, vp = 0;
        if (!b.get(epoch, "history epoch") || !b.get(tb, "history training batches") ||
            !b.get(vb, "history validation batches") || !b.get(vp, "history validation pipelines") ||
            !b.get(e.trainingLoss, "history training loss") || !b.get(e.validationLoss, "history validation loss") ||
            !b.get(e.validation.spearman, "history Spearman") || !b.get(e.validation.kendall, "history Kendall") ||
            !b.get(e.validation.pairwiseAccuracy, "history pairwise accuracy"))
            return bodyFailed();
        e.epoch = static_cast<int>(epoch);
        e.trainingBatches = tb;
        e.validationBatches = vb;
        e.validation.pipelines = vp;
        c.history.push_back(e);
    }
    if (!b.get(imageSize, "weights size"))
        return bodyFailed();
    const size_t imageOffset = b.offset();
    std::span<const char> image;
    if (!b.getBytes(imageSize, image, "weights"))
        return bodyFailed();
    auto loaded =
        weights::parseWeightsFile(image, sourceName + " (weights at offset " + std::to_string(imageOffset) + ")");
    if (!loaded.ok()) {
        const auto *first = loaded.firstError();
        result.error =
            first ? first->format() : sourceName + ": offset " + std::to_string(imageOffset) + ": weights: unreadable";
        return result;
    }
    c.state.weights = std::move(*loaded.weights);
    c.state.timestep = timestep;
    if (!getTensors(b, c.state.m, c.state.weights, "ADAM m") || !getTensors(b, c.state.v, c.state.weights, "ADAM v"))
        return bodyFailed();
    if (b.offset() != body.size()) {
        b.fail("end", "expected the checksum, found " + std::to_string(body.size() - b.offset()) + " extra bytes");
        return bodyFailed();
    }
    result.checkpoint = std::move(c);
    return result;
}

CheckpointReadResult readCheckpoint(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        CheckpointReadResult result;
        result.error = path.string() + ": cannot open for reading";
        return result;
    }
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return parseCheckpoint(bytes, path.string());
}

WriteResult writeCheckpoint(const Checkpoint &checkpoint, const std::filesystem::path &path)
{
    const auto bytes = serializeCheckpoint(checkpoint);
    return writeFileAtomically(path, bytes, Overwrite::Replace);
}

std::filesystem::path checkpointPathFor(const std::filesystem::path &output)
{
    auto path = output;
    path += ".checkpoint";
    return path;
}

} // namespace beamscope::samples
