#include "ui/common/diverging_colormap.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

namespace beamscope::ui {

namespace {

struct Vec3 {
    double x, y, z;
};

// D65 reference white, for sRGB.
constexpr Vec3 kWhite{0.95047, 1.0, 1.08883};

double toLinear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }

double fromLinear(double c) { return c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1.0 / 2.4) - 0.055; }

double labF(double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0; }

double labFInverse(double t) { return t > 0.20689 ? t * t * t : (t - 16.0 / 116.0) / 7.787; }

Vec3 rgbToMsh(int r8, int g8, int b8)
{
    const double r = toLinear(r8 / 255.0), g = toLinear(g8 / 255.0), b = toLinear(b8 / 255.0);
    const double x = 0.4124 * r + 0.3576 * g + 0.1805 * b;
    const double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    const double z = 0.0193 * r + 0.1192 * g + 0.9505 * b;
    const double fx = labF(x / kWhite.x), fy = labF(y / kWhite.y), fz = labF(z / kWhite.z);
    const double L = 116.0 * fy - 16.0, a = 500.0 * (fx - fy), bb = 200.0 * (fy - fz);
    const double M = std::sqrt(L * L + a * a + bb * bb);
    return {M, std::acos(L / M), std::atan2(bb, a)};
}

QRgb mshToRgb(const Vec3 &msh)
{
    const double L = msh.x * std::cos(msh.y);
    const double a = msh.x * std::sin(msh.y) * std::cos(msh.z);
    const double bb = msh.x * std::sin(msh.y) * std::sin(msh.z);
    const double fy = (L + 16.0) / 116.0, fx = fy + a / 500.0, fz = fy - bb / 200.0;
    const double x = kWhite.x * labFInverse(fx), y = kWhite.y * labFInverse(fy), z = kWhite.z * labFInverse(fz);
    const double r = 3.2406 * x - 1.5372 * y - 0.4986 * z;
    const double g = -0.9689 * x + 1.8758 * y + 0.0415 * z;
    const double b = 0.0557 * x - 0.2040 * y + 1.0570 * z;
    const auto to8 = [](double c) { return std::clamp(static_cast<int>(std::lround(fromLinear(c) * 255.0)), 0, 255); };
    return qRgb(to8(r), to8(g), to8(b));
}

// Spinning the hue of the unsaturated end keeps the path away from muddy colours.
double adjustHue(const Vec3 &saturated, double unsaturatedM)
{
    if (saturated.x >= unsaturatedM)
        return saturated.z;
    const double spin = saturated.y * std::sqrt(unsaturatedM * unsaturatedM - saturated.x * saturated.x) /
                        (saturated.x * std::sin(saturated.y));
    return saturated.z > -std::numbers::pi / 3 ? saturated.z + spin : saturated.z - spin;
}

QRgb interpolate(Vec3 a, Vec3 b, double t)
{
    if (a.y > 0.05 && b.y > 0.05 && std::abs(a.z - b.z) > std::numbers::pi / 3) {
        const double mid = std::max({a.x, b.x, 88.0});
        if (t < 0.5) {
            b = {mid, 0.0, 0.0};
            t *= 2.0;
        } else {
            a = {mid, 0.0, 0.0};
            t = 2.0 * t - 1.0;
        }
    }
    if (a.y < 0.05 && b.y > 0.05)
        a.z = adjustHue(b, a.x);
    else if (b.y < 0.05 && a.y > 0.05)
        b.z = adjustHue(a, b.x);
    return mshToRgb({(1 - t) * a.x + t * b.x, (1 - t) * a.y + t * b.y, (1 - t) * a.z + t * b.z});
}

constexpr int kSteps = 256;

const std::array<QRgb, kSteps + 1> &table()
{
    static const std::array<QRgb, kSteps + 1> lut = [] {
        std::array<QRgb, kSteps + 1> t{};
        const Vec3 cool = rgbToMsh(59, 76, 192), warm = rgbToMsh(180, 4, 38);
        for (int i = 0; i <= kSteps; ++i)
            t[i] = interpolate(cool, warm, static_cast<double>(i) / kSteps);
        return t;
    }();
    return lut;
}

} // namespace

QRgb divergingColor(double t)
{
    if (!std::isfinite(t))
        return nonFiniteColor();
    const double u = (std::clamp(t, -1.0, 1.0) + 1.0) / 2.0;
    return table()[static_cast<size_t>(std::lround(u * kSteps))];
}

QRgb nonFiniteColor() { return qRgb(0x70, 0x80, 0x60); }

} // namespace beamscope::ui
