#pragma once
// Shared by the app tests: the failure text of one checked app (what failed,
// the worker's log and the emitted schedule to reproduce it).

#include "core/schedule/app_check.h"

#include <string>

namespace beamscope::test {

// Empty when the app passed; else what failed, the worker's log and the schedule.
std::string appCheckFailure(const schedule::AppCheck &row, int beam);

} // namespace beamscope::test
