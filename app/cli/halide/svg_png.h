#pragma once
// A plot's SVG drawn into a PNG beside it, by Qt's SVG renderer, where the
// build has Qt's GUI modules (BEAMSCOPE_BUILD_GUI); without them there is no
// renderer and the report keeps its SVG only.

#include <filesystem>
#include <functional>
#include <string>

namespace beamscope::cli {

// Empty when this build cannot render; else a function that writes the PNG
// atomically at twice the SVG's size (for high-density screens) and says
// whether it could.
std::function<bool(const std::string &svg, const std::filesystem::path &png)> svgToPngRenderer();

} // namespace beamscope::cli
