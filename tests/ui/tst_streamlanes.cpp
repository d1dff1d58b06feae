// SPDX-License-Identifier: MIT
// The per-stream analyses in the timeline (issue #13), driven as a user would under the offscreen platform: hovering a
// GPU stream's label or an empty stretch of its lane shows its idle split; View > Show Queue Lanes adds a queue lane
// under every stream, drawn as a step chart whose hover names the length at that time; a stream's context menu
// shows or hides its own.
#include "testutil.h"
#include "uitestutil.h"

#include "mainwindow.h"
#include "stats/timetext.h"
#include "timelineview.h"
#include "tracedocument.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMenu>
#include <QMenuBar>
#include <QScrollBar>
#include <QToolTip>
#include <QtTest>

using namespace tilescope;

namespace {

QString toolTipAt(TimelineView* timeline, QPoint at)
{
    QToolTip::hideText();
    QHelpEvent help(QEvent::ToolTip, at, timeline->viewport()->mapToGlobal(at));
    QCoreApplication::sendEvent(timeline->viewport(), &help);
    return QToolTip::isVisible() ? QToolTip::text() : QString();
}

int xOfTime(const TimelineView* timeline, int64_t t)
{
    return timeline->canvasLeft() + int(double(t - timeline->viewStart()) / timeline->nsPerPixel());
}

QAction* menuAction(MainWindow& w, const QString& text)
{
    for (QAction* a : w.menuBar()->findChildren<QAction*>())
        if (a->text() == text)
            return a;
    return nullptr;
}

QString timeText(int64_t ns) { return QString::fromStdString(stats::formatDuration(ns)); }

} // namespace

class TestStreamLanes : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests")); }

    void idleSplitOnHover()
    {
        MainWindow w;
        testutil::showExposed(w);
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("streams_overlap")));
        const TraceDocument* doc = w.document();
        TimelineView* timeline = w.timeline();
        QCOMPARE(doc->streamIdle.streams.size(), size_t(2));
        int streamsSeen = 0;
        for (const TimelineView::Lane& lane : timeline->lanes()) {
            if (lane.kind != TimelineView::Lane::Kind::Track || doc->trace->tracks[lane.id].type != trace::Track::Type::GpuStream)
                continue;
            const analysis::StreamIdle* idle = doc->streamIdleOf(lane.id);
            QVERIFY(idle);
            ++streamsSeen;
            timeline->verticalScrollBar()->setValue(std::max(0, lane.y - timeline->axisHeight()));
            const int y = lane.y - timeline->verticalScrollBar()->value() + 8;
            // The label.
            const QString onLabel = toolTipAt(timeline, QPoint(20, y));
            QVERIFY2(onLabel.contains(QStringLiteral("host wait %1").arg(timeText(idle->hostWaitNs))), qPrintable(onLabel));
            QVERIFY2(onLabel.contains(QStringLiteral("kernel wait %1").arg(timeText(idle->kernelWaitNs))), qPrintable(onLabel));
            QVERIFY2(onLabel.contains(QStringLiteral("other %1").arg(timeText(idle->otherNs))), qPrintable(onLabel));
            // An empty stretch of the lane: the middle of its widest gap, from the trace's own events.
            const auto& events = doc->trace->tracks[lane.id].events;
            int64_t gapStart = 0, gapEnd = 0, busyEnd = doc->trace->events[events.front()].end();
            for (const uint32_t i : events) {
                const trace::Event& e = doc->trace->events[i];
                if (e.start - busyEnd > gapEnd - gapStart)
                    gapStart = busyEnd, gapEnd = e.start;
                busyEnd = std::max(busyEnd, e.end());
            }
            QVERIFY(gapEnd > gapStart);
            timeline->zoomToRange(gapStart - (gapEnd - gapStart), gapEnd + (gapEnd - gapStart));
            const QString onGap = toolTipAt(timeline, QPoint(xOfTime(timeline, (gapStart + gapEnd) / 2), y));
            QVERIFY2(onGap.contains(QStringLiteral("Idle</b> %1").arg(timeText(idle->idleNs))), qPrintable(onGap));
            timeline->fitAll();
        }
        QCOMPARE(streamsSeen, 2);
    }

    void queueLanesOnDemand()
    {
        MainWindow w;
        testutil::showExposed(w);
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("streams_overlap")));
        const TraceDocument* doc = w.document();
        TimelineView* timeline = w.timeline();
        const auto queueLanes = [&] {
            return std::count_if(timeline->lanes().begin(), timeline->lanes().end(),
                                 [](const auto& lane) { return lane.kind == TimelineView::Lane::Kind::Queue; });
        };
        QCOMPARE(queueLanes(), 0);
        QAction* toggle = menuAction(w, QStringLiteral("Show &Queue Lanes"));
        QVERIFY(toggle);
        toggle->trigger();
        QVERIFY(timeline->showQueueLanes());
        QCOMPARE(queueLanes(), long(doc->queue.streams.size()));
        const auto& lanes = timeline->lanes();
        for (size_t i = 0; i < lanes.size(); ++i)
            if (lanes[i].kind == TimelineView::Lane::Kind::Queue) { // right under its stream
                QCOMPARE(lanes[i - 1].kind, TimelineView::Lane::Kind::Track);
                QCOMPARE(lanes[i - 1].id, lanes[i].id);
            }
        // The chart: at the time of the stream's largest length the lane is filled up to its top.
        const TimelineView::Lane* lane = nullptr;
        for (const auto& l : lanes)
            if (l.kind == TimelineView::Lane::Kind::Queue && !lane)
                lane = &l;
        const analysis::StreamQueue* q = doc->queueOf(lane->id);
        QVERIFY(q && q->maxLength >= 1);
        size_t peak = 0;
        for (size_t i = 0; i < q->series.size(); ++i)
            if (q->series[i].length > q->series[peak].length)
                peak = i;
        const int64_t from = q->series[peak].time, to = q->series[peak + 1].time;
        timeline->zoomToRange(from - (to - from), to + (to - from));
        timeline->verticalScrollBar()->setValue(std::max(0, lane->y - timeline->axisHeight()));
        const int top = lane->y - timeline->verticalScrollBar()->value();
        const QImage image = timeline->viewport()->grab().toImage();
        const int x = xOfTime(timeline, (from + to) / 2);
        QCOMPARE(QColor(image.pixel(x, top + 3)), QColor(120, 80, 170)); // filled to the top: the peak
        QVERIFY(QColor(image.pixel(xOfTime(timeline, from - (to - from) / 2), top + 3)) != QColor(120, 80, 170)); // lower before it
        const QString tip = toolTipAt(timeline, QPoint(x, top + 8));
        QVERIFY2(tip.contains(QStringLiteral("queue length %1 at").arg(q->series[peak].length)), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("max %1").arg(q->maxLength)), qPrintable(tip));
        toggle->trigger();
        QCOMPARE(queueLanes(), 0);
    }

    // A stream's context menu shows or hides its own queue lane; the View menu's action stays "all shown".
    void queueLaneFromItsStream()
    {
        MainWindow w;
        testutil::showExposed(w);
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("streams_overlap")));
        const TraceDocument* doc = w.document();
        TimelineView* timeline = w.timeline();
        QAction* all = menuAction(w, QStringLiteral("Show &Queue Lanes"));
        QVERIFY(all && !all->isChecked());
        std::vector<uint32_t> streams; // from the trace: the GPU streams the view shows
        for (const uint32_t track : doc->laneOrder)
            if (doc->trace->tracks[track].type == trace::Track::Type::GpuStream)
                streams.push_back(track);
        QCOMPARE(streams.size(), size_t(2));
        const auto queueLanesOf = [&](uint32_t track) {
            return std::count_if(timeline->lanes().begin(), timeline->lanes().end(),
                                 [&](const auto& l) { return l.kind == TimelineView::Lane::Kind::Queue && l.id == track; });
        };
        const auto queueLanes = [&] {
            return std::count_if(timeline->lanes().begin(), timeline->lanes().end(),
                                 [](const auto& l) { return l.kind == TimelineView::Lane::Kind::Queue; });
        };
        // Right-clicks a lane (its label or its canvas) and triggers the menu entry named `entry`.
        const auto choose = [&](TimelineView::Lane::Kind kind, uint32_t id, int x, const QString& entry) {
            const TimelineView::Lane* lane = nullptr;
            for (const auto& l : timeline->lanes())
                if (l.kind == kind && l.id == id && !lane)
                    lane = &l;
            QVERIFY(lane);
            timeline->verticalScrollBar()->setValue(std::max(0, lane->y - timeline->axisHeight()));
            const QPoint at(x, lane->y - timeline->verticalScrollBar()->value() + 6);
            QContextMenuEvent menuEvent(QContextMenuEvent::Mouse, at, timeline->viewport()->mapToGlobal(at));
            QCoreApplication::sendEvent(timeline->viewport(), &menuEvent);
            QMenu* menu = nullptr;
            for (QMenu* m : timeline->findChildren<QMenu*>())
                if (m->isVisible())
                    menu = m;
            QVERIFY(menu);
            QStringList texts;
            QAction* chosen = nullptr;
            for (QAction* a : menu->actions()) {
                texts << a->text();
                if (a->text() == entry)
                    chosen = a;
            }
            QVERIFY2(chosen, qPrintable(texts.join(QLatin1Char('|'))));
            chosen->trigger();
            menu->close();
        };
        // The first stream's lane, on its canvas: exactly one queue lane, right under that stream.
        choose(TimelineView::Lane::Kind::Track, streams[0], timeline->canvasLeft() + 50, QStringLiteral("Show Queue Lane"));
        QCOMPARE(queueLanes(), 1L);
        QCOMPARE(queueLanesOf(streams[0]), 1L);
        for (size_t i = 1; i < timeline->lanes().size(); ++i)
            if (timeline->lanes()[i].kind == TimelineView::Lane::Kind::Queue) {
                QCOMPARE(timeline->lanes()[i - 1].kind, TimelineView::Lane::Kind::Track);
                QCOMPARE(timeline->lanes()[i - 1].id, streams[0]);
            }
        QVERIFY(!all->isChecked() && !timeline->showQueueLanes());
        // The second one from its label: now every stream shows its queue, and the View action says so.
        choose(TimelineView::Lane::Kind::Track, streams[1], 20, QStringLiteral("Show Queue Lane"));
        QCOMPARE(queueLanes(), 2L);
        QCOMPARE(queueLanesOf(streams[1]), 1L);
        QVERIFY(all->isChecked() && timeline->showQueueLanes());
        // Hiding the first from its queue lane leaves the second's, and unchecks the action only.
        choose(TimelineView::Lane::Kind::Queue, streams[0], timeline->canvasLeft() + 50, QStringLiteral("Hide Queue Lane"));
        QCOMPARE(queueLanes(), 1L);
        QCOMPARE(queueLanesOf(streams[1]), 1L);
        QVERIFY(!all->isChecked());
        // The GPU's header: all of its streams' at once.
        const uint32_t gpu = doc->trace->tracks[streams[0]].process;
        QCOMPARE(doc->trace->tracks[streams[1]].process, gpu);
        choose(TimelineView::Lane::Kind::Header, gpu, 20, QStringLiteral("Show Queue Lanes"));
        QCOMPARE(queueLanes(), 2L);
        QVERIFY(all->isChecked());
        choose(TimelineView::Lane::Kind::Header, gpu, 20, QStringLiteral("Hide Queue Lanes"));
        QCOMPARE(queueLanes(), 0L);
        QVERIFY(!all->isChecked());
        // The action shows and hides them all.
        all->trigger();
        QCOMPARE(queueLanes(), 2L);
        all->trigger();
        QCOMPARE(queueLanes(), 0L);
    }
};

QTEST_MAIN(TestStreamLanes)
#include "tst_streamlanes.moc"
