#include "core/model/schedule_feature_names.h"

#include "core/model/cost_model.h"

namespace beamscope::model {

namespace {
const char *const kNames[kScheduleFeatureCount] = {"num_realizations",
                                                   "num_productions",
                                                   "points_computed_per_realization",
                                                   "points_computed_per_production",
                                                   "points_computed_per_thread",
                                                   "points_computed_total",
                                                   "points_computed_minimum",
                                                   "innermost_loop_extent",
                                                   "innermost_pure_loop_extent",
                                                   "unrolled_loop_extent",
                                                   "inner_parallelism",
                                                   "outer_parallelism",
                                                   "bytes_at_realization",
                                                   "bytes_at_production",
                                                   "bytes_at_root",
                                                   "innermost_bytes_at_realization",
                                                   "innermost_bytes_at_production",
                                                   "innermost_bytes_at_root",
                                                   "inlined_calls",
                                                   "unique_global_bytes_read_per_realization",
                                                   "unique_shared_bytes_read_per_realization",
                                                   "unique_register_bytes_read_per_realization",
                                                   "unique_global_lines_read_per_realization",
                                                   "unique_shared_lines_read_per_realization",
                                                   "unique_register_lines_read_per_realization",
                                                   "unique_global_bytes_read_per_thread",
                                                   "unique_shared_bytes_read_per_thread",
                                                   "unique_register_bytes_read_per_thread",
                                                   "unique_global_lines_read_per_thread",
                                                   "unique_shared_lines_read_per_thread",
                                                   "unique_register_lines_read_per_thread",
                                                   "global_allocation_bytes_read_per_realization",
                                                   "shared_allocation_bytes_read_per_realization",
                                                   "register_allocation_bytes_read_per_realization",
                                                   "working_set",
                                                   "num_scalars",
                                                   "global_bytes_at_task",
                                                   "shared_bytes_at_task",
                                                   "register_bytes_at_task",
                                                   "global_innermost_bytes_at_task",
                                                   "shared_innermost_bytes_at_task",
                                                   "register_innermost_bytes_at_task",
                                                   "unique_bytes_read_per_point",
                                                   "unique_lines_read_per_point",
                                                   "unique_bytes_read_per_task",
                                                   "unique_lines_read_per_task",
                                                   "working_set_at_task",
                                                   "working_set_at_production",
                                                   "working_set_at_realization",
                                                   "working_set_at_root",
                                                   "num_blocks",
                                                   "num_warps_per_block",
                                                   "block_occupancy",
                                                   "warp_lane_utilization",
                                                   "num_active_warps_per_block",
                                                   "warp_lane_utilization_at_block_y",
                                                   "warp_lane_utilization_at_block_z",
                                                   "idle_lane_wastage",
                                                   "num_shared_mem_loads_per_block",
                                                   "num_global_mem_loads_per_block",
                                                   "num_shared_mem_stores_per_block",
                                                   "num_global_mem_stores_per_block",
                                                   "shared_mem_store_efficiency",
                                                   "shared_mem_load_efficiency",
                                                   "global_mem_store_efficiency",
                                                   "global_mem_load_efficiency",
                                                   "working_set_at_thread",
                                                   "shared_mem_occupancy",
                                                   "shared_mem_block_limit_factor",
                                                   "max_warp_occupancy",
                                                   "max_block_occupancy",
                                                   "num_threads_per_block",
                                                   "expr_branching"};
} // namespace

const char *scheduleFeatureName(int index) { return index >= 0 && index < kScheduleFeatureCount ? kNames[index] : "?"; }

int scheduleFeatureIndex(const std::string &name)
{
    for (int i = 0; i < kScheduleFeatureCount; i++)
        if (name == kNames[i])
            return i;
    return -1;
}

} // namespace beamscope::model
