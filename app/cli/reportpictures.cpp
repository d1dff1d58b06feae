// SPDX-License-Identifier: MIT
// `report` in a Qt build: the app's widgets draw the pictures on the offscreen platform.
#include "reportcommand.h"

#include "reportimages.h"
#include "tracedocument.h"

#include <QApplication>

#include <iostream>

namespace tilescope::cli {

namespace {
// Qt's notes about the headless platform (no XDG_RUNTIME_DIR, no window manager hints) mean nothing to a
// CLI user; critical messages still reach stderr.
void quietQtMessages(QtMsgType type, const QMessageLogContext&, const QString& message)
{
    if (type == QtCriticalMsg || type == QtFatalMsg)
        std::cerr << "tilescope-cli: Qt: " << message.toStdString() << "\n";
}
} // namespace

int runReportWithPictures(const std::string& tracePath, const std::string& out, bool partial)
{
    qInstallMessageHandler(quietQtMessages);
    // Only this command makes a QApplication, and on the offscreen platform: a GPU box has no display.
    char name[] = "tilescope-cli", platformOption[] = "-platform", platform[] = "offscreen";
    char* argv[] = {name, platformOption, platform, nullptr};
    int argc = 3;
    QApplication app(argc, argv);
    trace::LoadOptions options;
    options.partial = partial;
    options.keepRawArgs = false; // as the other commands load
    const auto document = TraceDocument::build(QString::fromStdString(tracePath), {}, options);
    for (const std::string& w : document->trace->stats.warnings)
        std::cerr << "tilescope-cli: warning: " << tracePath << ": " << w << "\n";
    const std::vector<answer::ReportImage> images = renderReportImages(document);
    return writeReport(tracePath,
                       {document->trace.get(), &document->averages, &document->overlap, &document->classification, &document->memory},
                       images, out);
}

} // namespace tilescope::cli
