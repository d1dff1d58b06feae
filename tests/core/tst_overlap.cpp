// SPDX-License-Identifier: MIT
// CPU/GPU overlap figures against a direct sweep-line computation on the real traces.
#include "testutil.h"

#include "analysis/breakdown.h"
#include "analysis/overlap.h"
#include "analysis/streamidle.h"
#include "io/bytesource.h"
#include "report/breakdownreport.h"
#include "report/overlapreport.h"
#include "report/streamidlereport.h"
#include "stats/torchtable.h"
#include "trace/traceloader.h"

#include <QtTest>

#include <algorithm>

using namespace tilescope;
using trace::EventKind;

namespace {

struct Direct
{
    int64_t gpuBusy = 0, cpuBusy = 0, both = 0, neither = 0;
};

// ProfilerStep#N is a label whatever its category (torch 1.8-1.9 wrote it as an Operator).
bool isLabel(const trace::Trace& t, const trace::Event& e)
{
    return e.kind == EventKind::UserAnnotation || (e.kind == EventKind::CpuOp && t.strings.view(e.name).starts_with("ProfilerStep#"));
}

bool recordedCpuWork(const trace::Trace& t, const trace::Event& e)
{
    return (e.kind == EventKind::CpuOp || e.kind == EventKind::CudaRuntime || e.kind == EventKind::CudaDriver) && !isLabel(t, e)
        && t.tracks[e.track].type == trace::Track::Type::HostThread;
}

// CPU work by the contract, from the raw events (time containment on the track, not the loader's
// nesting): ops and API calls, and user annotations that contain none of them.
std::vector<bool> cpuWorkByContainment(const trace::Trace& t)
{
    std::vector<bool> work(t.events.size(), false);
    for (size_t i = 0; i < t.events.size(); ++i)
        work[i] = recordedCpuWork(t, t.events[i]);
    for (size_t i = 0; i < t.events.size(); ++i) {
        const auto& a = t.events[i];
        if (!isLabel(t, a) || t.tracks[a.track].type != trace::Track::Type::HostThread)
            continue;
        bool holdsWork = false;
        for (const auto& e : t.events)
            if (recordedCpuWork(t, e) && e.track == a.track && e.start >= a.start && e.end() <= a.end())
                holdsWork = true;
        work[i] = !holdsWork;
    }
    return work;
}

// An independent method: sweep all interval boundaries counting open CPU and GPU intervals.
Direct sweep(const trace::Trace& t, analysis::Interval w)
{
    std::vector<std::tuple<int64_t, int, int>> edges; // time, +1/-1, 0 = cpu / 1 = gpu
    const std::vector<bool> cpuWork = cpuWorkByContainment(t);
    for (size_t i = 0; i < t.events.size(); ++i) {
        const auto& e = t.events[i];
        const bool gpu = trace::isGpuActivity(e.kind);
        const bool cpu = cpuWork[i];
        if (!gpu && !cpu)
            continue;
        const int64_t s = std::max(e.start, w.start), en = std::min(e.end(), w.end);
        if (s >= en)
            continue;
        edges.emplace_back(s, +1, gpu);
        edges.emplace_back(en, -1, gpu);
    }
    std::sort(edges.begin(), edges.end());
    Direct d;
    int open[2] = {0, 0};
    int64_t last = w.start;
    for (const auto& [time, delta, kind] : edges) {
        const int64_t span = time - last;
        if (open[1] > 0)
            d.gpuBusy += span;
        if (open[0] > 0)
            d.cpuBusy += span;
        if (open[0] > 0 && open[1] > 0)
            d.both += span;
        if (open[0] == 0 && open[1] == 0)
            d.neither += span;
        open[kind] += delta;
        last = time;
    }
    d.neither += w.end - last;
    return d;
}

} // namespace

class TestOverlap : public QObject
{
    Q_OBJECT
private slots:
    void againstSweep_data()
    {
        QTest::addColumn<QString>("workload");
        for (const char* w : testutil::h200Workloads)
            QTest::newRow(w) << QString::fromLatin1(w);
    }
    void againstSweep()
    {
        QFETCH(QString, workload);
        const auto t = trace::loadTrace(testutil::workloadTrace(workload.toStdString()));
        const auto r = analysis::computeOverlap(*t);
        QVERIFY(r.window.end > r.window.start);
        const Direct d = sweep(*t, r.window);
        QCOMPARE(r.devices.size(), size_t(1));
        QCOMPARE(r.devices[0].busyNs, d.gpuBusy);
        QCOMPARE(r.devices[0].busyNs + r.devices[0].idleNs, r.window.end - r.window.start);
        QCOMPARE(r.cpuBusyNs, d.cpuBusy);
        QCOMPARE(r.overlapNs, d.both);
        QCOMPARE(r.bothIdleNs, d.neither);
        QCOMPARE(r.gpuIdleWhileCpuBusyNs, d.cpuBusy - d.both);
        // A sub-window gives the same answer as the sweep on that window.
        const analysis::Interval half{r.window.start, r.window.start + (r.window.end - r.window.start) / 2};
        const auto h = analysis::computeOverlap(*t, half);
        const Direct dh = sweep(*t, half);
        QCOMPARE(h.devices[0].busyNs, dh.gpuBusy);
        QCOMPARE(h.overlapNs, dh.both);
    }

    // A torch 1.8-1.9 trace, whose ProfilerStep#N are Operators: still labels, not CPU work (they made CPU busy
    // 100% of the window); the figures equal the sweep's.
    void oldFormatStepsAreLabels()
    {
        const auto t = trace::loadTrace(testutil::dataPath("external/tb_plugin/resnet50_v100_worker0.pt.trace.json.gz"));
        size_t operatorSteps = 0;
        for (const auto& e : t->events)
            operatorSteps += e.kind == EventKind::CpuOp && t->strings.view(e.name).starts_with("ProfilerStep#");
        QVERIFY(operatorSteps > 0);
        const auto r = analysis::computeOverlap(*t);
        const Direct d = sweep(*t, r.window);
        QCOMPARE(r.cpuBusyNs, d.cpuBusy);
        QCOMPARE(r.overlapNs, d.both);
        QCOMPARE(r.bothIdleNs, d.neither);
        QVERIFY(r.cpuBusyNs < (r.window.end - r.window.start) * 95 / 100);
    }

    void indexMatchesDirectComputation_data() { againstSweep_data(); }
    void indexMatchesDirectComputation()
    {
        QFETCH(QString, workload);
        const auto t = trace::loadTrace(testutil::workloadTrace(workload.toStdString()));
        const analysis::OverlapIndex index(*t);
        const auto whole = analysis::computeOverlap(*t);
        const int64_t span = whole.window.end - whole.window.start;
        for (const auto& [a, b] : {std::pair{0.0, 1.0}, {0.1, 0.3}, {0.45, 0.46}, {0.9, 1.2}, {-0.5, 0.01}}) {
            const analysis::Interval w{whole.window.start + int64_t(a * double(span)), whole.window.start + int64_t(b * double(span))};
            const auto direct = analysis::computeOverlap(*t, w);
            const auto fast = index.figures(w);
            QCOMPARE(fast.devices.size(), direct.devices.size());
            for (size_t d = 0; d < fast.devices.size(); ++d) {
                QCOMPARE(fast.devices[d].busyNs, direct.devices[d].busyNs);
                QCOMPARE(fast.devices[d].kernels, direct.devices[d].kernels);
                QCOMPARE(fast.devices[d].memcpys, direct.devices[d].memcpys);
                QCOMPARE(fast.devices[d].memsets, direct.devices[d].memsets);
                QCOMPARE(fast.devices[d].hasActivity, direct.devices[d].hasActivity);
            }
            QCOMPARE(fast.cpuBusyNs, direct.cpuBusyNs);
            QCOMPARE(fast.overlapNs, direct.overlapNs);
            QCOMPARE(fast.bothIdleNs, direct.bothIdleNs);
            QCOMPARE(fast.launches.count, direct.launches.count);
            QCOMPARE(fast.launches.cpuNs, direct.launches.cpuNs);
            QCOMPARE(fast.launches.kernelNs, direct.launches.kernelNs);
            QCOMPARE(fast.launches.costlyLaunches, direct.launches.costlyLaunches);
        }
    }

    void launchBoundIsFlagged()
    {
        const auto launch = analysis::computeOverlap(*trace::loadTrace(testutil::workloadTrace("launch_bound")));
        QCOMPARE(launch.devices[0].kernels, uint64_t(3000));
        QCOMPARE(launch.launches.count, uint64_t(3000));
        QVERIFY(launch.launchBound());
        QVERIFY(launch.gpuWaitShare() >= analysis::kLaunchBoundMinGpuWaitShare);
        QVERIFY(launch.devices[0].utilization < 0.05);
        const auto gemm = analysis::computeOverlap(*trace::loadTrace(testutil::workloadTrace("gemm_compare")));
        QCOMPARE(gemm.launches.count, uint64_t(40)); // Triton's cuLaunchKernelEx and cuBLAS's, both driver API
        QVERIFY(!gemm.launchBound());
        QVERIFY(gemm.launches.kernelNs > 10 * gemm.launches.cpuNs);
    }

    // The window leaves out time with nothing recorded; the text says so where that is most of the trace
    // (jit_cold: a 1.45 ms window in 365 ms, the JIT compile before the first op), and only there.
    void windowMuchShorterThanTheTraceIsSaid()
    {
        const auto cold = trace::loadTrace(testutil::workloadTrace("jit_cold"));
        const std::string coldText = report::overlapText(*cold, analysis::computeOverlap(*cold));
        QVERIFY2(coldText.starts_with("window: 1.450ms (first to last CPU work or GPU activity)\n  the trace spans 365.303ms, most of "
                                      "it with no op, CUDA call or kernel recorded"),
                 coldText.c_str());
        // A window given is the user's: nothing to say.
        report::OverlapReportOptions given;
        given.windowGiven = true;
        QVERIFY(report::overlapText(*cold, analysis::computeOverlap(*cold), given).find("the trace spans") == std::string::npos);
        // train_scheduled's window is 64% of its span (the profiler's own start-up): no note.
        const auto train = trace::loadTrace(testutil::workloadTrace("train_scheduled"));
        QVERIFY(report::overlapText(*train, analysis::computeOverlap(*train)).find("the trace spans") == std::string::npos);
    }

    void handComputed()
    {
        // Two streams overlap on the GPU (10-20 and 15-30 us); the CPU works 0-12 and 25-40 us.
        const std::string json = R"({"traceEvents": [
            {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 12},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 25, "dur": 15, "args": {"correlation": 3}},
            {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 10, "dur": 10, "args": {"correlation": 3}},
            {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 8, "ts": 15, "dur": 15}]})";
        auto source = io::memorySource(json);
        const auto t = trace::loadTrace(*source);
        const auto r = analysis::computeOverlap(*t);
        QCOMPARE(r.window.start, int64_t(0));
        QCOMPARE(r.window.end, int64_t(40000));
        QCOMPARE(r.devices[0].busyNs, int64_t(20000)); // 10-30, not 10 + 15
        QCOMPARE(r.devices[0].kernels, uint64_t(1));
        QCOMPARE(r.devices[0].memcpys, uint64_t(1));
        QCOMPARE(r.devices[0].memsets, uint64_t(0));
        QVERIFY(r.devices[0].hasActivity);
        QCOMPARE(r.activeDevices(), 1);
        QCOMPARE(r.cpuBusyNs, int64_t(27000));
        QCOMPARE(r.overlapNs, int64_t(2000 + 5000));
        QCOMPARE(r.bothIdleNs, int64_t(0));
        QCOMPARE(r.launches.count, uint64_t(1));
        QCOMPARE(r.launches.cpuNs, int64_t(15000));
        QCOMPARE(r.launches.kernelNs, int64_t(10000));
    }

    // HTA's CUPTI range-profiler trace: its 77 kernels are counter records (cuda_profiler_range) at placeholder
    // times, not GPU activity; the text says so where it says there is none. A CPU-only trace has no such note.
    void profilerRangeRecordsAreNamed()
    {
        const auto t = trace::loadTrace(testutil::dataPath("external/hta/cupti_profiler_benchmark_result_924719_1679055439_trace.json.gz"));
        const auto r = analysis::computeOverlap(*t);
        QCOMPARE(r.activeDevices(), 0);
        QVERIFY(trace::profilerRangeText(*t).starts_with("its 77 kernels are CUPTI range-profiler records"));
        const std::string text = report::overlapText(*t, r, {});
        QVERIFY2(text.find("GPU: no timed GPU activity in the trace: its 77 kernels") != std::string::npos, text.c_str());
        QVERIFY(report::breakdownText(analysis::computeBreakdown(*t, std::nullopt), trace::profilerRangeText(*t))
                    .find("no timed GPU activity: its 77 kernels")
                != std::string::npos);
        QVERIFY(report::streamIdleText(analysis::computeStreamIdle(*t, std::nullopt, analysis::kDefaultKernelWaitThresholdNs),
                                       trace::profilerRangeText(*t))
                    .find("no timed GPU activity: its 77 kernels")
                != std::string::npos);
        const auto cpuOnly = trace::loadTrace(testutil::dataPath("external/hta/cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"));
        QVERIFY(trace::profilerRangeText(*cpuOnly).empty());
        QVERIFY(report::overlapText(*cpuOnly, analysis::computeOverlap(*cpuOnly), {}).find("GPU: no GPU activity in the trace")
                != std::string::npos);
    }

    // HTA's CPU-only gloo trace: the work is gloo:all_reduce annotations on gloo's threads, with no op
    // inside; they counted as labels, so CPU busy was 3.964 us (four aten::empty) over 1.3 s.
    void cpuOnlyTraceCountsAnnotatedWork()
    {
        const auto t = trace::loadTrace(testutil::dataPath("external/hta/cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"));
        const auto r = analysis::computeOverlap(*t);
        QCOMPARE(r.activeDevices(), 0);
        QVERIFY(r.devices.empty());
        const Direct d = sweep(*t, r.window);
        QCOMPARE(r.cpuBusyNs, d.cpuBusy);
        QCOMPARE(r.bothIdleNs, d.neither);
        QCOMPARE(r.overlapNs, int64_t(0));
        QVERIFY(r.cpuBusyNs > int64_t(1'000'000'000)); // the all_reduces alone cover more than 1 s
        QCOMPARE(r.threads.size(), size_t(3));
        // The label rule still holds where ops are recorded: an annotation around an op adds nothing.
        const std::string json = R"({"traceEvents": [
            {"ph": "X", "cat": "user_annotation", "name": "region", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 20},
            {"ph": "X", "cat": "user_annotation", "name": "leaf", "pid": 1, "tid": 2, "ts": 50, "dur": 30}]})";
        auto source = io::memorySource(json);
        const auto hand = analysis::computeOverlap(*trace::loadTrace(*source));
        QCOMPARE(hand.cpuBusyNs, int64_t(20000 + 30000));
        QCOMPARE(hand.window.start, int64_t(10000));
        QCOMPARE(hand.window.end, int64_t(80000));
    }

    void launchCostSentence()
    {
        analysis::OverlapReport r;
        r.window = {0, 1'000'000};
        r.gpuIdleWhileCpuBusyNs = 500'000; // the GPU waited on the CPU half the window
        analysis::LaunchCost& launches = r.launches;
        QCOMPARE(report::launchCostText(r), std::string("no kernel launches"));
        launches.count = 8772;
        launches.costlyLaunches = 5604;
        QVERIFY(r.launchBound());
        QCOMPARE(report::launchCostText(r),
                 std::string("launch-bound: 5,604 of 8,772 kernel launches cost at least 80% of their kernel's time"));
        // The same launches with the GPU busy all along (idle while the CPU worked 2.1% of the window): the
        // launches waited for a full queue, they did not starve the GPU; the sentence says why it is no verdict.
        r.gpuIdleWhileCpuBusyNs = 21'000;
        QVERIFY(launches.mostlyCostly());
        QVERIFY(!r.launchBound());
        QCOMPARE(report::launchCostText(r),
                 std::string("5,604 of 8,772 kernel launches cost at least 80% of their kernel's time, but the GPU "
                             "was idle while the CPU worked for only 2.1% of the window: they did not "
                             "starve it"));
        r.gpuIdleWhileCpuBusyNs = 100'000; // the line itself (10%) is launch-bound
        QVERIFY(r.launchBound());
        launches.costlyLaunches = 4385; // just under half: not launch-bound, and the sentence says so
        QVERIFY(!r.launchBound());
        QCOMPARE(report::launchCostText(r), std::string("4,385 of 8,772 kernel launches cost at least 80% of their kernel's time"));
        QCOMPARE(stats::formatCount(0), std::string("0"));
        QCOMPARE(stats::formatCount(999), std::string("999"));
        QCOMPARE(stats::formatCount(1000), std::string("1,000"));
        QCOMPARE(stats::formatCount(1234567), std::string("1,234,567"));
    }
};

QTEST_APPLESS_MAIN(TestOverlap)
#include "tst_overlap.moc"
