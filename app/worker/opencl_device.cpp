#include "app/worker/opencl_device.h"

#include <CL/cl.h>

#include <dlfcn.h>

#include <string>
#include <vector>

namespace beamscope::worker {

namespace {

using GetPlatformIDs = cl_int (*)(cl_uint, cl_platform_id *, cl_uint *);
using GetPlatformInfo = cl_int (*)(cl_platform_id, cl_platform_info, size_t, void *, size_t *);
using GetDeviceIDs = cl_int (*)(cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *);
using GetDeviceInfo = cl_int (*)(cl_device_id, cl_device_info, size_t, void *, size_t *);

template <typename Fn, typename Handle, typename Key>
std::string infoString(Fn fn, Handle handle, Key key)
{
    size_t size = 0;
    if (fn(handle, key, 0, nullptr, &size) != CL_SUCCESS || size == 0)
        return {};
    std::vector<char> text(size);
    if (fn(handle, key, size, text.data(), nullptr) != CL_SUCCESS)
        return {};
    return std::string(text.data());
}

Json failure(const std::string &why)
{
    Json j = Json::object();
    j["ok"] = false;
    j["error"] = why;
    return j;
}

} // namespace

Json describeOpenCL()
{
    void *lib = ::dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return failure(std::string("cannot load libOpenCL.so.1: ") + ::dlerror());
    auto platformIds = reinterpret_cast<GetPlatformIDs>(::dlsym(lib, "clGetPlatformIDs"));
    auto platformInfo = reinterpret_cast<GetPlatformInfo>(::dlsym(lib, "clGetPlatformInfo"));
    auto deviceIds = reinterpret_cast<GetDeviceIDs>(::dlsym(lib, "clGetDeviceIDs"));
    auto deviceInfo = reinterpret_cast<GetDeviceInfo>(::dlsym(lib, "clGetDeviceInfo"));
    if (!platformIds || !platformInfo || !deviceIds || !deviceInfo)
        return failure("libOpenCL.so.1 lacks clGetPlatformIDs, clGetPlatformInfo, clGetDeviceIDs or clGetDeviceInfo");
    cl_platform_id platform = nullptr;
    cl_uint platforms = 0;
    if (platformIds(1, &platform, &platforms) != CL_SUCCESS || platforms == 0)
        return failure("no OpenCL platform (is an ICD such as pocl-opencl-icd installed?)");
    cl_device_id device = nullptr;
    cl_uint devices = 0;
    if (deviceIds(platform, CL_DEVICE_TYPE_ALL, 1, &device, &devices) != CL_SUCCESS || devices == 0)
        return failure("the OpenCL platform " + infoString(platformInfo, platform, CL_PLATFORM_NAME) +
                       " has no device");
    cl_uint units = 0;
    deviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr);
    Json j = Json::object();
    j["ok"] = true;
    j["platform"] = infoString(platformInfo, platform, CL_PLATFORM_NAME);
    j["platform_version"] = infoString(platformInfo, platform, CL_PLATFORM_VERSION);
    j["device"] = infoString(deviceInfo, device, CL_DEVICE_NAME);
    j["device_version"] = infoString(deviceInfo, device, CL_DEVICE_VERSION);
    j["compute_units"] = static_cast<int64_t>(units);
    return j;
}

} // namespace beamscope::worker
