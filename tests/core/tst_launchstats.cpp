// SPDX-License-Identifier: MIT
// Launch statistics (issue #13): every launch's CPU duration, GPU duration and delay, the per-stream
// distributions and both outlier lists against a computation here from the raw JSON events (nlohmann):
// calls and activities matched by args "correlation", percentiles found by counting. Fixtures with the
// runtime API, the driver API (cuLaunchKernelEx) and graph launches; a synthetic trace with known
// numbers; windows; the CLI's JSON; bad input.
#include "exactjson.h"
#include "testutil.h"

#include "analysis/launchstats.h"
#include "io/smalljson.h"
#include "report/launchreport.h"
#include "stats/distribution.h"
#include "trace/traceloader.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

using namespace tilescope;

namespace {

int64_t ns(const nlohmann::json& us) { return testutil::exactNs(us); }

struct RawLaunch
{
    std::string api;
    int64_t start = 0, cpu = 0, gpu = 0, firstStart = 0;
    std::string firstCat;
    std::pair<int64_t, int64_t> stream{-1, -1}; // (device, stream) of the first activity
    int activities = 0;
};

// Launch calls and GPU activities of the raw file, matched by correlation; launches whose call starts in [from, to).
std::vector<RawLaunch> readRaw(const std::string& path, int64_t from = INT64_MIN, int64_t to = INT64_MAX)
{
    const nlohmann::json doc = testutil::readExactJson(path);
    std::map<int64_t, RawLaunch> calls;
    std::multimap<int64_t, const nlohmann::json*> activities;
    for (const nlohmann::json& e : doc["traceEvents"]) {
        const std::string cat = e.value("cat", "");
        if (e.value("ph", "") != "X" || !e.contains("args") || !e["args"].contains("correlation"))
            continue;
        const int64_t correlation = e["args"]["correlation"].get<int64_t>();
        if (cat == "cuda_runtime" || cat == "cuda_driver") {
            RawLaunch l;
            l.api = e["name"].get<std::string>();
            l.start = ns(e["ts"]);
            l.cpu = ns(e["dur"]);
            calls.emplace(correlation, l);
        } else if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
            activities.emplace(correlation, &e);
        }
    }
    std::vector<RawLaunch> out;
    for (auto& [correlation, l] : calls) {
        const auto [begin, end] = activities.equal_range(correlation);
        if (begin == end || l.start < from || l.start >= to)
            continue;
        bool first = true;
        for (auto it = begin; it != end; ++it) {
            const nlohmann::json& a = *it->second;
            ++l.activities;
            l.gpu += ns(a["dur"]);
            if (first || ns(a["ts"]) < l.firstStart) {
                l.firstStart = ns(a["ts"]);
                l.firstCat = a["cat"].get<std::string>();
                l.stream = {a["args"].value("device", int64_t{-1}), a["args"].value("stream", int64_t{-1})};
            }
            first = false;
        }
        out.push_back(l);
    }
    return out;
}

// The smallest value v of `values` with at least p% of them <= v, by counting.
int64_t percentileByCounting(const std::vector<int64_t>& values, int p)
{
    std::set<int64_t> distinct(values.begin(), values.end());
    for (const int64_t v : distinct) {
        const auto atOrBelow = std::count_if(values.begin(), values.end(), [&](int64_t x) { return x <= v; });
        if (atOrBelow * 100 >= static_cast<long>(p) * static_cast<long>(values.size()))
            return v;
    }
    return 0;
}

void compareDistribution(const stats::Distribution& d, const std::vector<int64_t>& values, const char* what)
{
    QVERIFY2(d.count == values.size(), what);
    if (values.empty())
        return;
    QCOMPARE(d.min, *std::min_element(values.begin(), values.end()));
    QCOMPARE(d.max, *std::max_element(values.begin(), values.end()));
    QCOMPARE(d.p50, percentileByCounting(values, 50));
    QCOMPARE(d.p90, percentileByCounting(values, 90));
    QCOMPARE(d.p99, percentileByCounting(values, 99));
    double sum = 0;
    for (const int64_t v : values)
        sum += static_cast<double>(v);
    QVERIFY(std::abs(d.mean - sum / static_cast<double>(values.size())) <= 1e-6 * std::max(1.0, std::abs(d.mean)));
}

// Everything computeLaunchStats reports against the raw launches.
void compareWithRaw(const trace::Trace& t, const analysis::LaunchStats& s, const std::vector<RawLaunch>& raw)
{
    QCOMPARE(s.launches.size(), raw.size());
    std::map<std::pair<int64_t, int64_t>, std::vector<const RawLaunch*>> byStream;
    std::map<std::string, uint64_t> apis;
    std::vector<int64_t> cpu, gpu, delay;
    for (const RawLaunch& l : raw) {
        byStream[l.stream].push_back(&l);
        ++apis[l.api];
        cpu.push_back(l.cpu);
        gpu.push_back(l.gpu);
        delay.push_back(l.firstStart - l.start);
    }
    compareDistribution(s.cpu, cpu, "all cpu");
    compareDistribution(s.gpu, gpu, "all gpu");
    compareDistribution(s.delay, delay, "all delay");
    std::map<std::string, uint64_t> reportedApis(s.apis.begin(), s.apis.end());
    QVERIFY(reportedApis == apis);

    QCOMPARE(s.streams.size(), byStream.size());
    std::map<std::pair<int64_t, int64_t>, int64_t> p99ByStream; // lowest for streams under 100 launches: no p99 test
    for (const analysis::StreamLaunchStats& st : s.streams) {
        const auto it = byStream.find({st.device, st.stream.value_or(-1)});
        QVERIFY2(it != byStream.end(), "a reported stream the raw events do not have");
        std::vector<int64_t> c, g, d;
        for (const RawLaunch* l : it->second) {
            c.push_back(l->cpu);
            g.push_back(l->gpu);
            d.push_back(l->firstStart - l->start);
        }
        compareDistribution(st.cpu, c, "stream cpu");
        compareDistribution(st.gpu, g, "stream gpu");
        compareDistribution(st.delay, d, "stream delay");
        p99ByStream[it->first] = d.size() >= 100 ? percentileByCounting(d, 99) : INT64_MIN;
    }

    // Outliers by their rules, as sets of call start times.
    std::multiset<int64_t> shortRaw, longRaw, shortReported, longReported;
    for (const RawLaunch& l : raw) {
        if (l.firstCat == "kernel" && 2 * l.gpu < l.cpu)
            shortRaw.insert(l.start);
        if (l.firstStart - l.start > p99ByStream[l.stream] && l.firstStart - l.start > 100'000)
            longRaw.insert(l.start);
    }
    for (const uint32_t i : s.shortKernels)
        shortReported.insert(t.events[s.launches[i].launch].start);
    for (const uint32_t i : s.longDelays)
        longReported.insert(t.events[s.launches[i].launch].start);
    QVERIFY(shortRaw == shortReported);
    QVERIFY(longRaw == longReported);
    for (size_t k = 1; k < s.shortKernels.size(); ++k) {
        const auto& a = s.launches[s.shortKernels[k - 1]];
        const auto& b = s.launches[s.shortKernels[k]];
        QVERIFY(a.cpuNs - a.gpuNs >= b.cpuNs - b.gpuNs);
    }
    for (size_t k = 1; k < s.longDelays.size(); ++k)
        QVERIFY(s.launches[s.longDelays[k - 1]].delayNs >= s.launches[s.longDelays[k]].delayNs);
}

std::unique_ptr<trace::Trace> load(const std::string& path)
{
    trace::LoadOptions options;
    options.keepRawArgs = false;
    return trace::loadTrace(path, options);
}

testutil::ProcessRun cli(const QStringList& arguments) { return testutil::runProcess(QStringLiteral(TILESCOPE_CLI), arguments); }

// Three launches on stream 7 and a graph launch of two kernels on stream 8, with numbers chosen by hand.
const char* kSynthetic = R"({"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 100, "dur": 100, "args": {"External id": 1}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 10, "args": {"External id": 1, "correlation": 11}},
 {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernelEx", "pid": 1, "tid": 1, "ts": 130, "dur": 40, "args": {"External id": 1, "correlation": 12}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 180, "dur": 8, "args": {"External id": 1, "correlation": 13}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": 190, "dur": 6, "args": {"correlation": 14}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1, "ts": 197, "dur": 300, "args": {"correlation": 15}},
 {"ph": "X", "cat": "kernel", "name": "k_a", "pid": 0, "tid": 7, "ts": 125, "dur": 30, "args": {"device": 0, "stream": 7, "correlation": 11, "External id": 1}},
 {"ph": "X", "cat": "kernel", "name": "k_b", "pid": 0, "tid": 7, "ts": 160, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 12, "External id": 1}},
 {"ph": "X", "cat": "kernel", "name": "k_c", "pid": 0, "tid": 7, "ts": 400, "dur": 20, "args": {"device": 0, "stream": 7, "correlation": 13, "External id": 1}},
 {"ph": "X", "cat": "kernel", "name": "g_2", "pid": 0, "tid": 8, "ts": 230, "dur": 3, "args": {"device": 0, "stream": 8, "correlation": 14}},
 {"ph": "X", "cat": "kernel", "name": "g_1", "pid": 0, "tid": 8, "ts": 200, "dur": 4, "args": {"device": 0, "stream": 8, "correlation": 14}}
]})";

} // namespace

class TestLaunchStats : public QObject
{
    Q_OBJECT

private slots:
    void distributionNearestRank()
    {
        const stats::Distribution d = stats::distributionOf({5, 1, 4, 2, 3, 6, 7, 8, 9, 10});
        QCOMPARE(d.count, uint64_t{10});
        QCOMPARE(d.min, int64_t{1});
        QCOMPARE(d.p50, int64_t{5}); // 5 of 10 at or below 5
        QCOMPARE(d.p90, int64_t{9});
        QCOMPARE(d.p99, int64_t{10});
        QCOMPARE(d.max, int64_t{10});
        QCOMPARE(d.mean, 5.5);
        QCOMPARE(stats::distributionOf({}).count, uint64_t{0});
        QCOMPARE(stats::distributionOf({42}).p50, int64_t{42});
        std::vector<int64_t> twoHundred;
        for (int64_t v = 200; v >= 1; --v)
            twoHundred.push_back(v);
        const stats::Distribution e = stats::distributionOf(twoHundred);
        QCOMPARE(e.p99, int64_t{198}); // rank ceil(0.99 * 200) = 198 exactly, not 199
        QCOMPARE(e.p90, int64_t{180});
        QCOMPARE(e.p50, int64_t{100});
        QCOMPARE(e.p99, percentileByCounting(twoHundred, 99));
    }

    void fixturesEqualRawEvents_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("train_scheduled (runtime and driver API)") << QString::fromStdString(testutil::workloadTrace("train_scheduled"));
        QTest::newRow("launch_bound") << QString::fromStdString(testutil::workloadTrace("launch_bound"));
        QTest::newRow("cuda_graph (graph launches)") << QString::fromStdString(testutil::dataPath("findings/cuda_graph.json.gz"));
        QTest::newRow("sync_stall (memcpy, memset)") << QString::fromStdString(testutil::dataPath("findings/sync_stall.json.gz"));
        QTest::newRow("hta ns_resolution") << QString::fromStdString(testutil::dataPath("external/hta/ns_resolution_trace_rank0.json.gz"));
    }

    void fixturesEqualRawEvents()
    {
        QFETCH(QString, path);
        const auto t = load(path.toStdString());
        const analysis::LaunchStats s = analysis::computeLaunchStats(*t);
        QVERIFY(!s.launches.empty());
        compareWithRaw(*t, s, readRaw(path.toStdString()));
    }

    void driverApiCounted()
    {
        const auto t = load(testutil::workloadTrace("train_scheduled"));
        const analysis::LaunchStats s = analysis::computeLaunchStats(*t);
        std::map<std::string, uint64_t> apis(s.apis.begin(), s.apis.end());
        QCOMPARE(apis["cuLaunchKernelEx"], uint64_t{192});
        QCOMPARE(apis["cudaLaunchKernel"], uint64_t{294});
    }

    void windowSelectsCallsStartingInIt()
    {
        const std::string path = testutil::workloadTrace("train_scheduled");
        const auto t = load(path);
        const analysis::LaunchStats whole = analysis::computeLaunchStats(*t);
        const int64_t from = t->events[whole.launches[whole.launches.size() / 3].launch].start;
        const int64_t to = t->events[whole.launches[2 * whole.launches.size() / 3].launch].start;
        const analysis::LaunchStats part = analysis::computeLaunchStats(*t, analysis::Interval{from, to});
        QVERIFY(part.launches.size() < whole.launches.size());
        compareWithRaw(*t, part, readRaw(path, from, to));
    }

    void syntheticNumbers()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("synthetic.json").toStdString();
        std::ofstream(path) << kSynthetic;
        const auto t = load(path);
        const analysis::LaunchStats s = analysis::computeLaunchStats(*t);
        QCOMPARE(s.launches.size(), size_t{4}); // the synchronize has no activity
        compareWithRaw(*t, s, readRaw(path));
        QCOMPARE(s.streams.size(), size_t{2});
        QCOMPARE(s.streams[0].stream, std::optional<int64_t>(7));
        QCOMPARE(s.streams[0].delay.max, int64_t{220'000}); // k_c: 400 - 180 us
        const analysis::LaunchRecord& graph = s.launches[3];
        QCOMPARE(graph.activities, uint32_t{2});
        QCOMPARE(graph.gpuNs, int64_t{7'000});
        QCOMPARE(graph.delayNs, int64_t{10'000}); // g_1 starts first
        QCOMPARE(std::string(t->name(t->events[graph.activity])), std::string("g_1"));
        // cuLaunchKernelEx: 40 us for a 5 us kernel, the only kernel under half its launch
        QCOMPARE(s.shortKernels.size(), size_t{1});
        QCOMPARE(std::string(t->name(t->events[s.launches[s.shortKernels[0]].launch])), std::string("cuLaunchKernelEx"));
        // k_c waits 220 us, above 100 us on a stream of 3 launches (too few for a p99 test): the one long delay
        QCOMPARE(s.longDelays.size(), size_t{1});
        QCOMPARE(std::string(t->name(t->events[s.launches[s.longDelays[0]].activity])), std::string("k_c"));
    }

    // 200 launches on one stream, delays of 10 us but one of 500 us and two of 150 us: the p99 (nearest
    // rank 198 of 200) is 150 us, so only the 500 us launch is long.
    void syntheticLongDelay()
    {
        std::string events = R"({"traceEvents": [)";
        for (int i = 0; i < 200; ++i) {
            const int ts = 1000 + 1000 * i;
            const int delay = i == 50 ? 500 : (i == 80 || i == 90) ? 150 : 10;
            events += std::string(i ? "," : "")
                + R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": )" + std::to_string(ts)
                + R"(, "dur": 5, "args": {"correlation": )" + std::to_string(i + 1) + "}},"
                + R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": )" + std::to_string(ts + delay)
                + R"(, "dur": 4, "args": {"device": 0, "stream": 7, "correlation": )" + std::to_string(i + 1) + "}}";
        }
        QTemporaryDir dir;
        const std::string path = dir.filePath("delays.json").toStdString();
        std::ofstream(path) << events + "]}";
        const auto t = load(path);
        const analysis::LaunchStats s = analysis::computeLaunchStats(*t);
        compareWithRaw(*t, s, readRaw(path));
        QCOMPARE(s.streams.front().delay.p99, int64_t{150'000});
        QCOMPARE(s.longDelays.size(), size_t{1});
        QCOMPARE(t->events[s.launches[s.longDelays[0]].launch].start, int64_t{51'000'000});
        QVERIFY(s.shortKernels.empty()); // 4 us kernels of 5 us calls: not below half
    }

    void cliJsonAndTable()
    {
        const QString path = QString::fromStdString(testutil::workloadTrace("train_scheduled"));
        const auto run = cli({"launches", path, "--format", "json", "--outliers", "3"});
        QCOMPARE(run.exitCode, 0);
        const io::Json doc = io::parseSmallJson(run.out.toStdString(), "launches");
        QCOMPARE(doc["launches"].get<size_t>(), size_t{192 + 294 + 111 + 3});
        QVERIFY(doc["all"]["cpu_duration"].contains("p99_us"));
        QVERIFY(doc["short_kernels"]["outliers"].size() <= 3);
        QVERIFY(doc["short_kernels"]["count"].get<size_t>() >= doc["short_kernels"]["outliers"].size());
        for (const io::Json& o : doc["short_kernels"]["outliers"])
            for (const char* key : {"launch_event", "activity_event", "launch_name", "kernel_name", "launch_start_us", "kernel_start_us",
                                    "cpu_duration_us", "gpu_duration_us", "launch_delay_us"})
                QVERIFY2(o.contains(key), key);
        const auto table = cli({"launches", path});
        QCOMPARE(table.exitCode, 0);
        QVERIFY(table.out.contains("cuLaunchKernelEx 192"));
        QVERIFY(table.out.contains("p99"));
        // --step equals --window of that step
        const auto steps = cli({"steps", path, "--format", "json"});
        const io::Json stepDoc = io::parseSmallJson(steps.out.toStdString(), "steps");
        if (!stepDoc["steps"].empty()) {
            const io::Json& first = stepDoc["steps"][0];
            const auto byStep = cli({"launches", path, "--format", "json", "--step", QString::number(first["step"].get<int64_t>())});
            QCOMPARE(byStep.exitCode, 0);
            const io::Json stepLaunches = io::parseSmallJson(byStep.out.toStdString(), "launches");
            const auto byWindow = cli({"launches", path, "--format", "json", "--window",
                                       QString::fromStdString(io::dumpJson(stepLaunches["window_start_us"]) + ","
                                                              + io::dumpJson(stepLaunches["window_end_us"]))});
            QCOMPARE(byWindow.out, byStep.out);
        }
    }

    void badInput()
    {
        QTemporaryDir dir;
        const QString broken = dir.filePath("broken.json");
        std::ofstream(broken.toStdString()) << R"({"traceEvents": [{"ph": "X", "cat": "kernel", )";
        auto run = cli({"launches", broken});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("broken.json"));
        run = cli({"launches", dir.filePath("missing.json")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("missing.json"));
        run = cli({"launches", QString::fromStdString(testutil::workloadTrace("jit_cold")), "--outliers", "many"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("--outliers"));
        run = cli({"launches", QString::fromStdString(testutil::workloadTrace("jit_cold")), "--format", "csv"});
        QCOMPARE(run.exitCode, 2);
        // A CPU-only trace: no launches, said in words
        run = cli({"launches",
                   QString::fromStdString(testutil::dataPath("external/hta/cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"))});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains("no launches"));
    }
};

QTEST_GUILESS_MAIN(TestLaunchStats)
#include "tst_launchstats.moc"
