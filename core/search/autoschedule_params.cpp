#include "core/search/autoschedule_params.h"

namespace beamscope::search {

bool SearchOptions::parse(const std::string &flags)
{
    if (flags.size() != 4)
        return false;
    for (char c : flags)
        if (c != '0' && c != '1')
            return false;
    computeRoot = flags[0] == '1';
    inlineFuncs = flags[1] == '1';
    computeAtBlock = flags[2] == '1';
    computeAtThread = flags[3] == '1';
    return true;
}

std::string SearchOptions::toString() const
{
    std::string s;
    for (bool b : {computeRoot, inlineFuncs, computeAtBlock, computeAtThread})
        s += b ? '1' : '0';
    return s;
}

} // namespace beamscope::search
