#include "core/gpu/device_facts.h"

namespace beamscope::gpu {

#ifdef BEAMSCOPE_HAVE_CUDA
// core/gpu/cuda/cuda_device_query.cpp, compiled only with the CUDA Toolkit.
LocalDeviceQuery queryCudaRuntime();
#endif

LocalDeviceQuery queryLocalDevice()
{
#ifdef BEAMSCOPE_HAVE_CUDA
    return queryCudaRuntime();
#else
    LocalDeviceQuery q;
    q.supportBuilt = false;
    q.status = "no CUDA device support built (Beamscope was configured without the CUDA Toolkit)";
    return q;
#endif
}

} // namespace beamscope::gpu
