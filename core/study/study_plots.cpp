#include "core/study/study_plots.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace beamscope::study {

namespace {

constexpr const char *kBlue = "#3a6ea5", *kOrange = "#d9822b", *kGrey = "#888888";
const char *const kSeries[] = {"#3a6ea5", "#d9822b", "#4f9a52", "#b5443c", "#7d5ba6",
                               "#8c6d46", "#c963a8", "#6b6b6b", "#a3a335", "#3aa5a0"};

std::string num(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

std::string label(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

std::string escaped(const std::string &text)
{
    std::string out;
    for (char c : text) {
        if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '&')
            out += "&amp;";
        else
            out += c;
    }
    return out;
}

// A frame: the canvas, the title and the plot area's bounds.
struct Frame {
    double width, height, left, right, top, bottom;
    double plotWidth() const { return width - left - right; }
    double plotHeight() const { return height - top - bottom; }
};

void open(std::ostringstream &svg, const Frame &f, const std::string &title)
{
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << f.width << "\" height=\"" << f.height
        << "\" viewBox=\"0 0 " << f.width << " " << f.height << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    svg << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    svg << "<text x=\"" << num(f.width / 2) << "\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">" << escaped(title)
        << "</text>\n";
}

// Horizontal grid lines and value labels on the left axis for [lo, hi].
void valueAxis(std::ostringstream &svg, const Frame &f, double lo, double hi, const std::string &axisTitle,
               bool logScale)
{
    const auto y = [&](double v) {
        const double t = logScale ? (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo)) : (v - lo) / (hi - lo);
        return f.top + f.plotHeight() * (1 - t);
    };
    std::vector<double> ticks;
    if (logScale) {
        for (double v : {0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0})
            if (v >= lo && v <= hi)
                ticks.push_back(v);
    } else {
        for (int i = 0; i <= 4; i++)
            ticks.push_back(lo + (hi - lo) * i / 4);
    }
    for (double v : ticks) {
        svg << "<line x1=\"" << num(f.left) << "\" x2=\"" << num(f.width - f.right) << "\" y1=\"" << num(y(v))
            << "\" y2=\"" << num(y(v)) << "\" stroke=\"#e4e4e4\"/>\n";
        svg << "<text x=\"" << num(f.left - 6) << "\" y=\"" << num(y(v) + 4) << "\" text-anchor=\"end\">" << label(v)
            << "</text>\n";
    }
    svg << "<text transform=\"translate(14," << num(f.top + f.plotHeight() / 2)
        << ") rotate(-90)\" text-anchor=\"middle\">" << escaped(axisTitle) << "</text>\n";
    svg << "<line x1=\"" << num(f.left) << "\" x2=\"" << num(f.left) << "\" y1=\"" << num(f.top) << "\" y2=\""
        << num(f.top + f.plotHeight()) << "\" stroke=\"black\"/>\n";
}

void categoryLabels(std::ostringstream &svg, const Frame &f, const std::vector<std::string> &names)
{
    const double step = f.plotWidth() / double(std::max<size_t>(names.size(), 1));
    for (size_t i = 0; i < names.size(); i++) {
        const double x = f.left + step * (double(i) + 0.5);
        const double y = f.top + f.plotHeight() + 8;
        svg << "<text transform=\"translate(" << num(x) << "," << num(y) << ") rotate(40)\" text-anchor=\"start\">"
            << escaped(names[i]) << "</text>\n";
    }
}

void legend(std::ostringstream &svg, const Frame &f, const std::vector<std::pair<std::string, std::string>> &entries)
{
    double x = f.left + 8;
    for (const auto &[text, colour] : entries) {
        svg << "<rect x=\"" << num(x) << "\" y=\"" << num(f.top + 4) << "\" width=\"12\" height=\"12\" fill=\""
            << colour << "\"/>\n";
        svg << "<text x=\"" << num(x + 16) << "\" y=\"" << num(f.top + 14) << "\">" << escaped(text) << "</text>\n";
        x += 24 + 7.0 * double(text.size());
    }
}

} // namespace

std::string picksSvg(const StudyReport &report)
{
    const Frame f{760, 420, 64, 20, 36, 110};
    std::vector<std::string> names;
    double lo = 0.8, hi = 1.25;
    for (const AppResult &a : report.apps) {
        names.push_back(a.app);
        for (double v : {a.speedup.ratio, a.speedup.interval.low, a.speedup.interval.high})
            if (std::isfinite(v) && v > 0) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
    }
    lo /= 1.1;
    hi *= 1.1;
    std::ostringstream svg;
    char title[160];
    std::snprintf(title, sizeof title, "Fine-tuned pick against the V100 pick (geomean %.3gx over %zu apps)",
                  report.geomeanSpeedup.ratio, report.appsMeasured);
    open(svg, f, title);
    valueAxis(svg, f, lo, hi, "speedup (V100 / fine-tuned), log scale", true);
    const auto y = [&](double v) {
        return f.top + f.plotHeight() * (1 - (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo)));
    };
    const double step = f.plotWidth() / double(std::max<size_t>(names.size(), 1));
    for (size_t i = 0; i < report.apps.size(); i++) {
        const AppResult &a = report.apps[i];
        const double cx = f.left + step * (double(i) + 0.5);
        if (!std::isfinite(a.speedup.ratio) || a.speedup.ratio <= 0) {
            svg << "<text x=\"" << num(cx) << "\" y=\"" << num(y(1.0) - 6) << "\" text-anchor=\"middle\" fill=\""
                << kGrey << "\">n/a</text>\n";
            continue;
        }
        const double top = std::min(y(a.speedup.ratio), y(1.0)), bottom = std::max(y(a.speedup.ratio), y(1.0));
        const double barWidth = std::min(step * 0.6, 56.0);
        svg << "<rect x=\"" << num(cx - barWidth / 2) << "\" y=\"" << num(top) << "\" width=\"" << num(barWidth)
            << "\" height=\"" << num(std::max(bottom - top, 1.0)) << "\" fill=\""
            << (a.speedup.ratio >= 1 ? kBlue : kOrange) << "\"/>\n";
        if (a.speedup.interval.defined()) {
            const double y1 = y(std::max(a.speedup.interval.low, lo)), y2 = y(std::min(a.speedup.interval.high, hi));
            svg << "<line x1=\"" << num(cx) << "\" x2=\"" << num(cx) << "\" y1=\"" << num(y1) << "\" y2=\"" << num(y2)
                << "\" stroke=\"black\"/>\n";
            for (double yy : {y1, y2})
                svg << "<line x1=\"" << num(cx - 5) << "\" x2=\"" << num(cx + 5) << "\" y1=\"" << num(yy) << "\" y2=\""
                    << num(yy) << "\" stroke=\"black\"/>\n";
        }
    }
    svg << "<line x1=\"" << num(f.left) << "\" x2=\"" << num(f.width - f.right) << "\" y1=\"" << num(y(1.0))
        << "\" y2=\"" << num(y(1.0)) << "\" stroke=\"black\" stroke-dasharray=\"4 3\"/>\n";
    categoryLabels(svg, f, names);
    svg << "</svg>\n";
    return svg.str();
}

std::string ranksSvg(const StudyReport &report)
{
    const Frame f{760, 420, 64, 20, 36, 110};
    std::vector<std::string> names;
    for (const AppResult &a : report.apps)
        names.push_back(a.app);
    std::ostringstream svg;
    open(svg, f, "Spearman of predictions against measured runtimes on the app's own samples");
    valueAxis(svg, f, -1, 1, "Spearman", false);
    const auto y = [&](double v) { return f.top + f.plotHeight() * (1 - (v + 1) / 2); };
    const double step = f.plotWidth() / double(std::max<size_t>(names.size(), 1));
    for (size_t i = 0; i < report.apps.size(); i++) {
        const AppResult &a = report.apps[i];
        const double x0 = f.left + step * double(i) + step * 0.15;
        int k = 0;
        for (const auto &[value, colour] : {std::pair{a.v100Ranks.spearman, kBlue}, {a.tunedRanks.spearman, kOrange}}) {
            if (std::isfinite(value)) {
                const double top = std::min(y(value), y(0)), bottom = std::max(y(value), y(0));
                svg << "<rect x=\"" << num(x0 + step * 0.35 * k) << "\" y=\"" << num(top) << "\" width=\""
                    << num(step * 0.33) << "\" height=\"" << num(std::max(bottom - top, 1.0)) << "\" fill=\"" << colour
                    << "\"/>\n";
            }
            ++k;
        }
    }
    svg << "<line x1=\"" << num(f.left) << "\" x2=\"" << num(f.width - f.right) << "\" y1=\"" << num(y(0)) << "\" y2=\""
        << num(y(0)) << "\" stroke=\"black\"/>\n";
    legend(svg, f, {{"Halide's V100 file", kBlue}, {"fine-tuned here", kOrange}});
    categoryLabels(svg, f, names);
    svg << "</svg>\n";
    return svg.str();
}

std::string loopSvg(const StudyReport &report)
{
    const Frame f{760, 420, 64, 150, 36, 50};
    size_t batches = 1;
    double lo = 0.5, hi = 1.5;
    for (const AppResult &a : report.apps)
        for (const LoopBatch &b : a.loop) {
            batches = std::max(batches, static_cast<size_t>(b.batch) + 1);
            if (!a.loop.empty() && std::isfinite(b.pickMs) && std::isfinite(a.loop.front().pickMs) &&
                a.loop.front().pickMs > 0) {
                const double v = b.pickMs / a.loop.front().pickMs;
                if (v > 0) {
                    lo = std::min(lo, v);
                    hi = std::max(hi, v);
                }
            }
        }
    lo /= 1.1;
    hi *= 1.1;
    std::ostringstream svg;
    open(svg, f, "The loop's pick per batch, over the V100 pick (batch 0)");
    valueAxis(svg, f, lo, hi, "pick runtime / V100 pick, log scale", true);
    const auto x = [&](double batch) {
        return f.left + (batches > 1 ? f.plotWidth() * batch / double(batches - 1) : f.plotWidth() / 2);
    };
    const auto y = [&](double v) {
        return f.top + f.plotHeight() * (1 - (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo)));
    };
    for (size_t b = 0; b < batches; b++)
        svg << "<text x=\"" << num(x(double(b))) << "\" y=\"" << num(f.top + f.plotHeight() + 18)
            << "\" text-anchor=\"middle\">" << b << "</text>\n";
    svg << "<text x=\"" << num(f.left + f.plotWidth() / 2) << "\" y=\"" << num(f.height - 8)
        << "\" text-anchor=\"middle\">batch</text>\n";
    for (size_t i = 0; i < report.apps.size(); i++) {
        const AppResult &a = report.apps[i];
        const char *colour = kSeries[i % std::size(kSeries)];
        if (a.loop.empty() || !std::isfinite(a.loop.front().pickMs) || a.loop.front().pickMs <= 0)
            continue;
        std::string points;
        for (const LoopBatch &b : a.loop)
            if (std::isfinite(b.pickMs) && b.pickMs > 0)
                points += num(x(b.batch)) + "," + num(y(b.pickMs / a.loop.front().pickMs)) + " ";
        svg << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\" points=\"" << points << "\"/>\n";
        const double ly = f.top + 14 + 16 * double(i);
        svg << "<rect x=\"" << num(f.width - f.right + 10) << "\" y=\"" << num(ly - 10) << "\" width=\"12\" "
            << "height=\"12\" fill=\"" << colour << "\"/>\n";
        svg << "<text x=\"" << num(f.width - f.right + 26) << "\" y=\"" << num(ly) << "\">" << escaped(a.app)
            << "</text>\n";
    }
    svg << "</svg>\n";
    return svg.str();
}

} // namespace beamscope::study
