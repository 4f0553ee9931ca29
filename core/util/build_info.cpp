#include "core/util/build_info.h"

#ifndef BEAMSCOPE_VERSION_STRING
#define BEAMSCOPE_VERSION_STRING "unknown"
#endif
#ifndef BEAMSCOPE_GIT_COMMIT
#define BEAMSCOPE_GIT_COMMIT "unknown"
#endif

namespace beamscope {

std::string beamscopeVersion() { return BEAMSCOPE_VERSION_STRING; }
std::string beamscopeCommit() { return BEAMSCOPE_GIT_COMMIT; }

} // namespace beamscope
