#include "core/util/duration_text.h"

#include <cstdio>

namespace beamscope {

std::string millisecondsText(double ms)
{
    char text[48];
    if (ms >= 10000.0)
        std::snprintf(text, sizeof text, "%.1f s", ms / 1000.0);
    else
        std::snprintf(text, sizeof text, "%.4g ms", ms);
    return text;
}

} // namespace beamscope
