// SPDX-License-Identifier: MIT
// The busy lanes' cached coverage windows: against an exact per-pixel coverage computed here (long double
// overlap of each interval with each pixel), the cached coverage stays within its documented bound at
// ~5e15 ns absolute times; a window kept from earlier views gives the same floats as one built for the
// view; windows are reused while a pan stays inside and rebuilt when it leaves or the power of two changes.
#include "timeline/busywindowcache.h"
#include "timeline/timelineindex.h"

#include <QtTest>

#include <cmath>
#include <random>

using namespace tilescope;
using timeline::BusyWindowCache;

namespace {

constexpr int64_t kBase = 5'000'000'000'000'000; // absolute times like a real trace's epoch ns

// Disjoint random intervals from kBase on: busy runs of 1 ns .. `longest` ns with gaps alike.
analysis::IntervalSet randomSet(uint32_t seed, int count, int64_t longest)
{
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int64_t> length(1, longest);
    std::vector<analysis::Interval> all;
    int64_t t = kBase;
    for (int i = 0; i < count; ++i) {
        t += length(rng);
        const int64_t end = t + length(rng);
        all.push_back({t, end});
        t = end;
    }
    return analysis::IntervalSet::fromUnsorted(std::move(all));
}

// Exact busy fraction of pixel x: overlap of every interval with [t0 + x*npp, t0 + (x+1)*npp).
std::vector<double> exactCoverage(const analysis::IntervalSet& set, int64_t t0, double nsPerPixel, int pixels)
{
    std::vector<double> out(size_t(pixels), 0.0);
    for (int x = 0; x < pixels; ++x) {
        const long double a = static_cast<long double>(x) * nsPerPixel, b = static_cast<long double>(x + 1) * nsPerPixel;
        long double busy = 0;
        for (const analysis::Interval& i : set.intervals()) {
            const long double s = static_cast<long double>(i.start - t0), e = static_cast<long double>(i.end - t0);
            busy += std::max<long double>(0, std::min(e, b) - std::max(s, a));
        }
        out[size_t(x)] = double(busy / nsPerPixel);
    }
    return out;
}

} // namespace

class TestBusyWindowCache : public QObject
{
    Q_OBJECT
private slots:
    void withinBoundOfExactCoverage_data()
    {
        QTest::addColumn<double>("nsPerPixel");
        QTest::addColumn<qint64>("longest");
        QTest::newRow("0.7 ns/px") << 0.7 << qint64(5);
        QTest::newRow("3 ns/px") << 3.0 << qint64(20);
        QTest::newRow("17.3 ns/px") << 17.3 << qint64(60);
        QTest::newRow("1000.5 ns/px") << 1000.5 << qint64(3000);
        QTest::newRow("123456.7 ns/px") << 123456.7 << qint64(400000);
    }
    void withinBoundOfExactCoverage()
    {
        QFETCH(double, nsPerPixel);
        QFETCH(qint64, longest);
        const auto set = randomSet(7, 3000, longest);
        const int pixels = 200;
        const double bound = double(BusyWindowCache::bucketWidth(nsPerPixel)) / (2 * nsPerPixel);
        // Below 4 ns/px buckets are 1 ns: exact up to float rounding.
        const double tolerance = (nsPerPixel < 4 ? 0.0 : bound) + 1e-5;
        QVERIFY(nsPerPixel < 4 || bound <= 0.125 + 1e-12); // the header's 1/8 of a pixel
        BusyWindowCache cache;
        cache.setDirectBelow(0); // always from windows
        std::mt19937_64 rng(11);
        const int64_t extent = set.intervals().back().end - kBase;
        double worst = 0;
        for (int view = 0; view < 20; ++view) {
            const int64_t t0 = kBase + int64_t(rng() % uint64_t(std::max<int64_t>(1, extent - int64_t(nsPerPixel * pixels))));
            const auto cached = cache.coverage(set, t0, nsPerPixel, pixels);
            const auto exact = exactCoverage(set, t0, nsPerPixel, pixels);
            QCOMPARE(int(cached.size()), pixels);
            for (int x = 0; x < pixels; ++x)
                worst = std::max(worst, std::abs(double(cached[size_t(x)]) - std::min(1.0, exact[size_t(x)])));
        }
        qInfo("largest difference %.6f of a pixel (bound %.6f)", worst, tolerance);
        QVERIFY(worst <= tolerance);
    }

    void keptWindowEqualsFreshWindow()
    {
        const auto set = randomSet(3, 20000, 5000);
        BusyWindowCache kept, fresh;
        kept.setDirectBelow(0);
        fresh.setDirectBelow(0);
        const int pixels = 900;
        double nsPerPixel = 397.3;
        int64_t t0 = kBase + 2'000'000;
        for (int step = 0; step < 60; ++step) {
            if (step % 10 == 9)
                nsPerPixel *= 0.7; // crosses powers of two now and then
            else if (step % 10 == 4)
                nsPerPixel /= 0.6; // a zoom out: coarser buckets merged from the kept window
            else
                t0 += int64_t(nsPerPixel * pixels / (step % 3 == 0 ? -3 : 8));
            fresh.clear();
            const auto a = kept.coverage(set, t0, nsPerPixel, pixels), b = fresh.coverage(set, t0, nsPerPixel, pixels);
            QVERIFY2(a == b, qPrintable(QStringLiteral("step %1 differs").arg(step)));
        }
        QVERIFY2(kept.stats().builds < 24, qPrintable(QStringLiteral("%1 builds").arg(kept.stats().builds)));
        QCOMPARE(kept.stats().requests, uint64_t(60));
    }

    void rebuildsWhenTheViewLeavesOrTheResolutionChanges()
    {
        const auto set = randomSet(5, 1000, 1000);
        BusyWindowCache cache;
        cache.setDirectBelow(0);
        const int pixels = 100;
        cache.coverage(set, kBase, 100.0, pixels); // window: one span (10000 ns) either side
        QCOMPARE(cache.stats().builds, uint64_t(1));
        cache.coverage(set, kBase + 9000, 100.0, pixels); // still inside
        cache.coverage(set, kBase - 9000, 100.0, pixels);
        cache.coverage(set, kBase, 70.0, pixels); // 64 ns/px either way
        QCOMPARE(cache.stats().builds, uint64_t(1));
        cache.coverage(set, kBase + 30000, 100.0, pixels); // left the window
        QCOMPARE(cache.stats().builds, uint64_t(2));
        cache.coverage(set, kBase + 30000, 130.0, pixels); // 128 ns/px
        QCOMPARE(cache.stats().builds, uint64_t(3));
        const auto other = randomSet(6, 10, 10);
        cache.coverage(other, kBase, 130.0, pixels); // each set has its own window
        QCOMPARE(cache.windowCount(), size_t(2));
    }

    void sparseViewsAreComputedDirectly()
    {
        const auto set = randomSet(4, 5000, 1000);                         // ~1 interval per 1000 ns
        BusyWindowCache cache;                                             // default: direct below 2 intervals per pixel
        const auto sparse = cache.coverage(set, kBase + 5000, 100.0, 200); // ~20 intervals in view
        QVERIFY(sparse == timeline::TimelineIndex::coverage(set, kBase + 5000, 100.0, 200));
        QCOMPARE(cache.windowCount(), size_t(0));
        cache.coverage(set, kBase + 5000, 20000.0, 200); // ~4000 intervals in view
        QCOMPARE(cache.windowCount(), size_t(1));
    }

    void disabledIsTheDirectCoverage()
    {
        const auto set = randomSet(9, 2000, 3000);
        BusyWindowCache cache;
        cache.setEnabled(false);
        const auto direct = timeline::TimelineIndex::coverage(set, kBase + 12345, 777.7, 300);
        QVERIFY(cache.coverage(set, kBase + 12345, 777.7, 300) == direct);
        QCOMPARE(cache.windowCount(), size_t(0));
        QVERIFY(cache.coverage(set, kBase, 0.0, 10).empty());
        QVERIFY(cache.coverage(set, kBase, 10.0, 0).empty());
    }
};

QTEST_MAIN(TestBusyWindowCache)
#include "tst_busywindowcache.moc"
