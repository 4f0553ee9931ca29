#pragma once
// What Beamscope build this is, for provenance records (autotune manifests):
// the project version and the git commit the build tree was configured from.

#include <string>

namespace beamscope {

std::string beamscopeVersion(); // "0.1.0"
std::string beamscopeCommit();  // 40 hex digits, with "-dirty" when the tree had changes; "unknown" outside git

} // namespace beamscope
