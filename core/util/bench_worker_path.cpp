#include "core/util/bench_worker_path.h"

#include <cstdlib>

namespace beamscope {

namespace fs = std::filesystem;

fs::path benchWorkerPath()
{
    if (const char *env = std::getenv("BEAMSCOPE_BENCH_WORKER"); env && *env)
        return env;
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        for (const fs::path &candidate :
             {self.parent_path() / "beamscope-bench-worker",
              self.parent_path() / ".." / "app" / "beamscope-bench-worker",
              self.parent_path() / ".." / ".." / "app" / "beamscope-bench-worker",
              self.parent_path() / ".." / "libexec" / "beamscope" / "beamscope-bench-worker"})
            if (fs::exists(candidate, ec))
                return fs::weakly_canonical(candidate, ec);
    }
    return "beamscope-bench-worker"; // from PATH (an installed build)
}

} // namespace beamscope
