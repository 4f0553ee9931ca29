#include "app/cli/halide/svg_png.h"

#ifdef BEAMSCOPE_CLI_RENDERS_SVG
#include <QBuffer>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>

#include "core/util/atomic_file.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#endif

namespace beamscope::cli {

#ifdef BEAMSCOPE_CLI_RENDERS_SVG
namespace {

// Text needs Qt's font database, which needs a QGuiApplication; a command-line
// run has no display, so it gets the offscreen platform unless told otherwise.
void ensureGuiApplication()
{
    if (QGuiApplication::instance())
        return;
    if (!std::getenv("QT_QPA_PLATFORM"))
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    // The offscreen platform's note about a missing XDG_RUNTIME_DIR says nothing about the plots.
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext &, const QString &message) {
        if (!message.startsWith(QLatin1String("QStandardPaths:")))
            std::fprintf(stderr, "beamscope-cli: Qt %s: %s\n", type == QtWarningMsg ? "warning" : "message",
                         qPrintable(message));
    });
    static int argc = 1;
    static char name[] = "beamscope-cli";
    static char *argv[] = {name, nullptr};
    static std::unique_ptr<QGuiApplication> app = std::make_unique<QGuiApplication>(argc, argv);
}

bool render(const std::string &svg, const std::filesystem::path &png)
{
    ensureGuiApplication();
    QSvgRenderer renderer(QByteArray::fromStdString(svg));
    if (!renderer.isValid())
        return false;
    QImage image(renderer.defaultSize() * 2, QImage::Format_ARGB32);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        renderer.render(&painter);
    }
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG"))
        return false;
    return writeFileAtomically(png, std::span<const char>(bytes.constData(), static_cast<size_t>(bytes.size())),
                               Overwrite::Replace)
        .ok;
}

} // namespace
#endif

std::function<bool(const std::string &, const std::filesystem::path &)> svgToPngRenderer()
{
#ifdef BEAMSCOPE_CLI_RENDERS_SVG
    return render;
#else
    return {};
#endif
}

} // namespace beamscope::cli
