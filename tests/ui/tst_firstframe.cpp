// SPDX-License-Identifier: MIT
// The timeline draws as soon as the events are in, the analyses follow on a worker thread (issue #14):
// a hook holds the analyses back, as a slow analysis would, so the test sees the window in between.
#include "testutil.h"
#include "uitestutil.h"

#include "findingspanel.h"
#include "mainwindow.h"
#include "rooflinepanel.h"
#include "timelineview.h"
#include "traceloadjob.h"
#include "tracedocument.h"

#include <QApplication>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

#include <memory>

using namespace tilescope;

namespace {

// Holds the worker before its analyses until release() (or 60 s, so a failing test cannot hang).
struct AnalysisGate
{
    std::shared_ptr<QSemaphore> open = std::make_shared<QSemaphore>(0);
    std::shared_ptr<std::atomic<int>> passed = std::make_shared<std::atomic<int>>(0);
    std::function<void()> hook() const
    {
        return [open = open, passed = passed] {
            open->tryAcquire(1, 60000);
            ++*passed;
        };
    }
    void release() const { open->release(); }
};

int trackLanes(const TimelineView& timeline)
{
    return int(std::count_if(timeline.lanes().begin(), timeline.lanes().end(),
                             [](const auto& lane) { return lane.kind == TimelineView::Lane::Kind::Track; }));
}

} // namespace

class TestFirstFrame : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests")); }

    void timelineShowsBeforeAnalysesAndDocksFillAfter()
    {
        const std::string path = testutil::workloadTrace("train_scheduled");
        MainWindow w;
        testutil::showExposed(w);
        AnalysisGate gate;
        w.loadJob()->setBeforeAnalysesForTests(gate.hook());
        QSignalSpy firstFrame(&w, &MainWindow::firstFrameShown);
        QSignalSpy changed(&w, &MainWindow::documentChanged);
        QSignalSpy partial(w.loadJob(), &TraceLoadJob::analysed);
        QSignalSpy progress(w.loadJob(), &TraceLoadJob::analysisProgress);
        w.openFile(QString::fromStdString(path));
        QVERIFY(firstFrame.wait(30000));

        // Drawn, with the analyses held back: lanes and a painted timeline, empty docks, no figures yet.
        QVERIFY(w.document());
        QVERIFY(!w.document()->analysed);
        QVERIFY(!w.document()->overlapIndex);
        QVERIFY(trackLanes(*w.timeline()) > 0);
        QVERIFY(w.timeline()->isVisible());
        QVERIFY(!w.timeline()->grab().isNull());
        QCOMPARE(w.table()->model()->rowCount(), 0);
        // Not "no GPU activity" or "no findings" about a trace still being analysed.
        QVERIFY(!w.roofline()->emptyMessage().contains(QStringLiteral("GPU")));
        QVERIFY(!w.findings()->headerText().contains(QStringLiteral("none")));
        QVERIFY(w.figuresText().contains(QStringLiteral("Analysing")));
        QCOMPARE(changed.size(), 0);
        QCOMPARE(partial.size(), 0);
        const trace::Trace* shown = w.document()->trace.get();
        // The user zooms and selects while the analyses run: both stay when the analyses come in.
        const int64_t start = w.document()->contentStart, end = w.document()->contentEnd;
        w.timeline()->zoomToRange(start + (end - start) / 4, start + (end - start) / 2);
        const int64_t viewStart = w.timeline()->viewStart(), viewEnd = w.timeline()->viewEnd();
        const uint32_t selected = w.document()->trace->tracks[w.document()->laneOrder.front()].events.front();
        w.timeline()->selectEvent(selected, false);

        gate.release();
        QVERIFY(changed.wait(60000));
        QCOMPARE(changed.size(), 1);
        QVERIFY(partial.size() >= 1); // docks filled in groups before the last one
        QVERIFY(progress.size() >= 2);
        QVERIFY(w.document()->analysed);
        QCOMPARE(w.document()->trace.get(), shown); // the same trace, not loaded again
        QCOMPARE(w.timeline()->viewStart(), viewStart);
        // The end follows the canvas width, which busy lanes can change by a scroll bar: the scale stays.
        QVERIFY(std::abs(w.timeline()->viewEnd() - viewEnd) <= (viewEnd - viewStart) / 50);
        QCOMPARE(w.timeline()->selectedEvent(), selected);

        // The Key averages dock now lists every cpu_op name of the trace (read from its events here).
        const trace::Trace& t = *w.document()->trace;
        QSet<QString> opNames;
        for (const trace::Event& e : t.events)
            if (t.strings.view(e.category) == "cpu_op")
                opNames.insert(QString::fromUtf8(t.name(e).data(), qsizetype(t.name(e).size())));
        QVERIFY(!opNames.isEmpty());
        QAbstractItemModel* table = w.table()->model();
        QSet<QString> listed;
        for (int r = 0; r < table->rowCount(); ++r)
            listed.insert(table->index(r, 0).data().toString());
        for (const QString& name : opNames)
            QVERIFY2(listed.contains(name), qPrintable(name));
        QVERIFY(!w.figuresText().contains(QStringLiteral("Analysing")));
    }

    void cancelDuringAnalysesKeepsTheTimeline()
    {
        MainWindow w;
        AnalysisGate gate;
        w.loadJob()->setBeforeAnalysesForTests(gate.hook());
        QSignalSpy firstFrame(&w, &MainWindow::firstFrameShown);
        QSignalSpy changed(&w, &MainWindow::documentChanged);
        QSignalSpy cancelled(w.loadJob(), &TraceLoadJob::cancelled);
        w.openFile(QString::fromStdString(testutil::workloadTrace("train_scheduled")));
        QVERIFY(firstFrame.wait(30000));
        w.loadJob()->cancel();
        QCOMPARE(cancelled.size(), 1);
        gate.release();
        QTRY_COMPARE_WITH_TIMEOUT(gate.passed->load(), 1, 10000);
        QTest::qWait(500); // whatever the cancelled worker still posts is dropped
        QCOMPARE(changed.size(), 0);
        QVERIFY(w.document());
        QVERIFY(!w.document()->analysed);
        QVERIFY(trackLanes(*w.timeline()) > 0);
    }

    void closingDuringAnalysesIsSafe()
    {
        AnalysisGate gate;
        auto* w = new MainWindow;
        testutil::showExposed(*w);
        w->loadJob()->setBeforeAnalysesForTests(gate.hook());
        QSignalSpy firstFrame(w, &MainWindow::firstFrameShown);
        w->openFile(QString::fromStdString(testutil::workloadTrace("train_scheduled")));
        QVERIFY(firstFrame.wait(30000));
        delete w; // the window (and its load job) go while the worker still holds the trace
        gate.release();
        QTRY_COMPARE_WITH_TIMEOUT(gate.passed->load(), 1, 10000);
        QTest::qWait(500); // the worker stops at its next step; what it posted finds no window and is dropped
        // A new window opens the same trace to the end.
        MainWindow again;
        testutil::loadAndWait(again, QString::fromStdString(testutil::workloadTrace("train_scheduled")));
        QVERIFY(again.document()->analysed);
    }
};

QTEST_MAIN(TestFirstFrame)
#include "tst_firstframe.moc"
