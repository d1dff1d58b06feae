// SPDX-License-Identifier: MIT
// Event search by name (the app's search field and its select-by-name links), against a direct walk.
#include "testutil.h"

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
};

QTEST_APPLESS_MAIN(TestEventSearch)
#include "tst_eventsearch.moc"
