#pragma once
// A diverging colour map for signed values centred on 0: Moreland's cool-warm
// map (K. Moreland, "Diverging Color Maps for Scientific Visualization", 2009),
// interpolated in his Msh space (polar CIELAB) so lightness changes evenly from
// blue through a neutral white at 0 to red, which reads the same for viewers
// with red-green colour deficiency and in greyscale print.

#include <QColor>

namespace beamscope::ui {

// t in [-1, 1]: -1 = cool end, 0 = neutral, +1 = warm end; clamped outside.
QRgb divergingColor(double t);

// Colour of NaN / infinite cells: a mid grey-green that is not on the scale.
QRgb nonFiniteColor();

} // namespace beamscope::ui
