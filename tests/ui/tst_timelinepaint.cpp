// SPDX-License-Identifier: MIT
// The timeline's cached, padded draw windows at the pixel level: after every pan and zoom of a walk, the
// frame painted from windows built for earlier views equals the frame painted from windows built afresh
// for this view, so nothing goes missing or stale at the view's edges; with one trace and with the four
// ranks of a run in one view (their lanes share track numbers, so a window must not serve another rank).
#include "testutil.h"

#include "timelineview.h"
#include "tracedocument.h"

#include <QImage>
#include <QtTest>

namespace {

std::shared_ptr<const TraceDocument> load(const std::string& path)
{
    tilescope::trace::LoadOptions options;
    return TraceDocument::build(QString::fromStdString(path), {}, options);
}

// Two views showing `groups` driven alike: one keeps its windows along the walk, the other drops them
// before each frame. Returns the percentage of lane paints that built a list, -1 on a differing frame.
int walkAndCompare(const std::vector<TimelineView::Group>& groups)
{
    TimelineView view, freshView;
    for (TimelineView* v : {&view, &freshView}) {
        v->resize(1100, 900);
        v->show();
        if (!QTest::qWaitForWindowExposed(v))
            return -1;
        v->setDocuments(groups);
    }
    QImage warm(view.size(), QImage::Format_ARGB32_Premultiplied), fresh(warm.size(), warm.format());
    const int middle = view.canvasLeft() + view.canvasWidth() / 2;
    int frames = 0;
    bool same = true;
    auto step = [&](auto&& move) {
        move(view);
        move(freshView);
        QCoreApplication::processEvents(); // both views lay out alike (a lane list growing shows the scroll bar)
        view.render(&warm);
        freshView.setDrawCacheEnabled(true); // drops every window: this frame's are built for this view
        freshView.render(&fresh);
        ++frames;
        if (same && (warm != fresh || view.viewStart() != freshView.viewStart() || view.nsPerPixel() != freshView.nsPerPixel())) {
            qWarning("frame %d (view %lld..%lld) differs from a fresh one", frames, static_cast<long long>(view.viewStart()),
                     static_cast<long long>(view.viewEnd()));
            same = false;
        }
    };
    // From a fortieth of the trace a fifth of the way in: pans right past the window, back left past it,
    // and zooms in across powers of two, so windows are both reused and left.
    const TraceDocument& doc = *groups.front().document;
    const int64_t first = doc.contentStart, span = doc.contentEnd - doc.contentStart;
    step([&](TimelineView& v) { v.zoomToRange(first + span / 5, first + span / 5 + span / 40); });
    for (int level = 0; level < 5; ++level) {
        for (int i = 0; i < 12; ++i)
            step([&](TimelineView& v) { v.panByPixels(v.canvasWidth() / 8.0); });
        for (int i = 0; i < 6; ++i)
            step([&](TimelineView& v) { v.panByPixels(-v.canvasWidth() / 3.0); });
        for (int i = 0; i < 2; ++i)
            step([&](TimelineView& v) { v.zoomBy(0.7, middle); });
    }
    const auto stats = view.drawCacheStats();
    qInfo("%d frames, %llu lists built for %llu lane paints", frames, static_cast<unsigned long long>(stats.builds),
          static_cast<unsigned long long>(stats.requests));
    return same && frames == 101 ? int(100 * stats.builds / std::max<uint64_t>(1, stats.requests)) : -1;
}

} // namespace

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
        const int built = walkAndCompare({{load(testutil::workloadTrace(workload.toStdString())), QString(), false}});
        QVERIFY2(built >= 0, "a frame painted from kept windows differs from a fresh one");
        QVERIFY2(built < 30, "most lane paints should have used windows built earlier");
    }

    void severalRanksInOneView()
    {
        std::vector<TimelineView::Group> groups;
        for (int rank = 0; rank < 4; ++rank)
            groups.push_back({load(testutil::dataPath("ranks/gloo/slow/rank-" + std::to_string(rank) + ".json.gz")),
                              QStringLiteral("rank %1").arg(rank), rank == 2});
        const int built = walkAndCompare(groups);
        QVERIFY2(built >= 0, "a frame painted from kept windows differs from a fresh one");
        QVERIFY2(built < 30, "most lane paints should have used windows built earlier");
    }

    // The arrows from a selected kernel to its launch stay on the canvas when the launch lies left of the view
    // (they ran across the lanes' names).
    void selectionArrowsStayOnTheCanvas()
    {
        const auto doc = load(testutil::workloadTrace("gemm_compare"));
        const tilescope::trace::Trace& t = *doc->trace;
        uint32_t kernel = tilescope::trace::kNoIndex;
        for (uint32_t i = 0; i < t.events.size() && kernel == tilescope::trace::kNoIndex; ++i)
            if (t.events[i].kind == tilescope::trace::EventKind::Kernel && t.launchOf(i) != tilescope::trace::kNoIndex
                && t.events[t.launchOf(i)].start < t.events[i].start)
                kernel = i;
        QVERIFY(kernel != tilescope::trace::kNoIndex);
        const auto& k = t.events[kernel];
        const auto& launch = t.events[t.launchOf(kernel)];
        TimelineView view;
        view.resize(1100, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setDocuments({{doc, QString(), false}});
        view.selectEvent(kernel, false);
        view.zoomToRange((launch.start + k.start) / 2, k.end() + k.duration);
        QCoreApplication::processEvents();
        QVERIFY(view.viewStart() > launch.start && view.viewStart() < k.start); // the premise: launch left of the view
        QImage frame(view.size(), QImage::Format_ARGB32_Premultiplied);
        view.render(&frame);
        // The arrows' red, antialiased edges included; the exact pen colour counts that one was drawn.
        const auto arrowRed = [](QRgb c) { return qRed(c) > 180 && qGreen(c) < 110 && qBlue(c) < 110; };
        int exact = 0;
        for (int y = 0; y < frame.height(); ++y)
            for (int x = view.canvasLeft(); x < view.width(); ++x)
                exact += frame.pixel(x, y) == qRgb(220, 40, 40);
        int onLabels = 0, onCanvas = 0;
        for (int y = 0; y < frame.height(); ++y)
            for (int x = 0; x < view.width(); ++x)
                if (arrowRed(frame.pixel(x, y)))
                    ++(x < view.canvasLeft() ? onLabels : onCanvas);
        QVERIFY(onCanvas > 0);
        QVERIFY(exact > 10); // the arrow is drawn
        QCOMPARE(onLabels, 0);
    }
};

QTEST_MAIN(TestTimelinePaint)
#include "tst_timelinepaint.moc"
