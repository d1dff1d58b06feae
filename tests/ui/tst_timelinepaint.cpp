// SPDX-License-Identifier: MIT
// The timeline's cached, padded draw windows at the pixel level: after every pan and zoom of a walk, the
// frame painted from windows built for earlier views equals the frame painted from windows built afresh
// for this view, so nothing goes missing or stale at the view's edges.
#include "testutil.h"

#include "timelineview.h"
#include "tracedocument.h"

#include <QImage>
#include <QtTest>

class TestTimelinePaint : public QObject
{
    Q_OBJECT
private slots:
    void cachedFramesEqualFreshFrames_data()
    {
        QTest::addColumn<QString>("workload");
        for (const char* w : {"launch_bound", "train_scheduled", "streams_overlap"})
            QTest::newRow(w) << QString::fromLatin1(w);
    }
    void cachedFramesEqualFreshFrames()
    {
        QFETCH(QString, workload);
        tilescope::trace::LoadOptions options;
        const auto doc = TraceDocument::build(QString::fromStdString(testutil::workloadTrace(workload.toStdString())), {}, options);
        // Two views driven alike: `view` keeps its windows along the walk, `fresh` drops them before each frame.
        TimelineView view, freshView;
        for (TimelineView* v : {&view, &freshView}) {
            v->resize(1100, 900);
            v->show();
            QVERIFY(QTest::qWaitForWindowExposed(v));
            v->setDocument(doc);
        }
        QImage warm(view.size(), QImage::Format_ARGB32_Premultiplied), fresh(warm.size(), warm.format());
        const int middle = view.canvasLeft() + view.canvasWidth() / 2;
        int frames = 0, reused = 0;
        auto step = [&](auto&& move) {
            move(view);
            move(freshView);
            QCOMPARE(freshView.viewStart(), view.viewStart());
            QCOMPARE(freshView.nsPerPixel(), view.nsPerPixel());
            const auto before = view.drawCacheStats();
            view.render(&warm);
            reused += view.drawCacheStats().builds == before.builds;
            freshView.setDrawCacheEnabled(true); // drops every window: this frame's are built for this view
            freshView.render(&fresh);
            ++frames;
            if (warm != fresh)
                QFAIL(qPrintable(QStringLiteral("frame %1 (view %2..%3) differs from a fresh one")
                                     .arg(frames)
                                     .arg(view.viewStart())
                                     .arg(view.viewEnd())));
        };
        // From a fortieth of the trace a fifth of the way in: pans right past the window, back left past it,
        // and zooms in across powers of two, so windows are both reused and left.
        const int64_t first = doc->contentStart, span = doc->contentEnd - doc->contentStart;
        step([&](TimelineView& v) { v.zoomToRange(first + span / 5, first + span / 5 + span / 40); });
        for (int level = 0; level < 5; ++level) {
            for (int i = 0; i < 12; ++i)
                step([&](TimelineView& v) { v.panByPixels(v.canvasWidth() / 8.0); });
            for (int i = 0; i < 6; ++i)
                step([&](TimelineView& v) { v.panByPixels(-v.canvasWidth() / 3.0); });
            for (int i = 0; i < 2; ++i)
                step([&](TimelineView& v) { v.zoomBy(0.7, middle); });
        }
        QCOMPARE(frames, 101);
        qInfo("%d frames, %d painted from earlier windows", frames, reused);
        QVERIFY2(reused > frames / 2, "most frames should have been painted from windows built earlier");
    }
};

QTEST_MAIN(TestTimelinePaint)
#include "tst_timelinepaint.moc"
