#include "ui/common/resources.h"

#include <QtGlobal>

// Q_INIT_RESOURCE declares a function, which must happen outside any namespace.
static void initBeamscopeQrc() { Q_INIT_RESOURCE(beamscope); }

namespace beamscope::ui {

void initResources()
{
    static const bool done = [] {
        initBeamscopeQrc();
        return true;
    }();
    Q_UNUSED(done);
}

} // namespace beamscope::ui
