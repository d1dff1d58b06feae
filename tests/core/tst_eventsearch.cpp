// SPDX-License-Identifier: MIT
// Event search by name (the app's search field and its select-by-name links), against a direct walk.
#include "testutil.h"

#include "io/bytesource.h"
#include "trace/eventsearch.h"
#include "trace/traceloader.h"

#include <QtTest>

#include <algorithm>
#include <cctype>

using namespace tilescope;

namespace {

// Every event whose name contains `text` ignoring case, in (start, index) order: computed directly.
std::vector<uint32_t> expectedOrder(const trace::Trace& t, std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    std::vector<uint32_t> hits;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        std::string name(t.name(t.events[i]));
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        if (name.find(text) != std::string::npos)
            hits.push_back(i);
    }
    std::stable_sort(hits.begin(), hits.end(), [&](uint32_t a, uint32_t b) { return t.events[a].start < t.events[b].start; });
    return hits;
}

// The innermost accepted event on `track` containing `time` ([start, end), or its own time for an
// instant), by a walk over every event of the track: the last one opened, i.e. the last in track order
// (start, longer first). Not the deepest row: a slice that overlaps another without nesting may be drawn
// above a deeper one that opened before it.
uint32_t innermostByScan(const trace::Trace& t, trace::TrackId track, int64_t time, bool hostOpsOnly)
{
    uint32_t best = trace::kNoIndex;
    for (const uint32_t i : t.tracks[track].events) {
        const trace::Event& e = t.events[i];
        const bool contains = e.start <= time && (time < e.end() || time == e.start);
        if (contains && (!hostOpsOnly || trace::isHostOp(e)))
            best = i;
    }
    return best;
}

std::unique_ptr<trace::Trace> loadText(const std::string& text)
{
    auto source = io::memorySource(text, "nesting.json");
    return trace::loadTrace(*source);
}

} // namespace

class TestEventSearch : public QObject
{
    Q_OBJECT
private slots:
    void nextAndPreviousVisitEveryMatchInTimeOrder()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        for (const char* text : {"NVJET", "cuLaunch", "aten::", "custom_KERNEL"}) {
            const auto expected = expectedOrder(*t, text);
            QVERIFY2(!expected.empty(), text);
            const trace::EventSearch search(*t, text);
            std::vector<uint32_t> forward;
            for (uint32_t e = search.next(trace::kNoIndex, true); e != trace::kNoIndex; e = search.next(e, true))
                forward.push_back(e);
            QCOMPARE(forward, expected);
            std::vector<uint32_t> backward;
            for (uint32_t e = search.next(trace::kNoIndex, false); e != trace::kNoIndex; e = search.next(e, false))
                backward.push_back(e);
            std::reverse(backward.begin(), backward.end());
            QCOMPARE(backward, expected);
            // Each match's place among them, as the app's status bar says "Match k of n".
            for (size_t k = 0; k < expected.size(); ++k) {
                QCOMPARE(search.positionOf(expected[k]).index, k);
                QCOMPARE(search.positionOf(expected[k]).count, expected.size());
            }
            QCOMPARE(search.positionOf(trace::kNoIndex).index, expected.size());
        }
    }

    void noMatchAndEmptyText()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        QVERIFY(trace::EventSearch(*t, "no such event name").empty());
        QCOMPARE(trace::EventSearch(*t, "no such event name").next(trace::kNoIndex, true), trace::kNoIndex);
        QVERIFY(trace::EventSearch(*t, "").empty());
    }

    void firstEventNamedIsTheEarliest()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        const uint32_t first = trace::firstEventNamed(*t, "matmul_kernel", [](const trace::Event& e) { return trace::isGpuSide(e.kind); });
        QVERIFY(first != trace::kNoIndex);
        for (const trace::Event& e : t->events)
            if (t->name(e) == "matmul_kernel" && trace::isGpuSide(e.kind))
                QVERIFY(e.start >= t->events[first].start);
        QCOMPARE(trace::firstEventNamed(*t, "matmul_kernel", [](const trace::Event&) { return false; }), trace::kNoIndex);
        QCOMPARE(trace::firstEventNamed(*t, "not in the trace"), trace::kNoIndex);
    }

    void innermostEventAtNestingAndOverlap()
    {
        // A [0, 100) holds the Python frame B [10, 60), which holds C [20, 30); D [50, 80) overlaps B without
        // nesting in it (no parent); E [100, 110) starts where A ends; Z is an instant at 105.
        const auto t = loadText(R"({"traceEvents": [
            {"ph": "X", "cat": "cpu_op", "name": "A", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
            {"ph": "X", "cat": "python_function", "name": "B", "pid": 1, "tid": 1, "ts": 10, "dur": 50},
            {"ph": "X", "cat": "cpu_op", "name": "C", "pid": 1, "tid": 1, "ts": 20, "dur": 10},
            {"ph": "X", "cat": "user_annotation", "name": "D", "pid": 1, "tid": 1, "ts": 50, "dur": 30},
            {"ph": "X", "cat": "cpu_op", "name": "E", "pid": 1, "tid": 1, "ts": 100, "dur": 10},
            {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "Z", "pid": 1, "tid": 1, "ts": 105}]})");
        const auto named = [&](std::string_view name) { return trace::firstEventNamed(*t, name); };
        const trace::TrackId track = t->events[named("A")].track;
        QVERIFY(t->events[named("D")].flags & trace::PartialOverlap);
        const auto at = [&](int64_t us) { return trace::innermostHostOpAt(*t, track, us * 1000); };
        const auto anyAt = [&](int64_t us) { return trace::innermostEventAt(*t, track, us * 1000); };
        QCOMPARE(at(-1), trace::kNoIndex);
        QCOMPARE(at(0), named("A"));
        QCOMPARE(at(15), named("A")); // inside the Python frame B: the op around it
        QCOMPARE(anyAt(15), named("B"));
        QCOMPARE(at(20), named("C"));
        QCOMPARE(at(29), named("C"));
        QCOMPARE(at(30), named("A")); // C is half-open
        QCOMPARE(at(55), named("D"));
        QCOMPARE(at(70), named("D"));
        QCOMPARE(at(85), named("A")); // after D ends: found past the parentless D
        QCOMPARE(at(100), named("E"));
        QCOMPARE(anyAt(105), named("Z"));
        QCOMPARE(at(105), named("E"));
        QCOMPARE(at(110), trace::kNoIndex);
        QCOMPARE(trace::innermostHostOpAt(*t, trace::TrackId(t->tracks.size()), 0), trace::kNoIndex);
        for (int64_t us = -2; us <= 112; ++us)
            for (const int64_t ns : {us * 1000 - 1, us * 1000, us * 1000 + 1}) {
                QCOMPARE(trace::innermostHostOpAt(*t, track, ns), innermostByScan(*t, track, ns, true));
                QCOMPARE(trace::innermostEventAt(*t, track, ns), innermostByScan(*t, track, ns, false));
            }
    }

    void innermostEventAtMatchesAScanOnRealTraces()
    {
        // train_scheduled: two host threads with Python frames (with_stack) around the ops; memory_churn:
        // the allocations of the memory graph.
        for (const char* workload : {"train_scheduled", "memory_churn"}) {
            const auto t = trace::loadTrace(testutil::workloadTrace(workload));
            int checked = 0, found = 0;
            const auto check = [&](trace::TrackId track, int64_t time) {
                const uint32_t got = trace::innermostHostOpAt(*t, track, time);
                QCOMPARE(got, innermostByScan(*t, track, time, true));
                QCOMPARE(trace::innermostEventAt(*t, track, time), innermostByScan(*t, track, time, false));
                ++checked;
                found += got != trace::kNoIndex;
            };
            for (const trace::MemoryRecord& m : t->memory)
                check(m.track, m.time);
            // Every edge of every host event of the memory records' tracks, and a nanosecond either side.
            std::vector<trace::TrackId> tracks;
            for (const trace::MemoryRecord& m : t->memory)
                if (std::find(tracks.begin(), tracks.end(), m.track) == tracks.end())
                    tracks.push_back(m.track);
            for (const trace::TrackId track : tracks) {
                const auto& list = t->tracks[track].events;
                const size_t stride = std::max<size_t>(1, list.size() / 400); // a sample keeps the scan affordable
                for (size_t k = 0; k < list.size(); k += stride) {
                    const trace::Event& e = t->events[list[k]];
                    for (const int64_t time :
                         {e.start - 1, e.start, e.start + 1, e.start + e.duration / 2, e.end() - 1, e.end(), e.end() + 1})
                        check(track, time);
                }
            }
            QVERIFY2(checked > 1000, workload);
            QVERIFY2(found > checked / 2, workload); // most allocations happen inside an op
        }
    }
};

QTEST_APPLESS_MAIN(TestEventSearch)
#include "tst_eventsearch.moc"
