// SPDX-License-Identifier: MIT
// Level of detail: folded draw lists keep every event, stay ordered and disjoint, and grow with pixels.
#include "testutil.h"

#include "analysis/overlap.h"
#include "io/bytesource.h"
#include "timeline/timelineindex.h"
#include "trace/traceloader.h"

#include <QtTest>

#include <map>

using namespace tilescope;

class TestTimeline : public QObject
{
    Q_OBJECT
private slots:
    void foldingInvariants_data()
    {
        QTest::addColumn<QString>("workload");
        QTest::addColumn<double>("zoom"); // fraction of the trace visible
        for (const char* w : testutil::h200Workloads)
            for (const double zoom : {1.0, 0.1, 0.001, 1e-6}) {
                const QString label = QStringLiteral("%1 %2").arg(QLatin1String(w)).arg(zoom);
                QTest::newRow(qPrintable(label)) << QString::fromLatin1(w) << zoom;
            }
    }
    void foldingInvariants()
    {
        QFETCH(QString, workload);
        QFETCH(double, zoom);
        const auto t = trace::loadTrace(testutil::workloadTrace(workload.toStdString()));
        const timeline::TimelineIndex index(*t);
        const int64_t span = t->lastTime() - t->firstTime();
        const int64_t t0 = t->firstTime() + span / 3;
        const int64_t t1 = t0 + std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(span) * zoom));
        const double width = 1000;
        const double nsPerPixel = static_cast<double>(t1 - t0) / width;
        const int64_t minNs = static_cast<int64_t>(std::ceil(nsPerPixel * 3));
        for (trace::TrackId track = 0; track < t->tracks.size(); ++track) {
            const auto list = index.query(track, t0, t1, nsPerPixel);
            std::map<uint16_t, uint64_t> expected; // the window's events per depth
            for (const uint32_t e : t->tracks[track].events)
                expected[t->events[e].depth] += t->events[e].end() > t0 && t->events[e].start < t1;
            std::map<uint16_t, uint64_t> inItems;
            for (const auto& item : list.items)
                inItems[item.depth] += item.count;
            // Folds belong to the depth, so the first and last may take in events just outside the window.
            for (const auto& [depth, n] : expected)
                QVERIFY2(inItems[depth] >= n, "an event of the window is in no item");
            uint64_t counted = 0;
            std::map<uint16_t, int64_t> lastEnd;
            std::map<uint16_t, size_t> perDepth;
            for (const auto& item : list.items) {
                counted += item.count;
                QVERIFY(item.end >= item.start);
                QVERIFY(item.end > t0 && item.start < t1);
                if (lastEnd.count(item.depth))
                    QVERIFY2(item.start >= lastEnd[item.depth] || (t->events[item.event].flags & trace::PartialOverlap), "items overlap");
                lastEnd[item.depth] = item.end;
                ++perDepth[item.depth];
                QCOMPARE(item.start, t->events[item.event].start);
                if (item.count > 1) // only events narrower than the minimum width are folded
                    QVERIFY(t->events[item.event].duration < minNs);
            }
            QCOMPARE(counted, list.eventsCovered);
            // Pixel-bound: a depth never holds more than two items per minimum width.
            for (const auto& [depth, n] : perDepth)
                QVERIFY2(n <= size_t(2 * width / 3 + 4), qPrintable(QStringLiteral("depth %1: %2 items").arg(depth).arg(n)));
        }
    }

    void deepZoomShowsEachEvent()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("launch_bound"));
        const timeline::TimelineIndex index(*t);
        for (trace::TrackId track = 0; track < t->tracks.size(); ++track) {
            if (t->tracks[track].type != trace::Track::Type::GpuStream)
                continue;
            const auto all = index.query(track, t->firstTime(), t->lastTime() + 1, 0.01);
            for (const auto& item : all.items)
                QCOMPARE(item.count, 1u);
            const auto folded = index.query(track, t->firstTime(), t->lastTime() + 1, double(t->lastTime() - t->firstTime()) / 800);
            QVERIFY(folded.items.size() < 600);
            QCOMPARE(folded.eventsCovered, all.eventsCovered);
        }
    }

    // torch's loop with Python stacks: each ProfilerStep#N begins in a deep prof.step() frame and outlives it, the
    // next step's frame begins in that step. In both layouts 100 steps stay as deep as one (they went a row
    // deeper per step).
    void overlappingStepsStayShallow()
    {
        using Layout = timeline::TimelineIndex::Layout;
        std::string json = "{\"traceEvents\": [";
        const auto slice = [&](const char* cat, const std::string& name, int64_t ts, int64_t dur) {
            json += std::string(json.back() == '[' ? "" : ", ") + "{\"ph\": \"X\", \"cat\": \"" + cat + "\", \"name\": \"" + name
                + "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(ts) + ", \"dur\": " + std::to_string(dur) + "}";
        };
        slice("python_function", "<module>", 0, 100000);
        for (int i = 0; i < 100; ++i) {
            const int64_t t = 10 + 500 * i;
            for (int f = 0; f < 6; ++f) // prof.step() and the frames it calls
                slice("python_function", "frame" + std::to_string(f), t + f, 30 - 2 * f);
            slice("user_annotation", "ProfilerStep#" + std::to_string(i), t + 15, 500);
            slice("python_function", "model.py(10): forward", t + 40, 200);
            slice("cpu_op", "aten::mm", t + 50, 100);
        }
        json += "]}";
        auto source = io::memorySource(json, "steps.json");
        const auto t = trace::loadTrace(*source);
        const timeline::TimelineIndex index(*t);
        const trace::TrackId track = t->events.front().track;
        QVERIFY2(index.depthCount(track) <= 10, qPrintable(QString::number(index.depthCount(track))));
        QVERIFY2(index.depthCount(track, Layout::Compact) <= 7, qPrintable(QString::number(index.depthCount(track, Layout::Compact))));
        for (const auto& e : t->events)
            if (e.parent != trace::kNoIndex && index.compactDepth(e.parent) != timeline::TimelineIndex::kHidden
                && index.compactDepth(uint32_t(&e - t->events.data())) != timeline::TimelineIndex::kHidden)
                QVERIFY(index.compactDepth(uint32_t(&e - t->events.data())) > index.compactDepth(e.parent));
    }

    // The compact layout folds a deep Python stack to its outer frames: every op stays, only Python frames
    // under kPythonLevels others go, rows stay disjoint (slices that overlap without nesting included) and
    // nesting keeps its order.
    void compactLayoutFoldsPythonFrames()
    {
        using Layout = timeline::TimelineIndex::Layout;
        const auto t = trace::loadTrace(testutil::workloadTrace("train_scheduled"));
        const timeline::TimelineIndex index(*t);
        bool foldedSome = false;
        for (trace::TrackId track = 0; track < t->tracks.size(); ++track) {
            const auto full = index.query(track, t->firstTime(), t->lastTime() + 1, 0.001);
            const auto compact = index.query(track, t->firstTime(), t->lastTime() + 1, 0.001, 3.0, Layout::Compact);
            // Python frames above each event on its chain of containers: its parent, or for a slice that only
            // partly overlaps the open one before it, the innermost open slice that holds it whole.
            std::vector<uint32_t> open;
            std::map<uint32_t, int> pythonChain; // Python frames on an event's chain, itself included
            uint64_t expected = 0;
            for (const uint32_t e : t->tracks[track].events) {
                const trace::Event& ev = t->events[e];
                while (!open.empty() && t->events[open.back()].end() <= ev.start)
                    open.pop_back();
                uint32_t container = trace::kNoIndex;
                for (size_t k = open.size(); k-- > 0;)
                    if (t->events[open[k]].end() >= ev.end()) {
                        container = open[k];
                        break;
                    }
                if (ev.parent != trace::kNoIndex)
                    QCOMPARE(container, ev.parent);
                const int pythonAbove = container == trace::kNoIndex ? 0 : pythonChain[container];
                pythonChain[e] = pythonAbove + (ev.kind == trace::EventKind::PythonFunction ? 1 : 0);
                open.push_back(e);
                const bool hidden = ev.kind == trace::EventKind::PythonFunction && pythonAbove >= timeline::TimelineIndex::kPythonLevels;
                QCOMPARE(index.compactDepth(e) == timeline::TimelineIndex::kHidden, hidden);
                expected += !hidden && ev.end() > t->firstTime(); // a zero-length slice at the window's start is not in it
                if (!hidden && ev.parent != trace::kNoIndex && index.compactDepth(ev.parent) != timeline::TimelineIndex::kHidden)
                    QVERIFY(index.compactDepth(e) > index.compactDepth(ev.parent));
            }
            QCOMPARE(compact.eventsCovered, expected);
            std::map<uint16_t, int64_t> lastEnd;
            for (const auto& item : compact.items) {
                QCOMPARE(item.count, 1u);
                QCOMPARE(item.depth, index.compactDepth(item.event));
                if (lastEnd.count(item.depth))
                    QVERIFY2(item.start >= lastEnd[item.depth], "rows overlap");
                lastEnd[item.depth] = item.end;
            }
            if (compact.eventsCovered < full.eventsCovered) {
                foldedSome = true;
                QVERIFY(index.depthCount(track, Layout::Compact) < index.depthCount(track));
            } else {
                QCOMPARE(index.depthCount(track, Layout::Compact), index.depthCount(track));
            }
            // A capped query stops at the cap.
            for (const auto& item : index.query(track, t->firstTime(), t->lastTime() + 1, 0.001, 3.0, Layout::Compact, 4).items)
                QVERIFY(item.depth < 4);
        }
        QVERIFY(foldedSome); // the sample's main thread has a 25-frame Python stack
    }

    void busyLanesFoldToPixels()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("launch_bound"));
        const auto overlap = analysis::computeOverlap(*t);
        const auto& busy = overlap.devices[0].busy;
        const double nsPerPixel = double(overlap.window.end - overlap.window.start) / 500;
        const auto boxes = timeline::TimelineIndex::foldIntervals(busy, overlap.window.start, overlap.window.end, nsPerPixel);
        QVERIFY(!boxes.empty());
        QVERIFY(boxes.size() <= 500);
        int64_t covered = 0;
        for (size_t i = 0; i < boxes.size(); ++i) {
            QVERIFY(boxes[i].end > boxes[i].start);
            if (i)
                QVERIFY(boxes[i].start - boxes[i - 1].end >= int64_t(nsPerPixel));
            covered += boxes[i].end - boxes[i].start;
        }
        QVERIFY(covered >= busy.length()); // folding closes gaps, never drops busy time
        const auto exact = timeline::TimelineIndex::foldIntervals(busy, overlap.window.start, overlap.window.end, 0.5);
        QCOMPARE(exact.size(), busy.intervals().size());
        // Per-pixel coverage adds up to the busy time (3.2% utilization shows as 3.2%, not a solid bar).
        const int pixels = 500;
        const auto fractions = timeline::TimelineIndex::coverage(busy, overlap.window.start, nsPerPixel, pixels);
        QCOMPARE(int(fractions.size()), pixels);
        double sum = 0;
        for (const float f : fractions) {
            QVERIFY(f >= 0 && f <= 1);
            sum += f;
        }
        QVERIFY(std::abs(sum * nsPerPixel - double(busy.length())) < nsPerPixel * 2);
        QVERIFY(sum / pixels < 0.05);
    }
};

QTEST_APPLESS_MAIN(TestTimeline)
#include "tst_timeline.moc"
