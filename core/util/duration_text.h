#pragma once
// A measured time as the CLI and the explorer print it: milliseconds with four significant digits
// ("155.2 ms", "0.08316 ms"), and seconds from ten seconds on ("28.1 s"), where four significant
// digits of milliseconds would turn into an exponent ("2.811e+04 ms").

#include <string>

namespace beamscope {

std::string millisecondsText(double ms);

} // namespace beamscope
