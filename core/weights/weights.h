#pragma once
// The cost model's weights: six tensors in the "hwf1" container or in the legacy
// six-file directory (HALIDE-FACTS.md, "Weights files"). Two network shapes share
// the container: Anderson2021 (GPU, head2_filter 24 x 73) and Adams2019 (CPU,
// 24 x 39); the shape of head2_filter tells them apart.

#include "core/util/atomic_file.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace beamscope::weights {

enum class Network { Anderson2021, Adams2019 };
enum class Form { File, Directory };

const char *networkName(Network network); // "anderson2021" / "adams2019"
const char *formName(Form form);          // "file" / "directory"

// Feature versions the network of each kind is trained for (Halide's
// PipelineFeatures::version / ScheduleFeatures::version).
constexpr uint32_t kAnderson2021PipelineVersion = 3;
constexpr uint32_t kAnderson2021ScheduleVersion = 3;

constexpr uint32_t kSignature = 0x68776631; // 'hwf1' read as a big-endian word
constexpr int kTensorCount = 6;

enum TensorIndex { Head1Filter, Head1Bias, Head2Filter, Head2Bias, Conv1Filter, Conv1Bias };

struct TensorSpec {
    const char *name;            // head1_filter ...
    const char *legacyFile;      // head1_conv1_weight.data ...
    std::vector<uint32_t> shape; // Halide order, dimension 0 fastest
};
// The six tensors of a network, in file order.
const std::array<TensorSpec, kTensorCount> &tensorSpecs(Network network);

struct Tensor {
    std::string name;
    std::vector<uint32_t> shape; // dimension 0 varies fastest
    std::vector<float> data;

    size_t elementCount() const { return data.size(); }
    // Index of a flat position as (i0, i1, ...), dimension 0 fastest.
    std::vector<uint32_t> unflatten(size_t flat) const;
};

struct Weights {
    Network network = Network::Anderson2021;
    uint32_t pipelineFeaturesVersion = kAnderson2021PipelineVersion;
    uint32_t scheduleFeaturesVersion = kAnderson2021ScheduleVersion;
    std::array<Tensor, kTensorCount> tensors;

    const Tensor &tensor(TensorIndex index) const { return tensors[index]; }
    Tensor &tensor(TensorIndex index) { return tensors[index]; }
};

// The feature versions Beamscope accepts for a network. Halide's PipelineFeatures
// and ScheduleFeatures are both version 3 in Anderson2021 and in Adams2019, and the
// shipped Adams2019 baseline.weights records 3/3 too, so both networks report and
// require 3/3. A legacy directory records no versions and is read as 3/3.
struct FeatureVersions {
    uint32_t pipeline = 3;
    uint32_t schedule = 3;
};
FeatureVersions supportedVersions(Network network);

// The network whose head2_filter has this many schedule-feature columns (73 or 39).
std::optional<Network> networkForHead2Width(uint32_t width);
uint32_t head2Width(Network network);

// Size of the hwf1 file of a network (20,400 bytes for Anderson2021, 17,136 for Adams2019).
uint64_t fileSizeFor(Network network);
// Byte offset of tensor index's float data in the hwf1 file of a network.
uint64_t tensorDataOffset(Network network, int index);
// Product of a shape's extents.
uint64_t elementCount(const std::vector<uint32_t> &shape);
// "24 x 73"
std::string formatShape(const std::vector<uint32_t> &shape);

// Why w could not be written as its network's file (a shape or value count that
// disagrees with the network), or empty when it can.
std::string shapeProblem(const Weights &w);

// Zero-filled weights of the given network's shapes (for training from scratch
// with an explicit initialiser; never used silently in place of a bad file).
Weights zeroWeights(Network network);

enum class Severity { Warning, Error };

// What kind of problem a Diagnostic reports (for tests and for the GUI to pick an icon).
enum class DiagnosticKind {
    Other,
    Io,             // cannot open or read
    Signature,      // first four bytes are not "1fwh"
    Version,        // feature versions Beamscope does not support
    BufferCount,    // not 6
    DimensionCount, // a buffer's dimension count differs from the network's
    Extent,         // a buffer's extent differs from the network's
    Truncated,      // the file ends inside a field
    TrailingBytes,  // bytes after the last buffer
    NonFinite,      // NaN or Inf values (an error: a cost model with them predicts nothing)
    MissingFile,    // legacy directory lacks one of the six files
    FileSize,       // legacy directory member of the wrong size
};

// One finding about an input: what, where (file, byte offset or field), expected vs found.
struct Diagnostic {
    Severity severity = Severity::Error;
    std::string path;               // file (or directory member) concerned
    std::optional<uint64_t> offset; // byte offset in path, when meaningful
    std::string field;              // e.g. "signature", "buffer 2 (head2_filter) extent 1"
    std::string message;            // "expected ..., found ..."

    // Added after the first draft of this header; the parts of message, kept apart for tests and views.
    DiagnosticKind kind = DiagnosticKind::Other;
    std::string expected; // "6"
    std::string found;    // "7"

    // "path: offset 12: field: message" (parts omitted when empty).
    std::string format() const;
};

const char *severityName(Severity severity);         // "warning" / "error"
const char *diagnosticKindName(DiagnosticKind kind); // "truncated", ...

struct LoadResult {
    // Set only when there is no Error diagnostic: a loader never returns
    // partially filled weights.
    std::optional<Weights> weights;
    Form form = Form::File;
    uint64_t sizeBytes = 0; // file size, or the sum of the six member files
    std::vector<Diagnostic> diagnostics;

    // The weights as read when only their values were refused (NonFinite):
    // for views that show where the NaN is. Never for computing with.
    std::optional<Weights> rejected;

    bool ok() const { return weights.has_value(); }
    bool hasWarnings() const;
    const Diagnostic *firstError() const;
};

// Parses an hwf1 image held in memory; sourceName is used in diagnostics.
LoadResult parseWeightsFile(std::span<const char> bytes, const std::string &sourceName);
// Reads a .weights file or a legacy directory, chosen by what path is.
LoadResult loadWeights(const std::filesystem::path &path);
LoadResult loadWeightsFile(const std::filesystem::path &path);
LoadResult loadWeightsDirectory(const std::filesystem::path &path);
// True for a directory holding any of the six legacy member files: such a
// folder is meant as weights, so a missing or short member is an error to
// show (loadWeightsDirectory says which), never a reason to treat it as an
// ordinary folder.
bool holdsLegacyWeightsFiles(const std::filesystem::path &dir);

// The exact hwf1 bytes of w (round-trips bit for bit with Halide's files).
std::vector<char> serializeWeightsFile(const Weights &w);
WriteResult saveWeightsFile(const Weights &w, const std::filesystem::path &path, Overwrite overwrite);
// Writes the six legacy files into dir (created if needed), each atomically;
// with Overwrite::Refuse nothing is written if any of them exists.
WriteResult saveWeightsDirectory(const Weights &w, const std::filesystem::path &dir, Overwrite overwrite);

// Form chosen by a destination path: "*.weights" is a file, anything else a directory.
Form formForDestination(const std::filesystem::path &path);

// Non-finite values across all tensors become errors here (count and first
// index), and the weights are dropped: a NaN weight is corruption, and every
// prediction made with it would be NaN. `rejected` keeps what was read, so an
// inspector can still show where the bad values are.
void addValueErrors(LoadResult &result, const std::string &path);

} // namespace beamscope::weights
