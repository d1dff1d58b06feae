// SPDX-License-Identifier: MIT
// Temporal breakdown and kernel types per device (issue #13): every figure against unions computed here from
// the raw JSON events (read with nlohmann, sorted and merged by hand), the parts summing to the window, the
// CLI's --step equal to --window of that step, and the JSON keys.
#include "testutil.h"

#include "analysis/breakdown.h"
#include "analysis/overlap.h"
#include "analysis/steps.h"
#include "io/decimal.h"
#include "io/smalljson.h"
#include "report/breakdownreport.h"
#include "trace/traceloader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>

using namespace tilescope;

namespace {

// A file `ts` in µs (at most three decimals) as exact ns, as tst_steps reads them.
int64_t ns(const io::Json& us) { return std::llround(static_cast<long double>(us.get<double>()) * 1000.0L); }

using Spans = std::vector<std::pair<int64_t, int64_t>>;

struct RawDevice
{
    Spans computation, communication, memory;
};

// GPU activity of the raw file by device (args "device", else pid) and type; NCCL kernels by name.
std::map<int, RawDevice> readRaw(const std::string& path)
{
    std::map<int, RawDevice> out;
    const io::Json doc = io::readSmallJsonFile(path);
    for (const io::Json& e : doc["traceEvents"]) {
        const std::string cat = e.value("cat", "");
        if (e.value("ph", "") != "X" || !e.contains("dur") || (cat != "kernel" && cat != "gpu_memcpy" && cat != "gpu_memset"))
            continue;
        const int device = e.contains("args") && e["args"].contains("device") ? e["args"]["device"].get<int>() : e["pid"].get<int>();
        const std::pair<int64_t, int64_t> span{ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])};
        std::string name = e.value("name", "");
        if (name.starts_with("void "))
            name = name.substr(5);
        RawDevice& d = out[device];
        if (cat != "kernel")
            d.memory.push_back(span);
        else if (name.starts_with("ncclKernel_") || name.starts_with("ncclDevKernel_"))
            d.communication.push_back(span);
        else
            d.computation.push_back(span);
    }
    return out;
}

// Clipped to [start, end), sorted and merged.
Spans merged(const Spans& spans, int64_t start, int64_t end)
{
    Spans clipped;
    for (const auto& [a, b] : spans)
        if (b > start && a < end && std::max(a, start) < std::min(b, end))
            clipped.emplace_back(std::max(a, start), std::min(b, end));
    std::sort(clipped.begin(), clipped.end());
    Spans out;
    for (const auto& s : clipped)
        if (!out.empty() && s.first <= out.back().second)
            out.back().second = std::max(out.back().second, s.second);
        else
            out.push_back(s);
    return out;
}

int64_t length(const Spans& merged)
{
    int64_t n = 0;
    for (const auto& [a, b] : merged)
        n += b - a;
    return n;
}

// |a ∩ b| of two merged lists, pair by pair.
int64_t overlapLength(const Spans& a, const Spans& b)
{
    int64_t n = 0;
    for (const auto& x : a)
        for (const auto& y : b)
            n += std::max<int64_t>(0, std::min(x.second, y.second) - std::max(x.first, y.first));
    return n;
}

Spans concat(Spans a, const Spans& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// The report (over its window) against the raw events of `path`.
void checkAgainstRaw(const std::string& path, const analysis::BreakdownReport& r)
{
    const auto raw = readRaw(path);
    const int64_t start = r.window.start, end = r.window.end, windowNs = end - start;
    QCOMPARE(r.devices.size(), raw.size());
    size_t i = 0;
    for (const auto& [device, d] : raw) {
        const analysis::DeviceBreakdown& b = r.devices[i++];
        QCOMPARE(b.device, device);
        const Spans comp = merged(d.computation, start, end), comm = merged(d.communication, start, end),
                    mem = merged(d.memory, start, end);
        const Spans all = merged(concat(concat(d.computation, d.communication), d.memory), start, end);
        QCOMPARE(b.computeNs, length(comp));
        QCOMPARE(b.nonComputeNs, length(all) - length(comp));
        QCOMPARE(b.idleNs, windowNs - length(all));
        QCOMPARE(b.computeNs + b.nonComputeNs + b.idleNs, windowNs);
        QVERIFY(b.computeNs >= 0 && b.nonComputeNs >= 0 && b.idleNs >= 0);
        QCOMPARE(b.kinds.computationNs, length(comp));
        QCOMPARE(b.kinds.communicationNs, length(comm));
        QCOMPARE(b.kinds.memoryNs, length(mem));
        QCOMPARE(b.kinds.computationCommunicationNs, overlapLength(comp, comm));
        QCOMPARE(b.kinds.computationMemoryNs, overlapLength(comp, mem));
        QCOMPARE(b.kinds.communicationMemoryNs, overlapLength(comm, mem));
        if (windowNs > 0)
            QCOMPARE(b.computeShare, double(b.computeNs) / double(windowNs));
        QCOMPARE(b.kinds.communicationOverlappedShare, length(comm) > 0 ? double(overlapLength(comp, comm)) / double(length(comm)) : 0.0);
    }
}

using Run = testutil::ProcessRun;
Run cli(const QStringList& arguments) { return testutil::runProcess(QStringLiteral(TILESCOPE_CLI), arguments); }

std::vector<std::string> fixtures()
{
    return {testutil::workloadTrace("streams_overlap"), testutil::dataPath("nccl/nccl_allreduce_broadcast.json"),
            testutil::workloadTrace("launch_bound")};
}

// Compute, NCCL and memory activity that overlap in every pair, on two devices.
const char* kSynthetic = R"json({"traceEvents": [
{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 100.0, "dur": 50.0, "args": {"device": 0, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "pid": 0, "tid": 8, "ts": 130.0, "dur": 40.5, "args": {"device": 0, "stream": 8}},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 9, "ts": 140.25, "dur": 60.0, "args": {"device": 0, "stream": 9}},
{"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 9, "ts": 210.0, "dur": 5.0, "args": {"device": 0, "stream": 9}},
{"ph": "X", "cat": "kernel", "name": "void ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", "pid": 1, "tid": 7, "ts": 120.0, "dur": 10.0, "args": {"device": 1, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "relu", "pid": 1, "tid": 7, "ts": 150.0, "dur": 10.0, "args": {"device": 1, "stream": 7}}
]})json";

} // namespace

class TestBreakdown : public QObject
{
    Q_OBJECT

private slots:
    void fixturesEqualRawUnions()
    {
        for (const std::string& path : fixtures()) {
            const auto t = trace::loadTrace(path);
            const analysis::BreakdownReport whole = analysis::computeBreakdown(*t);
            QCOMPARE(whole.window.start, analysis::defaultOverlapWindow(*t)->start);
            QCOMPARE(whole.window.end, analysis::defaultOverlapWindow(*t)->end);
            QVERIFY(!whole.devices.empty());
            checkAgainstRaw(path, whole);
            // A window through the middle clips activities.
            const int64_t mid = whole.window.start + (whole.window.end - whole.window.start) / 3;
            const analysis::BreakdownReport part = analysis::computeBreakdown(*t,
                                                                              analysis::Interval{mid, mid + (whole.window.end - mid) / 2});
            checkAgainstRaw(path, part);
        }
        // The NCCL fixture is communication only: the rule in trace::isCommunicationKernel sees it.
        const auto nccl = trace::loadTrace(fixtures()[1]);
        const analysis::BreakdownReport r = analysis::computeBreakdown(*nccl);
        QVERIFY(r.devices[0].kinds.communicationNs > 0);
        QCOMPARE(r.devices[0].computeNs, int64_t(0));
    }

    void syntheticOverlapsEveryPair()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("synthetic.json")).toStdString();
        {
            std::ofstream out(path);
            out << kSynthetic;
        }
        const auto t = trace::loadTrace(path);
        const analysis::BreakdownReport r = analysis::computeBreakdown(*t);
        QCOMPARE(r.devices.size(), size_t(2));
        checkAgainstRaw(path, r);
        const analysis::KernelTypeTimes& k = r.devices[0].kinds;
        QCOMPARE(k.computationCommunicationNs, int64_t(20'000)); // 130..150
        QCOMPARE(k.computationMemoryNs, int64_t(9'750));         // 140.25..150
        QCOMPARE(k.communicationMemoryNs, int64_t(30'250));      // 140.25..170.5
        QCOMPARE(k.communicationOverlappedShare, 20'000.0 / 40'500.0);
        QCOMPARE(r.devices[1].computeNs, int64_t(10'000));
        QCOMPARE(r.devices[1].nonComputeNs, int64_t(10'000));
    }

    void cliJsonKeysAndValues()
    {
        const QString path = QString::fromStdString(fixtures()[0]);
        const Run run = cli({"breakdown", path, "--format", "json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(doc.keys(), (QStringList{"devices", "window_end_us", "window_start_us"}));
        const QJsonArray devices = doc.value("devices").toArray();
        QCOMPARE(devices.size(), 1);
        const QJsonObject d = devices.at(0).toObject();
        QStringList deviceKeys{"device",        "compute_us",        "non_compute_us", "idle_us",
                               "compute_share", "non_compute_share", "idle_share",     "kinds"};
        deviceKeys.sort();
        QCOMPARE(d.keys(), deviceKeys);
        QStringList kindKeys{"computation_us",
                             "communication_us",
                             "memory_us",
                             "computation_communication_overlap_us",
                             "computation_memory_overlap_us",
                             "communication_memory_overlap_us",
                             "communication_overlapped_share"};
        kindKeys.sort();
        QCOMPARE(d.value("kinds").toObject().keys(), kindKeys);
        // The CLI prints the core's numbers, which the test above checks against the raw events.
        const auto t = trace::loadTrace(path.toStdString());
        const analysis::BreakdownReport r = analysis::computeBreakdown(*t);
        QCOMPARE(run.out.toStdString(), report::breakdownJson(r));
        QCOMPARE(std::llround(d.value("compute_us").toDouble() * 1000.0), r.devices[0].computeNs);
        // The order of keys as documented.
        QVERIFY(run.out.indexOf("\"window_start_us\"") < run.out.indexOf("\"window_end_us\""));
        const Run text = cli({"breakdown", path});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("temporal breakdown") && text.out.contains("kernel types"), text.out.constData());
    }

    void cliStepEqualsWindow()
    {
        const QString path = QString::fromStdString(testutil::workloadTrace("train_scheduled"));
        const auto t = trace::loadTrace(path.toStdString());
        const analysis::StepTable table = analysis::computeStepTable(*t);
        QVERIFY(table.steps.size() >= 2);
        const analysis::StepRow& step = table.steps[1];
        const QString window = QString::fromStdString(io::formatNanosecondsAsMicroseconds(step.start) + ","
                                                      + io::formatNanosecondsAsMicroseconds(step.end));
        const Run byStep = cli({"breakdown", path, "--format", "json", "--step", QString::number(step.number)});
        const Run byWindow = cli({"breakdown", path, "--format", "json", "--window", window});
        QCOMPARE(byStep.exitCode, 0);
        QCOMPARE(byWindow.exitCode, 0);
        QCOMPARE(byStep.out, byWindow.out);
        const analysis::BreakdownReport r = analysis::computeBreakdown(*t, analysis::Interval{step.start, step.end});
        QCOMPARE(byStep.out.toStdString(), report::breakdownJson(r));
        checkAgainstRaw(path.toStdString(), r);
    }

    void cliBadInput()
    {
        const QString path = QString::fromStdString(fixtures()[0]);
        const Run format = cli({"breakdown", path, "--format", "csv"});
        QCOMPARE(format.exitCode, 2);
        QVERIFY(format.err.contains("--format for breakdown"));
        const Run noSteps = cli({"breakdown", QString::fromStdString(fixtures()[2]), "--step", "0"}); // launch_bound has no steps
        QCOMPARE(noSteps.exitCode, 2);
        QVERIFY2(noSteps.err.contains("no steps"), noSteps.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestBreakdown)
#include "tst_breakdown.moc"
