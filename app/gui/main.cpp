// SPDX-License-Identifier: MIT
// tilescope: the desktop app. `tilescope [TRACE] [--screenshot FILE]`; with no TRACE it opens the
// bundled H200 sample so every panel has something to show. `tilescope --report-images DIR TRACE` draws the
// report's pictures offscreen into DIR and exits: what `tilescope-cli report` runs, so the CLI needs no Qt.
#include "mainwindow.h"
#include "reportimages.h"
#include "screenfit.h"
#include "sortarrowstyle.h"
#include "version.h"

#include "io/tracefileerror.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QScreen>

#include <cstring>
#include <iostream>
#include <stdexcept>

namespace {

bool asksForReportImages(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--report-images") == 0 || std::strncmp(argv[i], "--report-images=", 16) == 0)
            return true;
    return false;
}

// Qt's notes about the headless platform (no XDG_RUNTIME_DIR, no window manager hints) mean nothing to
// someone who asked for files; critical messages still reach stderr.
void quietQtMessages(QtMsgType type, const QMessageLogContext&, const QString& message)
{
    if (type == QtCriticalMsg || type == QtFatalMsg)
        std::cerr << "tilescope: Qt: " << message.toStdString() << "\n";
}

int writeReportImages(const QCommandLineParser& parser, const QString& dir, bool partial, const QString& gpu)
{
    const QStringList files = parser.positionalArguments();
    if (files.size() != 1) {
        std::cerr << "tilescope: --report-images DIR needs one TRACE\n";
        return 2;
    }
    try {
        writeReportImagesOf(files.first().toStdString(), dir.toStdString(), partial, gpu.toStdString());
    } catch (const std::invalid_argument& e) {
        std::cerr << "tilescope: --gpu: " << e.what() << "\n";
        return 2;
    } catch (const tilescope::io::TraceFileError& e) {
        std::cerr << "tilescope: error: " << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "tilescope: internal error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    const bool reportImages = asksForReportImages(argc, argv);
    if (reportImages) { // files only: no window, on a box with no display too, whatever platform is set
        qputenv("QT_QPA_PLATFORM", "offscreen");
        qInstallMessageHandler(quietQtMessages);
    }
    QApplication app(argc, argv);
    QApplication::setStyle(new SortArrowStyle); // the platform's style, its sort arrows the way the values go
    QApplication::setOrganizationName(QStringLiteral("TileScope"));
    QApplication::setApplicationName(QStringLiteral("TileScope"));
    QApplication::setApplicationVersion(
        QStringLiteral("%1 (commit %2)").arg(QLatin1String(tilescope::kVersion), QLatin1String(tilescope::kCommit)));
    // The installed icon (packaging/icons, hicolor theme) and .desktop file, so window managers match them.
    QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral("tilescope")));
    QApplication::setDesktopFileName(QStringLiteral("tilescope"));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Trace viewer and profiler for TileLang and PyTorch GPU programs"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("trace"), QStringLiteral("A torch.profiler / Chrome trace (.json or .json.gz)"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"), QStringLiteral("Render the window with the trace to a PNG and exit."),
                                        QStringLiteral("file"));
    parser.addOption(screenshot);
    const QCommandLineOption reportImagesOption(
        QStringLiteral("report-images"),
        QStringLiteral("Draw the report's pictures of TRACE (timeline, roofline, memory) offscreen into DIR as PNG files "
                       "with images.json, and exit; tilescope-cli report runs this."),
        QStringLiteral("dir"));
    parser.addOption(reportImagesOption);
    const QCommandLineOption partial(QStringLiteral("partial"),
                                     QStringLiteral("With --report-images: keep the complete events of a truncated trace."));
    parser.addOption(partial);
    const QCommandLineOption gpu(
        QStringLiteral("gpu"),
        QStringLiteral("With --report-images: the GPU of a trace without deviceProperties, as tilescope-cli's --gpu."),
        QStringLiteral("name"));
    parser.addOption(gpu);
    parser.process(app);
    if (reportImages)
        return writeReportImages(parser, parser.value(reportImagesOption), parser.isSet(partial), parser.value(gpu));

    MainWindow window;
    if (parser.isSet(screenshot)) {
        window.screenshotWhenLoaded(parser.value(screenshot)); // the default size, whatever the screen
        window.show();
    } else if (const WindowPlacement place = placeWindow(window.screen()->availableGeometry().size(), window.size()); place.maximized) {
        // A screen with less room than the default window and its frame (a 1366x768 laptop's).
        if (place.shortScreenLayout)
            window.useShortScreenLayout();
        window.resize(place.size); // the docks' first heights are shared out of this
        window.showMaximized();
    } else
        window.show();
    const QStringList files = parser.positionalArguments();
    if (files.isEmpty())
        window.openBundledSample();
    else
        window.openFile(files.first());
    return app.exec();
}
