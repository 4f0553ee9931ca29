#pragma once
// Registers the icons of resources/beamscope.qrc. They are compiled into the
// static beamscope_ui library, where the linker would otherwise drop their
// registration; views call this before using an icon (calling twice is harmless).

namespace beamscope::ui {
void initResources();
}
