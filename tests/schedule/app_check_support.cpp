#include "tests/schedule/app_check_support.h"

namespace beamscope::test {

std::string appCheckFailure(const schedule::AppCheck &row, int beam)
{
    if (row.passed(true))
        return {};
    const std::string head = row.app + " beam " + std::to_string(beam) + ": ";
    if (!row.searched())
        return head + "search: " + row.error;
    if (!row.cuda.ok)
        return head + "CUDA compilation failed: " + row.cuda.error + "\nschedule:\n" + row.source;
    const bench::Measurement &m = row.opencl;
    return head + "OpenCL run " + bench::failureName(m.failure) + ": " + m.message + " (max abs error " +
           std::to_string(m.maxAbsError) + ")\n" + m.workerLog + "\nschedule:\n" + row.source;
}

} // namespace beamscope::test
