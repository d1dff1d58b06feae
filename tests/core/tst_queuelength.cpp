// SPDX-License-Identifier: MIT
// Launch queue length per GPU stream (issue #13): the summary against a brute-force count here from the raw JSON
// events (at each moment, the launch/activity pairs with launch start <= t < activity start; the mean as the sum of
// the pairs' pending times over the window), whole and cut windows; a synthetic trace with the levels, the full
// queue and the blocked time worked out by hand; the CLI's JSON and --series; bad input.
#include "testutil.h"

#include "rawstreams.h"
#include "streamfixtures.h"

#include "analysis/queuelength.h"
#include "analysis/steps.h"
#include "io/decimal.h"
#include "report/queuereport.h"
#include "trace/traceloader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

using namespace tilescope;

namespace {

using Pairs = std::vector<std::pair<int64_t, int64_t>>; // [launch start, activity start)

int32_t pendingAt(const Pairs& pairs, int64_t t)
{
    int32_t n = 0;
    for (const auto& [launch, start] : pairs)
        n += launch <= t && t < start;
    return n;
}

void checkAgainstRaw(const std::string& path, const analysis::QueueReport& report)
{
    const rawstreams::RawTrace& raw = rawstreams::read(path);
    uint64_t withoutLaunch = 0;
    size_t i = 0;
    for (const auto& [key, acts] : raw.streams) {
        Pairs pairs;
        for (const auto& a : acts) {
            const auto launch = a.correlation ? raw.launches.find(*a.correlation) : raw.launches.end();
            if (launch == raw.launches.end())
                ++withoutLaunch;
            else
                pairs.emplace_back(launch->second.start, a.start);
        }
        if (pairs.empty())
            continue;
        int64_t start = INT64_MAX, end = INT64_MIN;
        for (const auto& [launch, activity] : pairs)
            if (launch != activity) {
                start = std::min({start, launch, activity});
                end = std::max({end, launch, activity});
            }
        if (report.selection) {
            start = std::max(start, report.selection->start);
            end = std::min(end, report.selection->end);
        }
        if (end <= start)
            continue;
        QVERIFY(i < report.streams.size());
        const analysis::StreamQueue& q = report.streams[i++];
        QCOMPARE(q.device, key.first);
        QCOMPARE(q.stream, key.second);
        // The operations launched in the selection (all without one), as `launches` counts a window.
        const auto launchedInSelection = std::count_if(pairs.begin(), pairs.end(), [&](const auto& pair) {
            return !report.selection || (pair.first >= report.selection->start && pair.first < report.selection->end);
        });
        QCOMPARE(q.operations, uint64_t(launchedInSelection));
        if (report.selection)
            QVERIFY2(q.operations < pairs.size(), "a step's selection holds only some of the stream's operations");
        QCOMPARE(q.window.start, start);
        QCOMPARE(q.window.end, end);
        // Time at each length, from the count at every boundary inside the window.
        std::set<int64_t> bounds{start, end};
        for (const auto& [launch, activity] : pairs)
            for (const int64_t b : {launch, activity})
                if (b > start && b < end)
                    bounds.insert(b);
        std::map<int32_t, int64_t> atLength;
        long double pendingNs = 0;
        for (auto it = bounds.begin(); std::next(it) != bounds.end(); ++it)
            atLength[pendingAt(pairs, *it)] += *std::next(it) - *it;
        for (const auto& [launch, activity] : pairs)
            pendingNs += std::max<int64_t>(0, std::min(activity, end) - std::max(launch, start));
        QCOMPARE(q.timeAtLength, (std::vector<std::pair<int32_t, int64_t>>(atLength.begin(), atLength.end())));
        QCOMPARE(q.maxLength, atLength.rbegin()->first);
        QCOMPARE(q.meanLength, static_cast<double>(pendingNs / (end - start)));
        int64_t sum = 0;
        for (const auto& [length, ns] : q.timeAtLength)
            sum += ns;
        QCOMPARE(sum, end - start);
        QVERIFY(q.medianLength <= q.p95Length && q.p95Length <= q.maxLength);
    }
    QCOMPARE(report.streams.size(), i);
    if (!report.selection)
        QCOMPARE(report.activitiesWithoutLaunch, withoutLaunch);
}

using Run = testutil::ProcessRun;
Run cli(const QStringList& arguments) { return testutil::runProcess(QStringLiteral(TILESCOPE_CLI), arguments); }

using streamfixtures::fixtures;
using streamfixtures::writeSynthetic;

// The synthetic trace of streamfixtures.h, as this test reads it:
// Stream 7 of device 0, pending pairs [launch, start) in µs: [0,10) [2,22) [40,45) [41,70) (a driver launch)
// [42,80.5) (a memcpy) [110,115); one kernel without a recorded launch. Its lengths: 0-2:1 2-10:2 10-22:1 22-40:0
// 40-41:1 41-42:2 42-45:3 45-70:2 70-80.5:1 80.5-110:0 110-115:1. Stream 8: [3,12) [4,14).
} // namespace

class TestQueueLength : public QObject
{
    Q_OBJECT

private slots:
    void fixturesEqualRawCounts()
    {
        for (const std::string& path : fixtures()) {
            const auto t = trace::loadTrace(path);
            const analysis::QueueReport whole = analysis::computeQueueLength(*t);
            QVERIFY(!whole.streams.empty());
            checkAgainstRaw(path, whole);
            const int64_t first = whole.streams.front().window.start, last = whole.streams.front().window.end;
            checkAgainstRaw(path,
                            analysis::computeQueueLength(*t, analysis::Interval{first + (last - first) / 3, first + (last - first) / 2}));
        }
        // launch_bound's CPU barely keeps one kernel queued.
        const auto launchBound = trace::loadTrace(fixtures()[1]);
        QVERIFY(analysis::computeQueueLength(*launchBound).streams.at(0).meanLength < 2.0);
        // HTA's ns-resolution trace saturates its stream: the default limit sees the plateau, the CPU inside a
        // launch call throughout; CUDA's nominal 1024 is never reached.
        const auto saturated = trace::loadTrace(fixtures()[4]);
        const analysis::StreamQueue full = analysis::computeQueueLength(*saturated).streams.at(0);
        QCOMPARE(full.maxLength, analysis::kDefaultLaunchQueueLimit);
        QVERIFY(full.fullNs > (full.window.end - full.window.start) / 3);
        QCOMPARE(full.blockedNs, full.fullNs);
        QCOMPARE(analysis::computeQueueLength(*saturated, std::nullopt, 1024).streams.at(0).fullNs, int64_t(0));
    }

    void syntheticLevels()
    {
        QTemporaryDir dir;
        const std::string path = writeSynthetic(dir);
        const auto t = trace::loadTrace(path);
        const analysis::QueueReport r = analysis::computeQueueLength(*t, std::nullopt, 3);
        checkAgainstRaw(path, r);
        QCOMPARE(r.activitiesWithoutLaunch, uint64_t(1));
        QCOMPARE(r.streams.size(), size_t(2));
        const analysis::StreamQueue& q = r.streams[0];
        QCOMPARE(q.operations, uint64_t(6));
        QCOMPARE(q.window.start, int64_t(0));
        QCOMPARE(q.window.end, int64_t(115'000));
        QCOMPARE(q.maxLength, 3);
        QCOMPARE(q.timeAtLength, (std::vector<std::pair<int32_t, int64_t>>{{0, 47'500}, {1, 30'500}, {2, 34'000}, {3, 3'000}}));
        QCOMPARE(q.meanLength, 107'500.0 / 115'000.0);
        QCOMPARE(q.medianLength, 1); // 47.5 of 115 µs at 0, 78 at or below 1
        QCOMPARE(q.p95Length, 2);    // 112 of 115 µs at or below 2
        // Full (at the limit 3) 42..45; a launch call to stream 7 ran 42..44 of it.
        QCOMPARE(q.fullNs, int64_t(3'000));
        QCOMPARE(q.blockedNs, int64_t(2'000));
        QCOMPARE(q.series.front().time, int64_t(0));
        QCOMPARE(q.series.back().length, 0);
        // CUDA's limit is never reached here.
        const analysis::QueueReport cudaLimit = analysis::computeQueueLength(*t);
        QCOMPARE(cudaLimit.limit, 1022);
        QCOMPARE(cudaLimit.streams[0].fullNs, int64_t(0));
        QCOMPARE(cudaLimit.streams[0].blockedNs, int64_t(0));
        // A window: the length at its start counts launches from before it.
        const analysis::QueueReport cut = analysis::computeQueueLength(*t, analysis::Interval{43'000, 50'000}, 3);
        checkAgainstRaw(path, cut);
        QCOMPARE(cut.streams.size(), size_t(1));
        QCOMPARE(cut.streams[0].timeAtLength, (std::vector<std::pair<int32_t, int64_t>>{{2, 5'000}, {3, 2'000}}));
        QCOMPARE(cut.streams[0].blockedNs, int64_t(1'000));
    }

    void cliJsonAndSeries()
    {
        QTemporaryDir dir;
        const QString path = QString::fromStdString(writeSynthetic(dir));
        const Run run = cli({"queue", path, "--format", "json", "--limit", "3"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(doc.keys(), (QStringList{"activities_without_launch", "limit", "selection", "streams"}));
        const QJsonObject s = doc.value("streams").toArray().at(0).toObject();
        QStringList keys{"device", "stream", "operations", "window_start_us", "window_end_us", "max",
                         "mean",   "median", "p95",        "full_us",         "blocked_us",    "time_at_length"};
        keys.sort();
        QCOMPARE(s.keys(), keys);
        QCOMPARE(s.value("max").toInt(), 3);
        QCOMPARE(s.value("full_us").toDouble(), 3.0);
        QCOMPARE(s.value("blocked_us").toDouble(), 2.0);
        QCOMPARE(testutil::jsonAt(s, {"time_at_length", 3, "us"}).toDouble(), 3.0);
        const auto t = trace::loadTrace(path.toStdString());
        QCOMPARE(run.out.toStdString(), report::queueJson(analysis::computeQueueLength(*t, std::nullopt, 3)));

        const Run series = cli({"queue", path, "--format", "json", "--series"});
        QCOMPARE(series.exitCode, 0);
        const QJsonArray steps = testutil::jsonAt(QJsonDocument::fromJson(series.out).object(), {"streams", 0, "series"}).toArray();
        QCOMPARE(steps.size(), 12); // the changes in the comment above the trace, the last back to 0
        QCOMPARE(steps.at(6).toArray().at(0).toDouble(), 42.0);
        QCOMPARE(steps.at(6).toArray().at(1).toInt(), 3);
        const Run table = cli({"queue", path, "--series"});
        QCOMPARE(table.exitCode, 0);
        QVERIFY2(table.out.contains("GPU 0 stream 7 (ts_us length):\n0 1\n2 2\n"), table.out.constData());
        QVERIFY2(table.out.contains("1 GPU activities have no recorded launch"), table.out.constData());
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
        const Run byStep = cli({"queue", path, "--format", "json", "--step", QString::number(step.number)});
        const Run byWindow = cli({"queue", path, "--format", "json", "--window", window});
        QCOMPARE(byStep.exitCode, 0);
        QCOMPARE(byStep.out, byWindow.out);
        const analysis::QueueReport r = analysis::computeQueueLength(*t, analysis::Interval{step.start, step.end});
        QCOMPARE(byStep.out.toStdString(), report::queueJson(r));
        checkAgainstRaw(path.toStdString(), r);
    }

    void cliBadInput()
    {
        const QString path = QString::fromStdString(testutil::workloadTrace("streams_overlap"));
        QCOMPARE(cli({"queue", path, "--format", "csv"}).exitCode, 2);
        for (const QString& limit : {QStringLiteral("0"), QStringLiteral("x"), QStringLiteral("-4")}) {
            const Run bad = cli({"queue", path, "--limit", limit});
            QCOMPARE(bad.exitCode, 2);
            QVERIFY2(bad.err.contains("--limit"), bad.err.constData());
        }
        const Run window = cli({"queue", path, "--window", "7"});
        QCOMPARE(window.exitCode, 2);
        QVERIFY2(window.err.contains("--window expects"), window.err.constData());
        const Run steps = cli({"queue", path, "--steps", "3-1"});
        QCOMPARE(steps.exitCode, 2);
        const Run missing = cli({"queue", "/nonexistent/trace.json"});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.contains("/nonexistent/trace.json"), missing.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestQueueLength)
#include "tst_queuelength.moc"
