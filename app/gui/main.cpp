// SPDX-License-Identifier: MIT
// tilescope: the desktop app. `tilescope [TRACE] [--screenshot FILE]`; with no TRACE it opens the
// bundled H200 sample so every panel has something to show.
#include "mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("TileScope"));
    QApplication::setApplicationName(QStringLiteral("TileScope"));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Trace viewer and profiler for TileLang and PyTorch GPU programs"));
    parser.addHelpOption();
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
