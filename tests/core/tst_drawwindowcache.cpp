// SPDX-License-Identifier: MIT
// Cached, padded draw windows: what a view draws from the cache equals folding that view directly at the
// cache's power-of-two resolution (an independent linear fold in this file), and the cache is reused while
// a pan stays in its window and a zoom in its power of two.
#include "testutil.h"

#include "timeline/drawwindowcache.h"
#include "timeline/timelineindex.h"
#include "trace/traceloader.h"

#include <QtTest>

#include <cmath>
#include <map>
#include <tuple>

using namespace tilescope;
using timeline::DrawWindowCache;
using Layout = timeline::TimelineIndex::Layout;

namespace {

struct Box
{
    int64_t start, end;
    uint32_t event, count;
    uint16_t depth;
    bool operator==(const Box&) const = default;
};

std::vector<Box> boxesOf(const timeline::DrawList& list)
{
    std::vector<Box> out;
    for (const auto& item : list.items)
        out.push_back({item.start, item.end, item.event, item.count, item.depth});
    return out;
}

// Folding a whole row from its first event, the rule written out as a plain scan: an event at least minNs
// wide (to the latest end so far) is a box of its own; any other starts a fold that takes in each next event
// ending less than minNs after the one before it. Boxes run from the first start to the latest end.
std::vector<Box> foldRow(const trace::Trace& t, const std::vector<uint32_t>& row, uint16_t depth, int64_t minNs)
{
    std::vector<int64_t> latestEnd(row.size());
    for (size_t i = 0; i < row.size(); ++i)
        latestEnd[i] = std::max(i ? latestEnd[i - 1] : INT64_MIN, t.events[row[i]].end());
    std::vector<Box> out;
    for (size_t i = 0; i < row.size();) {
        size_t next = i + 1;
        if (latestEnd[i] - t.events[row[i]].start < minNs)
            while (next < row.size() && latestEnd[next] - latestEnd[next - 1] < minNs)
                ++next;
        out.push_back({t.events[row[i]].start, latestEnd[next - 1], row[i], uint32_t(next - i), depth});
        i = next;
    }
    return out;
}

// Every row of a track folded at nsPerPixel (3 px), in the layout's rows, cut to `maxDepths`.
std::vector<std::vector<Box>> foldTrack(const trace::Trace& t, const timeline::TimelineIndex& index, trace::TrackId track, Layout layout,
                                        size_t maxDepths, double nsPerPixel)
{
    const auto minNs = static_cast<int64_t>(std::ceil(nsPerPixel * 3));
    std::vector<std::vector<uint32_t>> rows;
    for (const uint32_t e : t.tracks[track].events) {
        const uint16_t row = layout == Layout::Full ? t.events[e].depth : index.compactDepth(e);
        if (row == timeline::TimelineIndex::kHidden || row >= maxDepths)
            continue;
        if (rows.size() <= row)
            rows.resize(row + 1u);
        rows[row].push_back(e);
    }
    std::vector<std::vector<Box>> out;
    for (size_t d = 0; d < rows.size(); ++d)
        out.push_back(foldRow(t, rows[d], uint16_t(d), minNs));
    return out;
}

// The folded boxes that intersect [t0, t1), by row then start: what a view of that range draws.
std::vector<Box> visible(const std::vector<std::vector<Box>>& rows, int64_t t0, int64_t t1)
{
    std::vector<Box> out;
    for (const auto& row : rows)
        for (const Box& b : row)
            if (b.end > t0 && b.start < t1)
                out.push_back(b);
    return out;
}

// A walk a user might take: fit, pan right and left in eighths, zoom in and out by 0.7 around the middle.
struct View
{
    int64_t start;
    double nsPerPixel;
};
std::vector<View> walk(int64_t first, int64_t last, int width)
{
    std::vector<View> views;
    View v{first, double(last - first) / width};
    auto visibleNs = [&] { return int64_t(v.nsPerPixel * width); };
    auto add = [&] {
        v.start = std::clamp(v.start, first, std::max(first, last - visibleNs()));
        views.push_back(v);
    };
    auto zoom = [&](double factor) {
        const int64_t middle = v.start + visibleNs() / 2;
        v.nsPerPixel = std::max(0.01, v.nsPerPixel * factor);
        v.start = middle - visibleNs() / 2;
        add();
    };
    add();
    for (int level = 0; level < 6; ++level) {
        for (int i = 0; i < 4; ++i)
            zoom(0.7);
        for (int i = 0; i < 12; ++i) {
            v.start += visibleNs() / 8;
            add();
        }
        for (int i = 0; i < 5; ++i) {
            v.start -= visibleNs() / 8 * 3;
            add();
        }
    }
    for (int i = 0; i < 10; ++i)
        zoom(1 / 0.7);
    return views;
}

} // namespace

class TestDrawWindowCache : public QObject
{
    Q_OBJECT
private slots:
    void powerOfTwoResolution()
    {
        QCOMPARE(DrawWindowCache::powerOfTwoAtOrBelow(1.0), 1.0);
        QCOMPARE(DrawWindowCache::powerOfTwoAtOrBelow(1.99), 1.0);
        QCOMPARE(DrawWindowCache::powerOfTwoAtOrBelow(2.0), 2.0);
        QCOMPARE(DrawWindowCache::powerOfTwoAtOrBelow(1536.0), 1024.0);
        QCOMPARE(DrawWindowCache::powerOfTwoAtOrBelow(0.01), 1.0 / 128);
        QCOMPARE(DrawWindowCache::powerOfTwoAtOrBelow(7e6), 4194304.0);
    }

    // Frame by frame along a walk over each workload, every track in both layouts: the cache's boxes equal
    // the direct fold at the cache's resolution, and equal a direct index query of the view.
    void drawsWhatADirectFoldDraws_data()
    {
        QTest::addColumn<QString>("workload");
        for (const char* w : testutil::h200Workloads)
            QTest::newRow(w) << QString::fromLatin1(w);
    }
    void drawsWhatADirectFoldDraws()
    {
        QFETCH(QString, workload);
        const auto t = trace::loadTrace(testutil::workloadTrace(workload.toStdString()));
        const timeline::TimelineIndex index(*t);
        DrawWindowCache cache;
        const int width = 1000;
        std::map<std::tuple<trace::TrackId, Layout, size_t, double>, std::vector<std::vector<Box>>> folds;
        int frames = 0, foldsAcrossLeftEdge = 0, foldsAcrossRightEdge = 0;
        for (const View& v : walk(t->firstTime(), t->lastTime(), width)) {
            const int64_t t0 = v.start, t1 = v.start + int64_t(v.nsPerPixel * width) + 1;
            const double resolution = cache.resolution(v.nsPerPixel);
            QCOMPARE(resolution, DrawWindowCache::powerOfTwoAtOrBelow(v.nsPerPixel));
            for (trace::TrackId track = 0; track < t->tracks.size(); ++track)
                for (const Layout layout : {Layout::Full, Layout::Compact}) {
                    const size_t maxDepths = layout == Layout::Full ? 1000 : 8;
                    const DrawWindowCache::Lane lane{&index, track, layout, maxDepths};
                    const auto drawn = boxesOf(cache.items(lane, t0, t1, v.nsPerPixel));
                    auto& rows = folds[{track, layout, maxDepths, resolution}];
                    if (rows.empty())
                        rows = foldTrack(*t, index, track, layout, maxDepths, resolution);
                    const auto expected = visible(rows, t0, t1);
                    QCOMPARE(drawn.size(), expected.size());
                    QVERIFY(drawn == expected);
                    QVERIFY(boxesOf(index.query(track, t0, t1, resolution, 3.0, layout, maxDepths)) == expected);
                    for (const Box& b : drawn) {
                        foldsAcrossLeftEdge += b.count > 1 && b.start < t0;
                        foldsAcrossRightEdge += b.count > 1 && b.end > t1;
                    }
                }
            ++frames;
        }
        QVERIFY(frames > 100);
        // The walk does cross folds at the view's edges, where a window-relative fold would differ (these two
        // have thousands of tiny kernels and ops; the others' walks may not).
        if (workload == QLatin1String("launch_bound") || workload == QLatin1String("train_scheduled")) {
            QVERIFY(foldsAcrossLeftEdge > 0);
            QVERIFY(foldsAcrossRightEdge > 0);
        }
        qInfo("%d frames, %d folds across the left edge, %d across the right, %llu builds of %llu requests", frames, foldsAcrossLeftEdge,
              foldsAcrossRightEdge, static_cast<unsigned long long>(cache.stats().builds),
              static_cast<unsigned long long>(cache.stats().requests));
        QVERIFY(cache.stats().builds < cache.stats().requests / 2);
    }

    // Pan inside the window: the cached list; out of it: a new one. Zoom inside the power of two: cached;
    // across it: a new one. Another layout or a clear(): a new one. Disabled: every request builds.
    void reuseAndRebuild()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("launch_bound"));
        const timeline::TimelineIndex index(*t);
        trace::TrackId track = 0;
        while (track < t->tracks.size() && t->tracks[track].type != trace::Track::Type::GpuStream)
            ++track;
        QVERIFY(track < t->tracks.size());
        DrawWindowCache cache;
        const DrawWindowCache::Lane lane{&index, track, Layout::Full, 100};
        const int width = 1000;
        const double npp = 1.5 * 1024; // in [1024, 2048): resolution 1024
        const int64_t span = int64_t(npp * width);
        const int64_t start = t->firstTime() + span * 2;
        auto request = [&](int64_t t0, double nsPerPixel) {
            cache.items(lane, t0, t0 + int64_t(nsPerPixel * width), nsPerPixel);
            return cache.stats().builds;
        };
        QCOMPARE(request(start, npp), 1u);
        QCOMPARE(request(start + span / 8, npp), 1u);        // pan an eighth: inside
        QCOMPARE(request(start + span, npp), 1u);            // to the window's right end
        QCOMPARE(request(start - span, npp), 1u);            // and to its left end
        QCOMPARE(request(start + span + span / 8, npp), 2u); // past it: rebuilt around the new view
        const int64_t now = start + span + span / 8;
        QCOMPARE(request(now + span / 2, npp), 2u);
        // Zoom in around the middle within the power of two (1536 -> 1100 ns/px): inside the window.
        const int64_t middle = now + span / 2;
        QCOMPARE(request(middle - int64_t(1100.0 * width / 2), 1100.0), 2u);
        // Zoom out within the power of two (1536 -> 2000 ns/px) around the middle: still inside.
        QCOMPARE(request(middle - int64_t(2000.0 * width / 2), 2000.0), 2u);
        // Across a power of two either way: rebuilt.
        QCOMPARE(request(middle - int64_t(2100.0 * width / 2), 2100.0), 3u);
        QCOMPARE(request(middle - int64_t(1000.0 * width / 2), 1000.0), 4u);
        QCOMPARE(request(middle - int64_t(1000.0 * width / 2), 1000.0), 4u);
        QCOMPARE(cache.windowCount(), size_t(1));
        // Another layout or row cap is another lane; a clear (new data, new lanes) drops every window.
        cache.items({&index, track, Layout::Compact, 100}, middle, middle + span, 1000.0);
        cache.items({&index, track, Layout::Full, 3}, middle, middle + span, 1000.0);
        QCOMPARE(cache.stats().builds, 6u);
        QCOMPARE(cache.windowCount(), size_t(3));
        cache.clear();
        QCOMPARE(cache.windowCount(), size_t(0));
        QCOMPARE(request(middle - int64_t(1000.0 * width / 2), 1000.0), 7u);
        QCOMPARE(cache.stats().requests, 14u);
        // Disabled: the view itself at the exact ns per pixel, every time.
        cache.setEnabled(false);
        QCOMPARE(cache.resolution(1000.0), 1000.0);
        const auto direct = cache.items(lane, middle, middle + span, 1500.0);
        QCOMPARE(cache.stats().builds, 8u);
        QVERIFY(boxesOf(direct) == boxesOf(index.query(track, middle, middle + span, 1500.0, 3.0, Layout::Full, 100)));
        cache.items(lane, middle, middle + span, 1500.0);
        QCOMPARE(cache.stats().builds, 9u);
    }

    void emptyAndDegenerateRequests()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("launch_bound"));
        const timeline::TimelineIndex index(*t);
        DrawWindowCache cache;
        QVERIFY(cache.items({&index, 0, Layout::Full, 100}, 10, 10, 1.0).items.empty()); // empty range
        QVERIFY(cache.items({nullptr, 0, Layout::Full, 100}, 0, 10, 1.0).items.empty());
        QVERIFY(cache.items({&index, 0, Layout::Full, 0}, t->firstTime(), t->lastTime(), 1.0).items.empty()); // no rows
        const auto past = cache.items({&index, 0, Layout::Full, 100}, t->lastTime() + 10, t->lastTime() + 1000, 1.0);
        QVERIFY(past.items.empty());
        QCOMPARE(past.eventsCovered, 0u);
    }
};

QTEST_APPLESS_MAIN(TestDrawWindowCache)
#include "tst_drawwindowcache.moc"
