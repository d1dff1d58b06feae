// SPDX-License-Identifier: MIT
// Opens a trace the way the app does (MainWindow::openFile: TraceLoadJob, TraceDocument, the docks) in an
// offscreen window and prints the wall time to the timeline's first painted frame, the time until every
// background analysis is in, and peak RSS at both moments. Run with QT_QPA_PLATFORM=offscreen;
// tools/bench_firstframe.sh puts it beside the bare tokenizer scan of the same file.
#include "mainwindow.h"
#include "timelineview.h"
#include "traceloadjob.h"
#include "tracedocument.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>

#include <cstdio>
#include <sys/resource.h>

namespace {

double peakRssMb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: QT_QPA_PLATFORM=offscreen bench_firstframe TRACE\n");
        return 2;
    }
    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    QCoreApplication::processEvents();
    QElapsedTimer clock;
    bool painted = false;
    // The first frame: the window's document can draw the timeline; paint it now, synchronously.
    auto paintFirstFrame = [&] {
        if (painted || !window.document())
            return;
        window.timeline()->viewport()->repaint();
        painted = true;
        const double seconds = double(clock.nsecsElapsed()) / 1e9;
        std::printf("first-frame %.3f s  peak RSS %.0f MB  events %zu  analysed %s\n", seconds, peakRssMb(),
                    window.document()->trace->events.size(), window.document()->analysed ? "yes" : "no");
        std::fflush(stdout);
    };
    QObject::connect(&window, &MainWindow::firstFrameShown, &app, paintFirstFrame);
    // Each analysis step's share, from the job's progress (steps are reported when they start).
    QString step;
    qint64 stepStart = 0;
    QObject::connect(window.loadJob(), &TraceLoadJob::analysisProgress, &app, [&](int, int, const QString& what) {
        const qint64 now = clock.nsecsElapsed();
        if (!step.isEmpty())
            std::printf("  %-28s %.3f s  peak RSS %.0f MB\n", qPrintable(step), double(now - stepStart) / 1e9, peakRssMb());
        step = what;
        stepStart = now;
    });
    // When each group of analyses has been handed to the docks (this runs after the window's own slot).
    QObject::connect(window.loadJob(), &TraceLoadJob::analysed, &app,
                     [&] { std::printf("  docks updated at %.3f s\n", double(clock.nsecsElapsed()) / 1e9); });
    QObject::connect(&window, &MainWindow::documentChanged, &app, [&] {
        paintFirstFrame(); // a document that arrives complete
        const double seconds = double(clock.nsecsElapsed()) / 1e9;
        std::printf("analysed %.3f s  peak RSS %.0f MB\n", seconds, peakRssMb());
        QCoreApplication::exit(0);
    });
    QObject::connect(window.loadJob(), &TraceLoadJob::failed, &app, [](const QString& path, const QString& message) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(path), qPrintable(message));
        QCoreApplication::exit(1);
    });
    clock.start();
    window.openFile(QString::fromLocal8Bit(argv[1]));
    return QApplication::exec();
}
