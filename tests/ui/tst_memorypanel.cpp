// SPDX-License-Identifier: MIT
// The memory graph as a user meets it: under the timeline on its time axis, the peak and the steps drawn,
// a click selecting the op that was running then, wheel and drag moving the timeline, a Shift+drag range
// shared with it; a plain sentence for a trace without [memory] events; the events table and its per-op
// statistics; the allocator snapshot view.
#include "testutil.h"
#include "uitestutil.h"

#include "mainwindow.h"
#include "memory/allocatorsnapshot.h"
#include "memory/epochtime.h"
#include "memory/memorytimeline.h"
#include "segmentmap.h"
#include "snapshotview.h"
#include "memoryeventsmodel.h"
#include "memoryeventspanel.h"
#include "memoryband.h"
#include "memorypanel.h"
#include "timelineview.h"
#include "tracedocument.h"

#include <QAbstractItemModelTester>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>

#undef QT_NO_FOREACH
#include <qcustomplot.h>
#include <QTextBrowser>
#include <QtTest>

using namespace tilescope;

namespace {

// The deepest host op on `track` whose [start, end) holds `time`, by a plain scan of every event.
uint32_t innermostByScan(const trace::Trace& t, trace::TrackId track, int64_t time)
{
    uint32_t best = trace::kNoIndex;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const trace::Event& e = t.events[i];
        if (e.track != track || !(e.kind == trace::EventKind::CpuOp || e.kind == trace::EventKind::UserAnnotation))
            continue;
        if (e.start <= time && time < e.end() && (best == trace::kNoIndex || e.depth > t.events[best].depth))
            best = i;
    }
    return best;
}

} // namespace

class TestMemoryPanel : public QObject
{
    Q_OBJECT
private slots:
    void graphUnderTheTimeline()
    {
        MainWindow w;
        testutil::showExposed(w, {1600, 1000});
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("memory_churn")));
        MemoryPanel* panel = w.memory();
        QVERIFY(panel->hasData());
        QVERIFY(panel->emptyMessage().isEmpty());
        QVERIFY(panel->isVisible());
        QCustomPlot* plot = panel->plot();
        QTRY_VERIFY(plot->plottableCount() >= 2); // cuda:0 allocated and reserved
        const memory::MemoryAnalysis& analysis = w.document()->memory;
        // The graph spans the timeline's view and starts where its canvas starts.
        QCOMPARE(panel->timeAtPixel(plot->axisRect()->left()), w.timeline()->viewStart());
        const int timelineX = w.timeline()->viewport()->mapTo(&w, QPoint(w.timeline()->canvasLeft(), 0)).x();
        QCOMPARE(plot->mapTo(&w, QPoint(plot->axisRect()->left(), 0)).x(), timelineX);
        QCOMPARE(plot->axisRect()->width(), w.timeline()->canvasWidth()); // so the right edges meet too
        QVERIFY(std::abs(panel->timeAtPixel(plot->axisRect()->right()) - w.timeline()->viewEnd())
                <= int64_t(2 * w.timeline()->nsPerPixel()));
        // Per-pixel summaries: at most three points per column, whatever the number of records.
        QVERIFY(panel->drawnPoints() > 0);
        QVERIFY2(panel->drawnPoints() <= plot->axisRect()->width() + 2, qPrintable(QString::number(panel->drawnPoints())));
        // The highest point drawn is the recorded peak.
        const memory::DeviceMemory& device = analysis.devices.front();
        const double drawnMax = panel->allocatedBand(0)->highest();
        QCOMPARE(plot->yAxis->label(), QStringLiteral("GiB")); // reserved peaks at 2 GiB
        QCOMPARE(drawnMax * double(1 << 30), double(device.peakAllocated));
        // The legend is above the plot, not on the curves: every named curve and category listed there.
        QVERIFY(!plot->legend->visible());
        for (int i = 0; i < plot->plottableCount(); ++i)
            if (!plot->plottable(i)->name().isEmpty())
                QVERIFY2(panel->legendText().contains(plot->plottable(i)->name().toHtmlEscaped()), qPrintable(plot->plottable(i)->name()));
        QVERIFY(panel->legendText().contains(QStringLiteral("allocated (peak ")));

        // A click at the peak selects the op running on the allocating thread then.
        const memory::MemorySample& peak = *device.peakSample();
        const trace::Trace& t = *w.document()->trace;
        const uint32_t expected = innermostByScan(t, t.memory[peak.record].track, peak.time);
        QVERIFY(expected != trace::kNoIndex);
        QCOMPARE(panel->opAt(peak.time, double(peak.allocated)), expected);
        plot->replot();
        const QPoint at(int(std::lround(panel->pixelOfTime(peak.time))), int(std::lround(plot->yAxis->coordToPixel(drawnMax))));
        QSignalSpy selected(w.timeline(), &TimelineView::eventSelected);
        QTest::mouseClick(plot, Qt::LeftButton, {}, at);
        QVERIFY(!selected.isEmpty());
        // On the peak's marker the click means the peak's op, though the time under the pixel runs on past it.
        QCOMPARE(device.peakOp, expected);
        QCOMPARE(w.timeline()->selectedEvent(), expected);
        // So does a click on the peak's label, beside the marker.
        QCPItemText* label = nullptr;
        for (int i = 0; i < plot->itemCount(); ++i)
            if (auto* text = qobject_cast<QCPItemText*>(plot->item(i)); text && text->text().startsWith(QStringLiteral("peak ")))
                label = text;
        QVERIFY(label);
        const QPointF labelCentre = (label->topLeft->pixelPosition() + label->bottomRight->pixelPosition()) / 2;
        QVERIFY(std::abs(labelCentre.x() - at.x()) > 20);
        w.timeline()->selectEvent(trace::kNoIndex, false);
        QTest::mouseClick(plot, Qt::LeftButton, {}, labelCentre.toPoint());
        QCOMPARE(w.timeline()->selectedEvent(), expected);
        QCOMPARE(panel->peakOpAt(labelCentre), expected);
        // Beside the label, away from the marker, the click is the curve's.
        const QRectF box = QRectF(label->topLeft->pixelPosition(), label->bottomRight->pixelPosition()).normalized();
        const double farEnd = std::abs(box.left() - at.x()) > std::abs(box.right() - at.x()) ? box.left() - 5 : box.right() + 5;
        QCOMPARE(panel->peakOpAt(QPointF(farEnd, box.center().y())), trace::kNoIndex);
        QCOMPARE(panel->peakOpAt(QPointF(plot->axisRect()->left() + 2, plot->axisRect()->bottom() - 2)), trace::kNoIndex);

        // The wheel zooms the timeline around the time under the mouse; the graph follows.
        const int64_t spanBefore = w.timeline()->viewEnd() - w.timeline()->viewStart();
        QWheelEvent wheel(QPointF(at), plot->mapToGlobal(QPointF(at)), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(plot, &wheel);
        QTRY_VERIFY(w.timeline()->viewEnd() - w.timeline()->viewStart() < spanBefore);
        QTRY_COMPARE(panel->timeAtPixel(plot->axisRect()->left()), w.timeline()->viewStart());
        QVERIFY(panel->drawnPoints() <= plot->axisRect()->width() + 2);

        // Shift+drag selects a range for the whole window.
        const int y = plot->axisRect()->center().y();
        const int x0 = plot->axisRect()->left() + 50, x1 = plot->axisRect()->left() + 300;
        QTest::mousePress(plot, Qt::LeftButton, Qt::ShiftModifier, QPoint(x0, y));
        QMouseEvent move(QEvent::MouseMove, QPointF(x1, y), plot->mapToGlobal(QPointF(x1, y)), Qt::LeftButton, Qt::LeftButton,
                         Qt::ShiftModifier);
        QApplication::sendEvent(plot, &move);
        QTest::mouseRelease(plot, Qt::LeftButton, Qt::ShiftModifier, QPoint(x1, y));
        QVERIFY(w.timeline()->selectedRange().has_value());
        QCOMPARE(w.timeline()->selectedRange()->first, panel->timeAtPixel(x0));
        QCOMPARE(w.timeline()->selectedRange()->second, panel->timeAtPixel(x1));
    }

    // Each peak's label lies inside the plot and off its marker, in a laptop's window too, where a peak near
    // the top left no room above it (tb_plugin's ResNet-50: its label was cut off under the legend).
    void peakLabelsInsideThePlot_data()
    {
        QTest::addColumn<QString>("trace");
        QTest::addColumn<QSize>("window");
        const QString resnet = QString::fromStdString(testutil::dataPath("external/tb_plugin/resnet50_v100_worker0.pt.trace.json.gz"));
        QTest::newRow("resnet50 1366x768") << resnet << QSize(1366, 768);
        QTest::newRow("resnet50 1600x1000") << resnet << QSize(1600, 1000);
        QTest::newRow("memory_churn 1366x768") << QString::fromStdString(testutil::workloadTrace("memory_churn")) << QSize(1366, 768);
    }
    void peakLabelsInsideThePlot()
    {
        QFETCH(QString, trace);
        QFETCH(QSize, window);
        MainWindow w;
        testutil::showExposed(w, window);
        testutil::loadAndWait(w, trace);
        QCustomPlot* plot = w.memory()->plot();
        QTRY_VERIFY(plot->plottableCount() >= 1);
        plot->replot();
        const QRectF area = plot->axisRect()->rect();
        int labels = 0;
        for (int i = 0; i < plot->itemCount(); ++i) {
            const auto* label = qobject_cast<QCPItemText*>(plot->item(i));
            if (!label || !label->text().startsWith(QStringLiteral("peak ")))
                continue;
            ++labels;
            const QRectF box = QRectF(label->topLeft->pixelPosition(), label->bottomRight->pixelPosition()).normalized();
            const QPointF marker = label->position->pixelPosition();
            QVERIFY2(area.contains(box),
                     qPrintable(QStringLiteral("%1: (%2,%3 %4x%5) outside the plot (%6,%7 %8x%9)")
                                    .arg(label->text())
                                    .arg(box.x())
                                    .arg(box.y())
                                    .arg(box.width())
                                    .arg(box.height())
                                    .arg(area.x())
                                    .arg(area.y())
                                    .arg(area.width())
                                    .arg(area.height())));
            // The anchors' box holds the padding that keeps the text off the marker (7 px across).
            const QMargins pad = label->padding();
            const QRectF text = box.adjusted(pad.left(), pad.top(), -pad.right(), -pad.bottom());
            QVERIFY2(!text.adjusted(-3, -3, 3, 3).contains(marker), qPrintable(label->text()));
            // Its box is filled, to read over the curves, on a layer above every other item (step names, OOM lines),
            // and the markers on one above it stay whole on top.
            QVERIFY(label->brush().style() != Qt::NoBrush);
            QCOMPARE(label->layer()->name(), QStringLiteral("peakLabels"));
            for (int j = 0; j < plot->itemCount(); ++j) {
                QCPAbstractItem* other = plot->item(j);
                if (qobject_cast<QCPItemTracer*>(other))
                    QVERIFY(other->layer()->index() > label->layer()->index());
                else if (other->layer() != label->layer())
                    QVERIFY(other->layer()->index() < label->layer()->index());
            }
        }
        QVERIFY(labels >= 1);
    }

    // In a narrow graph the op's name is longer than the room on either side of its peak: it is cut at its end
    // ("peak 2.00 GiB in aten::emp…"), so the label stays inside the plot and its size is never what is lost.
    void peakLabelsShortenedToTheirRoom()
    {
        MainWindow w;
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("memory_churn")));
        MemoryPanel panel;
        panel.resize(200, 220);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setDocument(w.sharedDocument());
        const trace::Trace& t = *w.sharedDocument()->trace;
        panel.setView(t.firstTime(), t.lastTime()); // as the timeline sets it: the whole trace
        QCustomPlot* plot = panel.plot();
        QTRY_VERIFY(plot->plottableCount() >= 1);
        plot->replot();
        checkPeakLabels(plot, true);
        // Narrower still: the size alone where not a letter of the op's name fits.
        panel.resize(150, 220);
        QTest::qWait(20);
        plot->replot();
        checkPeakLabels(plot, false);
    }
    static void checkPeakLabels(QCustomPlot* plot, bool someShortened)
    {
        const QRectF area = plot->axisRect()->rect();
        int shortened = 0;
        for (int i = 0; i < plot->itemCount(); ++i) {
            const auto* label = qobject_cast<QCPItemText*>(plot->item(i));
            if (!label || !label->text().startsWith(QStringLiteral("peak ")))
                continue;
            const QRectF box = QRectF(label->topLeft->pixelPosition(), label->bottomRight->pixelPosition()).normalized();
            QVERIFY2(box.left() >= area.left() - 0.5 && box.right() <= area.right() + 0.5, qPrintable(label->text()));
            // The size is whole, the op's name cut at its end: "peak 864.0 MiB in aten::em…".
            QVERIFY2(QRegularExpression(QStringLiteral("^peak [0-9.]+ [KMG]?i?B( in .+)?$")).match(label->text()).hasMatch(),
                     qPrintable(label->text()));
            if (label->text().endsWith(QChar(0x2026)))
                ++shortened;
        }
        QVERIFY(!someShortened || shortened >= 1);
    }

    // The panel's queued redraws (on a resize: the legend above the plot changes height with the document) may
    // land after the document went or on a trace with no graph: nothing is drawn, nothing read (a null
    // document was dereferenced there once, under a range's work and a new trace, tst_rangestress).
    void queuedRedrawAfterTheDocumentWent()
    {
        MainWindow w;
        testutil::showExposed(w, {1600, 1000});
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("memory_churn")));
        MemoryPanel own; // a panel of its own: the window's keeps the window's document
        MemoryPanel* panel = &own;
        panel->resize(900, 200);
        panel->show();
        QVERIFY(QTest::qWaitForWindowExposed(panel));
        for (int i = 0; i < 3; ++i) {
            panel->setDocument(w.sharedDocument());
            QTest::qWait(20);
            QVERIFY(panel->hasData());
            panel->plot()->resize(panel->plot()->width() - 10, panel->plot()->height() + 7); // queues a redraw
            panel->setDocument(nullptr);
            QTest::qWait(20);
            QVERIFY(!panel->hasData());
        }
    }

    void withoutProfileMemoryASentence()
    {
        MainWindow w;
        testutil::showExposed(w);
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("launch_bound")));
        QVERIFY(!w.memory()->hasData());
        QVERIFY2(w.memory()->emptyMessage().contains(QStringLiteral("without profile_memory=True")),
                 qPrintable(w.memory()->emptyMessage()));
        QVERIFY(w.memory()->height() <= 48);
    }

    void stepsAndTwoThreads()
    {
        const auto doc = TraceDocument::build(QString::fromStdString(testutil::workloadTrace("train_scheduled")), {}, {});
        MemoryPanel panel;
        panel.resize(1200, 300);
        panel.setDocument(doc);
        QVERIFY(panel.hasData());
        int stepLines = 0;
        for (int i = 0; i < panel.plot()->itemCount(); ++i)
            stepLines += qobject_cast<QCPItemStraightLine*>(panel.plot()->item(i)) != nullptr;
        QCOMPARE(size_t(stepLines), doc->memory.steps.size() + doc->memory.ooms.size());
        QVERIFY(doc->memory.steps.size() >= 3);
        const QString hover = panel.textAt(doc->memory.devices.front().peakAllocatedTime);
        QVERIFY2(hover.contains(QStringLiteral("cuda:0")), qPrintable(hover));
    }

    // Another run's snapshot beside a trace is not shown as this trace's; the document says why.
    void snapshotOfAnotherRunLeftOut()
    {
        QTemporaryDir dir;
        const QString trace = dir.filePath(QStringLiteral("trace.json"));
        QVERIFY(QFile::copy(QString::fromStdString(testutil::workloadTrace("gemm_compare")), trace));
        QVERIFY(QFile::copy(QString::fromStdString(testutil::dataPath("h200/memory_churn/memory_snapshot.pickle.gz")),
                            dir.filePath(QStringLiteral("other_run.pickle.gz"))));
        const auto doc = TraceDocument::build(trace, {}, {});
        QVERIFY(!doc->memorySnapshot);
        QCOMPARE(doc->memoryFileProblems.size(), size_t(1));
        QVERIFY2(QString::fromStdString(doc->memoryFileProblems.front()).contains(QStringLiteral("another run")),
                 doc->memoryFileProblems.front().c_str());
        // Its own trace beside it takes it.
        QTemporaryDir own;
        QVERIFY(
            QFile::copy(QString::fromStdString(testutil::workloadTrace("memory_churn")), own.filePath(QStringLiteral("trace.json.gz"))));
        QVERIFY(QFile::copy(QString::fromStdString(testutil::dataPath("h200/memory_churn/memory_snapshot.pickle.gz")),
                            own.filePath(QStringLiteral("other_run.pickle.gz"))));
        const auto ownDoc = TraceDocument::build(own.filePath(QStringLiteral("trace.json.gz")), {}, {});
        QVERIFY(ownDoc->memorySnapshot);
        QVERIFY(ownDoc->memoryFileProblems.empty());
    }

    void eventsTable()
    {
        const auto doc = TraceDocument::build(QString::fromStdString(testutil::workloadTrace("memory_churn")), {}, {});
        MemoryEventsPanel panel;
        panel.setDocument(doc);
        QAbstractItemModelTester blocksTester(panel.blocksModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester opsTester(panel.opsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(panel.blocksModel()->rowCount(), int(doc->memory.blocks.size()));
        // memory_churn keeps 10 tensors of 64 MiB: the largest rows, marked live at the end.
        QAbstractItemModel* shown = panel.blocksView()->model();
        int live = 0;
        for (int r = 0; r < shown->rowCount(); ++r)
            live += shown->index(r, MemoryBlocksModel::FreedColumn).data().toString() == QStringLiteral("live at end");
        QCOMPARE(live, 10);
        QCOMPARE(shown->index(0, MemoryBlocksModel::SizeColumn).data().toString(), QStringLiteral("64.0 MiB"));
        // As `tilescope-cli memory` says it: 640 MiB allocated in the trace and never freed, and the allocator's
        // total at the end (672 MiB), which also counts what was there before the trace.
        QVERIFY2(panel.summaryText().contains(QStringLiteral("10 (640.0 MiB) allocated in the trace and never freed")),
                 qPrintable(panel.summaryText()));
        QVERIFY2(panel.summaryText().contains(QStringLiteral("the allocator's total on cuda:0 at the end is 672.0 MiB")),
                 qPrintable(panel.summaryText()));
        // The filter narrows both tables to one op's rows.
        const QString op = panel.opsView()->model()->index(0, MemoryOpsModel::OpColumn).data().toString();
        panel.filter()->setText(op);
        QVERIFY(panel.opsView()->model()->rowCount() >= 1);
        for (int r = 0; r < panel.opsView()->model()->rowCount(); ++r)
            QVERIFY(panel.opsView()->model()->index(r, MemoryOpsModel::OpColumn).data().toString().contains(op, Qt::CaseInsensitive));
        // A click on an allocation names its op's event.
        panel.filter()->clear();
        QSignalSpy clicked(&panel, &MemoryEventsPanel::eventClicked);
        panel.tabs()->setCurrentIndex(1);
        panel.resize(900, 500);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const QRect cell = panel.blocksView()->visualRect(shown->index(0, MemoryBlocksModel::OpColumn));
        QTest::mouseClick(panel.blocksView()->viewport(), Qt::LeftButton, {}, cell.center());
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(doc->trace->name(doc->trace->events[clicked.at(0).at(0).toUInt()]).empty(), false);
    }
    void snapshotView()
    {
        auto snapshot = std::make_shared<const memory::AllocatorSnapshot>(
            memory::loadAllocatorSnapshot(testutil::dataPath("h200/memory_churn/memory_snapshot.pickle.gz")));
        SnapshotView view;
        view.resize(1000, 800);
        view.setSnapshot(snapshot);
        QVERIFY2(view.summaryText().contains(QStringLiteral("3 segments")), qPrintable(view.summaryText()));
        // The largest live blocks: every block not inactive (11), biggest first.
        QCOMPARE(view.largestBlocks()->rowCount(), 11);
        QCOMPARE(view.history()->model()->rowCount(), 1812);
        view.largestBlocks()->setCurrentCell(0, 0);
        QVERIFY2(view.framesText().contains(QStringLiteral("active_allocated")), qPrintable(view.framesText()));
        // The map finds a block under the mouse where the block is drawn.
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        // In a wide, short dock the stack sits beside the tables, not under them (each had a row on a 768 px screen).
        view.resize(1000, 200);
        view.layout()->activate();
        const QWidget* stack = view.findChild<QTextBrowser*>();
        QVERIFY(stack);
        QVERIFY2(
            stack->geometry().top() <= view.tabs()->geometry().bottom()
                && stack->mapTo(&view, QPoint()).x() > view.tabs()->mapTo(&view, QPoint()).x() + view.tabs()->width() - 1,
            qPrintable(QStringLiteral("stack at %1,%2").arg(stack->mapTo(&view, QPoint()).x()).arg(stack->mapTo(&view, QPoint()).y())));
        QVERIFY(view.tabs()->height() >= 60);
        view.resize(1000, 800);
        view.layout()->activate();
        SegmentMap* map = view.segmentMap();
        bool found = false;
        for (int x = SegmentMap::kLabelWidth + 1; x < map->width() && !found; x += 3)
            found = map->blockAt(QPoint(x, SegmentMap::kRowHeight / 2)).has_value();
        QVERIFY(found);
        QVERIFY(view.replotPlot()->graphCount() >= 2);
    }

    // A session folder's memory files open with the trace: the snapshot in its dock, the timeline's
    // categories stacked under the graph, on the trace's clock.
    void memoryFilesBesideTheTrace()
    {
        // All three from one run (an H200 session): a snapshot of another run would be left out.
        QTemporaryDir dir;
        const QString trace = dir.filePath(QStringLiteral("trace.pt.trace.json.gz"));
        for (const char* name : {"trace.pt.trace.json.gz", "memory_timeline.json.gz", "memory_snapshot.pickle.gz"})
            QVERIFY(QFile::copy(QString::fromStdString(testutil::dataPath(std::string("memory/h200_session/") + name)),
                                dir.filePath(QString::fromLatin1(name))));
        MainWindow w;
        testutil::showExposed(w, {1600, 1000});
        testutil::loadAndWait(w, trace);
        QVERIFY(w.document()->memoryTimeline);
        QVERIFY(w.document()->memorySnapshot);
        QVERIFY(w.document()->memoryFileProblems.empty());
        QCOMPARE(w.snapshotView()->snapshot(), w.document()->memorySnapshot);
        QCustomPlot* plot = w.memory()->plot();
        QStringList names;
        for (int g = 0; g < plot->plottableCount(); ++g)
            names << plot->plottable(g)->name();
        QVERIFY2(names.contains(QStringLiteral("parameter")) && names.contains(QStringLiteral("optimizer_state")),
                 qPrintable(names.join(u',')));
        // The stack's top is the row total: its highest point is the timeline's peak total.
        QCPGraph* top = nullptr;
        for (int g = 0; g < plot->graphCount(); ++g)
            if (!plot->graph(g)->name().contains(QStringLiteral("allocated"))
                && !plot->graph(g)->name().contains(QStringLiteral("reserved")))
                top = plot->graph(g);
        double highest = 0;
        for (auto it = top->data()->constBegin(); it != top->data()->constEnd(); ++it)
            highest = std::max(highest, it->value);
        QCOMPARE(highest * w.memory()->bytesPerUnit(), double(memory::peakTotal(*w.document()->memoryTimeline).bytes));
        // The timeline lies on the trace's clock: its first time falls within the trace's span.
        const int64_t first = memory::epochMicrosecondsToTraceNs(w.document()->memoryTimeline->timesUs.front(),
                                                                 w.document()->trace->meta.baseTimeNs);
        QVERIFY(first >= w.document()->trace->firstTime() - 1000000000 && first <= w.document()->trace->lastTime());
    }

    // A timeline of another run beside the trace is not drawn on it; the problem is said instead.
    void memoryTimelineOfAnotherRunBesideTheTrace()
    {
        QTemporaryDir dir;
        const QString trace = dir.filePath(QStringLiteral("trace.json.gz"));
        QVERIFY(QFile::copy(QString::fromStdString(testutil::workloadTrace("train_scheduled")), trace));
        QVERIFY(QFile::copy(QString::fromStdString(testutil::dataPath("memory/hta_memory_timeline.raw.json.gz")),
                            dir.filePath(QStringLiteral("memory_timeline.raw.json.gz"))));
        MainWindow w;
        testutil::loadAndWait(w, trace);
        QVERIFY(!w.document()->memoryTimeline);
        QCOMPARE(w.document()->memoryFileProblems.size(), size_t(1));
        QVERIFY(w.document()->memoryFileProblems[0].find("does not reach into the trace's time span") != std::string::npos);
    }

    // A session recorded on the H200 with --memory-snapshot --memory-timeline (tools/gpu/prove_memory.sh):
    // the leak it builds in, the OOM it provokes, in the graph, the snapshot and the timeline at once.
    void sessionRecordedOnTheH200()
    {
        MainWindow w;
        testutil::showExposed(w, {1600, 1000});
        testutil::loadAndWait(w, QString::fromStdString(testutil::dataPath("memory/h200_session/trace.pt.trace.json.gz")));
        const TraceDocument& doc = *w.document();
        QVERIFY(doc.memoryTimeline && doc.memorySnapshot);
        // The script leaks 4 MiB a step and asks for 1 PiB once.
        const memory::SuspectedLeak* leak = doc.memory.worstLeak();
        QVERIFY(leak);
        QCOMPARE(leak->growthBytesPerStep, int64_t(4) << 20);
        QCOMPARE(doc.memory.ooms.size(), size_t(1));
        QCOMPARE(doc.memory.ooms.front().requestedBytes, int64_t(1) << 50);
        int oomLines = 0;
        for (int i = 0; i < w.memory()->plot()->itemCount(); ++i)
            if (auto* line = qobject_cast<QCPItemStraightLine*>(w.memory()->plot()->item(i)))
                oomLines += line->pen().color() == QColor(Qt::red);
        QCOMPARE(oomLines, 1);
        // Both are the window's headline, beside the overlap figures.
        const QString headline = w.figuresText();
        QVERIFY2(headline.contains(QStringLiteral("suspected leak: cuda:0 grew 4.00 MiB per step")), qPrintable(headline));
        QVERIFY2(headline.contains(QStringLiteral("an out-of-memory request of 1.00 PiB on cuda:0")), qPrintable(headline));
        // The snapshot view opens on the OOM entry with the user's line first.
        QVERIFY2(w.snapshotView()->summaryText().contains(QStringLiteral("out-of-memory")), qPrintable(w.snapshotView()->summaryText()));
        const QString frames = w.snapshotView()->framesText();
        QVERIFY2(frames.startsWith(QStringLiteral("Out of memory on cuda:0: 1.00 PiB requested")), qPrintable(frames));
        QVERIFY2(frames.section(u'\n', 1, 1).contains(QStringLiteral("memory_loop.py")), qPrintable(frames));
    }

    void brokenMemoryFileBesideIsNamedNotFatal()
    {
        QTemporaryDir dir;
        const QString trace = dir.filePath(QStringLiteral("trace.json.gz"));
        QVERIFY(QFile::copy(QString::fromStdString(testutil::workloadTrace("memory_churn")), trace));
        QFile bad(dir.filePath(QStringLiteral("memory_snapshot.pickle")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(QByteArray::fromHex("80049514000000000000008c05706f736978948c0673797374656d9493942e")); // pickle.dumps(os.system)
        bad.close();
        MainWindow w;
        testutil::loadAndWait(w, trace);
        QVERIFY(w.memory()->hasData());
        QVERIFY(!w.document()->memorySnapshot);
        QCOMPARE(w.document()->memoryFileProblems.size(), size_t(1));
        QVERIFY2(QString::fromStdString(w.document()->memoryFileProblems.front()).contains(QStringLiteral("refused")),
                 w.document()->memoryFileProblems.front().c_str());
    }
};

QTEST_MAIN(TestMemoryPanel)
#include "tst_memorypanel.moc"
