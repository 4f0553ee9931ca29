#pragma once
// ScheduleFeatures v3 (Anderson2021 Featurization.h): 73 values per stage, in
// the order the cost model reads them (HALIDE-FACTS.md, "Features").

#include <array>
#include <string>
#include <vector>

namespace beamscope::search {

constexpr int kScheduleFeatureCount = 73;

enum class Feature : int {
    NumRealizations,
    NumProductions,
    PointsComputedPerRealization,
    PointsComputedPerProduction,
    PointsComputedPerThread,
    PointsComputedTotal,
    PointsComputedMinimum,
    InnermostLoopExtent,
    InnermostPureLoopExtent,
    UnrolledLoopExtent,
    InnerParallelism,
    OuterParallelism,
    BytesAtRealization,
    BytesAtProduction,
    BytesAtRoot,
    InnermostBytesAtRealization,
    InnermostBytesAtProduction,
    InnermostBytesAtRoot,
    InlinedCalls,
    UniqueGlobalBytesReadPerRealization,
    UniqueSharedBytesReadPerRealization,
    UniqueRegisterBytesReadPerRealization,
    UniqueGlobalLinesReadPerRealization,
    UniqueSharedLinesReadPerRealization,
    UniqueRegisterLinesReadPerRealization,
    UniqueGlobalBytesReadPerThread,
    UniqueSharedBytesReadPerThread,
    UniqueRegisterBytesReadPerThread,
    UniqueGlobalLinesReadPerThread,
    UniqueSharedLinesReadPerThread,
    UniqueRegisterLinesReadPerThread,
    GlobalAllocationBytesReadPerRealization,
    SharedAllocationBytesReadPerRealization,
    RegisterAllocationBytesReadPerRealization,
    WorkingSet,
    NumScalars,
    GlobalBytesAtTask,
    SharedBytesAtTask,
    RegisterBytesAtTask,
    GlobalInnermostBytesAtTask,
    SharedInnermostBytesAtTask,
    RegisterInnermostBytesAtTask,
    UniqueBytesReadPerPoint,
    UniqueLinesReadPerPoint,
    UniqueBytesReadPerTask,
    UniqueLinesReadPerTask,
    WorkingSetAtTask,
    WorkingSetAtProduction,
    WorkingSetAtRealization,
    WorkingSetAtRoot,
    NumBlocks,
    NumWarpsPerBlock,
    BlockOccupancy,
    WarpLaneUtilization,
    NumActiveWarpsPerBlock,
    WarpLaneUtilizationAtBlockY,
    WarpLaneUtilizationAtBlockZ,
    IdleLaneWastage,
    NumSharedMemLoadsPerBlock,
    NumGlobalMemLoadsPerBlock,
    NumSharedMemStoresPerBlock,
    NumGlobalMemStoresPerBlock,
    SharedMemStoreEfficiency,
    SharedMemLoadEfficiency,
    GlobalMemStoreEfficiency,
    GlobalMemLoadEfficiency,
    WorkingSetAtThread,
    SharedMemOccupancy,
    SharedMemBlockLimitFactor,
    MaxWarpOccupancy,
    MaxBlockOccupancy,
    NumThreadsPerBlock,
    ExprBranching,
    Count
};
static_assert(static_cast<int>(Feature::Count) == kScheduleFeatureCount);

const char *featureName(int index);        // Halide's field name, e.g. "num_realizations"
int featureIndex(const std::string &name); // -1 when unknown

struct ScheduleFeatures {
    std::array<double, kScheduleFeatureCount> values{};

    ScheduleFeatures(); // Halide's non-zero defaults
    double &operator[](Feature f) { return values[static_cast<size_t>(f)]; }
    double operator[](Feature f) const { return values[static_cast<size_t>(f)]; }
};

// Appends one state's features to `out` in the cost model's [B][stages][73] float layout.
void packFeatures(const std::vector<ScheduleFeatures> &features, std::vector<float> &out);

} // namespace beamscope::search
