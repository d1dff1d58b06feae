// SPDX-License-Identifier: MIT
// tilescope: the desktop app. `tilescope [TRACE] [--screenshot FILE]`; with no TRACE it opens the
// bundled H200 sample so every panel has something to show.
#include "mainwindow.h"
#include "version.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
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
    parser.process(app);

    MainWindow window;
    if (parser.isSet(screenshot))
        window.screenshotWhenLoaded(parser.value(screenshot));
    window.show();
    const QStringList files = parser.positionalArguments();
    if (files.isEmpty())
        window.openBundledSample();
    else
        window.openFile(files.first());
    return app.exec();
}
