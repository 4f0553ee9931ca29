#include "core/model/cost_formula.h"

#include <algorithm>
#include <cmath>

namespace beamscope::model {

namespace {
// Indices into ScheduleFeatures v3 (Featurization.h order; HALIDE-FACTS.md).
enum Feature : int {
    NumRealizations = 0,
    NumProductions = 1,
    PointsComputedPerThread = 4,
    InnerParallelism = 10,
    OuterParallelism = 11,
    InlinedCalls = 18,
    UniqueGlobalBytesReadPerRealization = 19,
    UniqueSharedBytesReadPerRealization = 20,
    UniqueRegisterBytesReadPerRealization = 21,
    UniqueGlobalLinesReadPerRealization = 22,
    UniqueSharedLinesReadPerRealization = 23,
    UniqueRegisterLinesReadPerRealization = 24,
    UniqueGlobalBytesReadPerThread = 25,
    UniqueSharedBytesReadPerThread = 26,
    UniqueRegisterBytesReadPerThread = 27,
    UniqueGlobalLinesReadPerThread = 28,
    UniqueSharedLinesReadPerThread = 29,
    UniqueRegisterLinesReadPerThread = 30,
    WorkingSet = 34,
    NumScalars = 35,
    GlobalInnermostBytesAtTask = 39,
    UniqueBytesReadPerPoint = 42,
    UniqueLinesReadPerPoint = 43,
    UniqueBytesReadPerTask = 44,
    UniqueLinesReadPerTask = 45,
    NumBlocks = 50,
    IdleLaneWastage = 57,
    NumSharedMemLoadsPerBlock = 58,
    NumGlobalMemLoadsPerBlock = 59,
    NumSharedMemStoresPerBlock = 60,
    NumGlobalMemStoresPerBlock = 61,
    GlobalMemStoreEfficiency = 64,
    GlobalMemLoadEfficiency = 65,
    NumThreadsPerBlock = 71,
};

void set(TermCoefficients &out, CostTerm term, float coefficient)
{
    out.coefficient[static_cast<size_t>(term)] = coefficient;
}

// costTermChannel for every term, looked up once.
struct ChannelTables {
    std::array<int, kCostTermCount> notInlined{}, inlined{};
    ChannelTables()
    {
        for (int t = 0; t < kCostTermCount; ++t) {
            notInlined[static_cast<size_t>(t)] = costTermChannel(CostTerm(t), false);
            inlined[static_cast<size_t>(t)] = costTermChannel(CostTerm(t), true);
        }
    }
};
const ChannelTables &channelTables()
{
    static const ChannelTables tables;
    return tables;
}
} // namespace

void computeTermCoefficients(const float *f, int numCores, TermCoefficients &out)
{
    const bool inlined = f[InlinedCalls] != 0.0f;
    out.inlined = inlined;
    out.channel = inlined ? channelTables().inlined : channelTables().notInlined;

    const float numBlocks = std::max(1.0f, f[NumBlocks]);
    const float threads = numBlocks * f[NumThreadsPerBlock]; // num_blocks x threads per block
    const float numScalars = f[NumScalars];
    const float numRealizations = f[NumRealizations];
    const float innerParallelism = f[InnerParallelism];

    out.numTasks = std::max(1.0f, innerParallelism * f[OuterParallelism]);
    const float tasksPerCore = out.numTasks / static_cast<float>(numCores);
    out.idleCoreWastage = std::ceil(tasksPerCore) / std::max(1.0f, tasksPerCore);
    // Idle SIMT lanes only slow down a stage that has its own loop nest.
    out.idleLaneFactor = inlined ? 1.0f : 1.0f / (1.0f - f[IdleLaneWastage]);
    const float computeScale = inlined ? out.idleCoreWastage : out.idleCoreWastage / (1.0f - f[IdleLaneWastage]);

    set(out, CostTerm::ComputeScalars, numScalars * computeScale);
    set(out, CostTerm::ComputeThreads, threads * f[PointsComputedPerThread] * computeScale);

    set(out, CostTerm::StoreSharedMem, numBlocks * f[NumSharedMemStoresPerBlock]);
    set(out, CostTerm::StoreGlobalMem,
        numBlocks * f[NumGlobalMemStoresPerBlock] * (inlined ? 1.0f : 1.0f / f[GlobalMemStoreEfficiency]));
    set(out, CostTerm::StoreFalseSharing,
        innerParallelism > 1.0f ? numScalars / std::max(1.0f, f[GlobalInnermostBytesAtTask]) : 0.0f);

    set(out, CostTerm::LoadGlobalLinesPerRealization, numRealizations * f[UniqueGlobalLinesReadPerRealization]);
    set(out, CostTerm::LoadSharedLinesPerRealization, numRealizations * f[UniqueSharedLinesReadPerRealization]);
    set(out, CostTerm::LoadRegisterLinesPerRealization, numRealizations * f[UniqueRegisterLinesReadPerRealization]);
    set(out, CostTerm::LoadGlobalBytesPerRealization, numRealizations * f[UniqueGlobalBytesReadPerRealization]);
    set(out, CostTerm::LoadSharedBytesPerRealization, numRealizations * f[UniqueSharedBytesReadPerRealization]);
    set(out, CostTerm::LoadRegisterBytesPerRealization, numRealizations * f[UniqueRegisterBytesReadPerRealization]);
    set(out, CostTerm::LoadGlobalLinesPerThread, threads * f[UniqueGlobalLinesReadPerThread]);
    set(out, CostTerm::LoadSharedLinesPerThread, threads * f[UniqueSharedLinesReadPerThread]);
    set(out, CostTerm::LoadRegisterLinesPerThread, threads * f[UniqueRegisterLinesReadPerThread]);
    set(out, CostTerm::LoadGlobalBytesPerThread, threads * f[UniqueGlobalBytesReadPerThread]);
    set(out, CostTerm::LoadSharedBytesPerThread, threads * f[UniqueSharedBytesReadPerThread]);
    set(out, CostTerm::LoadRegisterBytesPerThread, threads * f[UniqueRegisterBytesReadPerThread]);
    set(out, CostTerm::LoadBytesPerPoint, numScalars * f[UniqueBytesReadPerPoint]);
    set(out, CostTerm::LoadLinesPerPoint, numScalars * f[UniqueLinesReadPerPoint]);
    set(out, CostTerm::LoadBytesPerTask, out.numTasks * f[UniqueBytesReadPerTask]);
    set(out, CostTerm::LoadLinesPerTask, out.numTasks * f[UniqueLinesReadPerTask]);
    set(out, CostTerm::LoadGlobalMem,
        numBlocks * f[NumGlobalMemLoadsPerBlock] * (inlined ? 1.0f : 1.0f / f[GlobalMemLoadEfficiency]));
    set(out, CostTerm::LoadSharedMem, numBlocks * f[NumSharedMemLoadsPerBlock]);

    set(out, CostTerm::Malloc, numRealizations);
    set(out, CostTerm::ParallelLaunches, innerParallelism > 1.0f ? f[NumProductions] : 0.0f);
    set(out, CostTerm::ParallelTasks, f[NumProductions] * (innerParallelism - 1.0f));
    set(out, CostTerm::WorkingSet, f[WorkingSet]);
}

float sumTerms(const TermCoefficients &c, const float *relu1, float *terms)
{
    float total = 0.0f;
    for (int t = 0; t < kCostTermCount; ++t) {
        const float term = c.coefficient[static_cast<size_t>(t)] * relu1[c.channel[static_cast<size_t>(t)]];
        if (terms)
            terms[t] = term;
        total += term;
    }
    return total;
}

void sumTermsGroup(const TermCoefficients *c, const float (*relu1)[kConv1Channels], int count, float *totals)
{
    if (count != 4) {
        for (int i = 0; i < count; ++i)
            totals[i] = sumTerms(c[i], relu1[i], nullptr);
        return;
    }
    float t0 = 0.0f, t1 = 0.0f, t2 = 0.0f, t3 = 0.0f;
    for (size_t t = 0; t < static_cast<size_t>(kCostTermCount); ++t) {
        t0 += c[0].coefficient[t] * relu1[0][c[0].channel[t]];
        t1 += c[1].coefficient[t] * relu1[1][c[1].channel[t]];
        t2 += c[2].coefficient[t] * relu1[2][c[2].channel[t]];
        t3 += c[3].coefficient[t] * relu1[3][c[3].channel[t]];
    }
    totals[0] = t0;
    totals[1] = t1;
    totals[2] = t2;
    totals[3] = t3;
}

const char *costTermName(CostTerm term)
{
    switch (term) {
    case CostTerm::ComputeScalars: return "compute_scalars";
    case CostTerm::ComputeThreads: return "compute_threads";
    case CostTerm::StoreSharedMem: return "store_shared_mem";
    case CostTerm::StoreGlobalMem: return "store_global_mem";
    case CostTerm::StoreFalseSharing: return "store_false_sharing";
    case CostTerm::LoadGlobalLinesPerRealization: return "load_global_lines_per_realization";
    case CostTerm::LoadSharedLinesPerRealization: return "load_shared_lines_per_realization";
    case CostTerm::LoadRegisterLinesPerRealization: return "load_register_lines_per_realization";
    case CostTerm::LoadGlobalBytesPerRealization: return "load_global_bytes_per_realization";
    case CostTerm::LoadSharedBytesPerRealization: return "load_shared_bytes_per_realization";
    case CostTerm::LoadRegisterBytesPerRealization: return "load_register_bytes_per_realization";
    case CostTerm::LoadGlobalLinesPerThread: return "load_global_lines_per_thread";
    case CostTerm::LoadSharedLinesPerThread: return "load_shared_lines_per_thread";
    case CostTerm::LoadRegisterLinesPerThread: return "load_register_lines_per_thread";
    case CostTerm::LoadGlobalBytesPerThread: return "load_global_bytes_per_thread";
    case CostTerm::LoadSharedBytesPerThread: return "load_shared_bytes_per_thread";
    case CostTerm::LoadRegisterBytesPerThread: return "load_register_bytes_per_thread";
    case CostTerm::LoadBytesPerPoint: return "load_bytes_per_point";
    case CostTerm::LoadLinesPerPoint: return "load_lines_per_point";
    case CostTerm::LoadBytesPerTask: return "load_bytes_per_task";
    case CostTerm::LoadLinesPerTask: return "load_lines_per_task";
    case CostTerm::LoadGlobalMem: return "load_global_mem";
    case CostTerm::LoadSharedMem: return "load_shared_mem";
    case CostTerm::Malloc: return "malloc";
    case CostTerm::ParallelLaunches: return "parallel_launches";
    case CostTerm::ParallelTasks: return "parallel_tasks";
    case CostTerm::WorkingSet: return "working_set";
    case CostTerm::Count: break;
    }
    return "?";
}

const char *costTermGroup(CostTerm term)
{
    const int t = static_cast<int>(term);
    if (t <= static_cast<int>(CostTerm::ComputeThreads))
        return "compute";
    if (t <= static_cast<int>(CostTerm::StoreFalseSharing))
        return "store";
    if (t <= static_cast<int>(CostTerm::LoadSharedMem))
        return "load";
    if (term == CostTerm::Malloc)
        return "malloc";
    if (term == CostTerm::ParallelLaunches || term == CostTerm::ParallelTasks)
        return "parallelism";
    if (term == CostTerm::WorkingSet)
        return "working_set";
    return "?";
}

int costTermChannel(CostTerm term, bool inlined)
{
    switch (term) {
    case CostTerm::ComputeScalars: return inlined ? 3 : 1;
    case CostTerm::ComputeThreads: return inlined ? 4 : 19;
    case CostTerm::StoreSharedMem: return 29;
    case CostTerm::StoreGlobalMem: return 21;
    case CostTerm::StoreFalseSharing: return 22;
    case CostTerm::LoadGlobalLinesPerRealization: return 5;
    case CostTerm::LoadSharedLinesPerRealization: return 16;
    case CostTerm::LoadRegisterLinesPerRealization: return 8;
    case CostTerm::LoadGlobalBytesPerRealization: return 6;
    case CostTerm::LoadSharedBytesPerRealization: return 20;
    case CostTerm::LoadRegisterBytesPerRealization: return 7;
    case CostTerm::LoadGlobalLinesPerThread: return 18;
    case CostTerm::LoadSharedLinesPerThread: return 17;
    case CostTerm::LoadRegisterLinesPerThread: return 2;
    case CostTerm::LoadGlobalBytesPerThread: return 13;
    case CostTerm::LoadSharedBytesPerThread: return 11;
    case CostTerm::LoadRegisterBytesPerThread: return 0;
    case CostTerm::LoadBytesPerPoint: return 10;
    case CostTerm::LoadLinesPerPoint: return 12;
    case CostTerm::LoadBytesPerTask: return 14;
    case CostTerm::LoadLinesPerTask: return 15;
    case CostTerm::LoadGlobalMem: return 28;
    case CostTerm::LoadSharedMem: return 27;
    case CostTerm::Malloc: return 24;
    case CostTerm::ParallelLaunches: return 25;
    case CostTerm::ParallelTasks: return 26;
    case CostTerm::WorkingSet: return 9;
    case CostTerm::Count: break;
    }
    return 0;
}

} // namespace beamscope::model
