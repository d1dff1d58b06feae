// SPDX-License-Identifier: MIT
// The timeline's time <-> pixel mapping: fit, zoom around a point, pan, resize, and the extent limits.
#include "timeline/timeaxis.h"

#include <QtTest>

using tilescope::timeline::TimeAxis;

class TestTimeAxis : public QObject
{
    Q_OBJECT

    static TimeAxis axis()
    {
        TimeAxis a;
        a.setCanvas(180, 1000); // labels 180 px wide, canvas 1000 px
        a.setExtent(1'000'000, 61'000'000);
        return a;
    }

private slots:
    void fitMapsTheRangeOntoTheCanvas()
    {
        TimeAxis a = axis();
        a.zoomToRange(1'000'000, 61'000'000);
        QCOMPARE(a.viewStart(), int64_t(1'000'000));
        QCOMPARE(a.viewEnd(), int64_t(61'000'000));
        QCOMPARE(a.nsPerPixel(), 60'000.0);
        QCOMPARE(a.xOf(1'000'000), 180.0);
        QCOMPARE(a.xOf(61'000'000), 1180.0);
        QCOMPARE(a.timeAt(680), int64_t(31'000'000));
        QCOMPARE(a.pixelsOf(180'000), 3.0);
    }

    void zoomKeepsTheAnchorInPlace()
    {
        TimeAxis a = axis();
        a.zoomToRange(1'000'000, 61'000'000);
        const double anchorX = 430;
        const int64_t under = a.timeAt(anchorX);
        a.zoomBy(0.5, anchorX);
        QCOMPARE(a.nsPerPixel(), 30'000.0);
        QVERIFY(std::abs(a.timeAt(anchorX) - under) <= 30'000); // within a pixel
        a.zoomBy(1e-9, anchorX);                                // never deeper than 100 px per ns
        QCOMPARE(a.nsPerPixel(), TimeAxis::kMinNsPerPixel);
    }

    void theViewStaysInsideTheExtent()
    {
        TimeAxis a = axis();
        a.zoomBy(1e9, 500); // zoom out past everything: the whole extent, no more
        QCOMPARE(a.viewStart(), int64_t(1'000'000));
        QCOMPARE(a.viewEnd(), int64_t(61'000'000));
        a.zoomToRange(10'000'000, 20'000'000);
        a.panByPixels(-1e6); // far before the start
        QCOMPARE(a.viewStart(), int64_t(1'000'000));
        a.panTo(1'000'000'000); // far after the end: the view ends at the extent's end
        QCOMPARE(a.viewEnd(), int64_t(61'000'000));
        QCOMPARE(a.viewEnd() - a.viewStart(), int64_t(10'000'000));
        a.zoomToRange(5, 4); // empty: ignored
        QCOMPARE(a.viewEnd() - a.viewStart(), int64_t(10'000'000));
    }

    void aNewWidthKeepsTheVisibleRange()
    {
        TimeAxis a = axis();
        a.zoomToRange(11'000'000, 21'000'000);
        a.setCanvas(200, 1500);
        QCOMPARE(a.viewStart(), int64_t(11'000'000));
        QCOMPARE(a.viewEnd(), int64_t(21'000'000));
        QCOMPARE(a.xOf(11'000'000), 200.0);
        QCOMPARE(a.xOf(21'000'000), 1700.0);
    }
};

QTEST_APPLESS_MAIN(TestTimeAxis)
#include "tst_timeaxis.moc"
