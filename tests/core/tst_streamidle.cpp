// SPDX-License-Identifier: MIT
// Idle time per GPU stream (issue #13): every stream's idle time and its host wait / kernel wait / other split
// against a computation here from the raw JSON events (union merged by hand, gaps classified from the raw
// launches), whole and cut windows; a synthetic trace with every category and the rules' edges; the CLI's JSON,
// --step equal to --window, and bad input.
#include "testutil.h"

#include "rawstreams.h"
#include "streamfixtures.h"

#include "analysis/steps.h"
#include "analysis/streamidle.h"
#include "io/decimal.h"
#include "report/streamidlereport.h"
#include "trace/traceloader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace tilescope;

namespace {

struct RawIdle
{
    int64_t windowStart = 0, windowEnd = 0, idle = 0, hostWait = 0, kernelWait = 0, other = 0;
};

// One stream's split over [its first start, its last end] ∩ selection; nullopt when that is empty.
std::optional<RawIdle> rawIdle(const std::vector<rawstreams::Activity>& acts, const rawstreams::RawTrace& raw,
                               std::optional<std::pair<int64_t, int64_t>> selection, int64_t threshold)
{
    std::vector<std::pair<int64_t, int64_t>> merged;
    for (const auto& a : acts) // by start
        if (!merged.empty() && a.start <= merged.back().second)
            merged.back().second = std::max(merged.back().second, a.end);
        else
            merged.emplace_back(a.start, a.end);
    RawIdle r;
    r.windowStart = merged.front().first;
    r.windowEnd = merged.back().second;
    if (selection) {
        r.windowStart = std::max(r.windowStart, selection->first);
        r.windowEnd = std::min(r.windowEnd, selection->second);
    }
    if (r.windowEnd <= r.windowStart)
        return std::nullopt;
    for (size_t k = 0; k + 1 < merged.size(); ++k) {
        const int64_t gapStart = merged[k].second, gapEnd = merged[k + 1].first;
        const int64_t inside = std::min(gapEnd, r.windowEnd) - std::max(gapStart, r.windowStart);
        if (inside <= 0)
            continue;
        const auto next = std::lower_bound(acts.begin(), acts.end(), gapEnd,
                                           [](const rawstreams::Activity& a, int64_t t) { return a.start < t; });
        const auto launch = next->correlation ? raw.launches.find(*next->correlation) : raw.launches.end();
        if (launch != raw.launches.end() && launch->second.start > gapStart)
            r.hostWait += inside;
        else if (gapEnd - gapStart < threshold)
            r.kernelWait += inside;
        else
            r.other += inside;
    }
    r.idle = r.hostWait + r.kernelWait + r.other;
    return r;
}

void checkAgainstRaw(const std::string& path, const analysis::StreamIdleReport& report)
{
    const rawstreams::RawTrace& raw = rawstreams::read(path);
    std::optional<std::pair<int64_t, int64_t>> selection;
    if (report.selection)
        selection = std::pair{report.selection->start, report.selection->end};
    size_t i = 0;
    for (const auto& [key, acts] : raw.streams) {
        const std::optional<RawIdle> expected = rawIdle(acts, raw, selection, report.kernelWaitThresholdNs);
        if (!expected)
            continue;
        QVERIFY(i < report.streams.size());
        const analysis::StreamIdle& s = report.streams[i++];
        QCOMPARE(s.device, key.first);
        QCOMPARE(s.stream, key.second);
        QCOMPARE(s.window.start, expected->windowStart);
        QCOMPARE(s.window.end, expected->windowEnd);
        QCOMPARE(s.hostWaitNs, expected->hostWait);
        QCOMPARE(s.kernelWaitNs, expected->kernelWait);
        QCOMPARE(s.otherNs, expected->other);
        QCOMPARE(s.idleNs, expected->idle);
        // The parts sum to the whole.
        QCOMPARE(s.hostWaitNs + s.kernelWaitNs + s.otherNs, s.idleNs);
        QCOMPARE(s.busyNs + s.idleNs, s.window.end - s.window.start);
        QVERIFY(s.busyNs >= 0 && s.hostWaitNs >= 0 && s.kernelWaitNs >= 0 && s.otherNs >= 0);
    }
    QCOMPARE(report.streams.size(), i);
}

using Run = testutil::ProcessRun;
Run cli(const QStringList& arguments) { return testutil::runProcess(QStringLiteral(TILESCOPE_CLI), arguments); }

using streamfixtures::fixtures;
using streamfixtures::writeSynthetic;

// The synthetic trace of streamfixtures.h, as this test reads it:
// Stream 7 of device 0 has one gap of each kind and the rules' edges (times in µs):
//   20..22     kernel wait (launched at 2, queued; 2 < 10)
//   30..45     host wait (launched at 40, after the stream ran dry at 30)
//   50..70     other (driver launch at 41, queued; 20 >= 10)
//   80..80.5   kernel wait (a memcpy, cudaMemcpyAsync at 42)
//   90..100    other (no launch recorded; exactly the threshold is not below it)
//   110..115   kernel wait (launched exactly when the stream ran dry: not after it)
// Stream 8 has two touching kernels: no idle time.
} // namespace

class TestStreamIdle : public QObject
{
    Q_OBJECT

private slots:
    void fixturesEqualRawGaps()
    {
        for (const std::string& path : fixtures()) {
            const auto t = trace::loadTrace(path);
            const analysis::StreamIdleReport whole = analysis::computeStreamIdle(*t);
            QVERIFY(!whole.streams.empty());
            checkAgainstRaw(path, whole);
            // A window through the middle cuts gaps; another threshold moves gaps between kernel wait and other.
            const int64_t first = whole.streams.front().window.start, last = whole.streams.front().window.end;
            const analysis::Interval middle{first + (last - first) / 3, first + 2 * (last - first) / 3};
            checkAgainstRaw(path, analysis::computeStreamIdle(*t, middle));
            checkAgainstRaw(path, analysis::computeStreamIdle(*t, std::nullopt, 2'000));
        }
        // The fixtures reach more than one category: launch_bound waits on the host.
        const auto launchBound = trace::loadTrace(fixtures()[1]);
        const analysis::StreamIdle s = analysis::computeStreamIdle(*launchBound).streams.at(0);
        QVERIFY(s.hostWaitNs > 0);
        QVERIFY(s.hostWaitNs > s.kernelWaitNs + s.otherNs);
    }

    void syntheticEveryCategory()
    {
        QTemporaryDir dir;
        const std::string path = writeSynthetic(dir);
        const auto t = trace::loadTrace(path);
        const analysis::StreamIdleReport r = analysis::computeStreamIdle(*t);
        checkAgainstRaw(path, r);
        QCOMPARE(r.streams.size(), size_t(2));
        const analysis::StreamIdle& s = r.streams[0];
        QCOMPARE(s.stream, int64_t(7));
        QCOMPARE(s.window.start, int64_t(10'000));
        QCOMPARE(s.window.end, int64_t(120'000));
        QCOMPARE(s.kernelWaitNs, int64_t(2'000 + 500 + 5'000));
        QCOMPARE(s.hostWaitNs, int64_t(15'000));
        QCOMPARE(s.otherNs, int64_t(20'000 + 10'000));
        QCOMPARE(s.idleNs, int64_t(52'500));
        QCOMPARE(s.busyNs, int64_t(57'500));
        QCOMPARE(s.kernelWaitGaps, uint64_t(3));
        QCOMPARE(s.hostWaitGaps, uint64_t(1));
        QCOMPARE(s.otherGaps, uint64_t(2));
        QCOMPARE(r.streams[1].idleNs, int64_t(0));
        QCOMPARE(r.streams[1].busyNs, int64_t(4'000));

        // A window that cuts the host wait gap: the part inside keeps the whole gap's category.
        const analysis::StreamIdleReport cut = analysis::computeStreamIdle(*t, analysis::Interval{40'000, 60'000});
        checkAgainstRaw(path, cut);
        QCOMPARE(cut.streams.size(), size_t(1)); // stream 8 ran before the window
        QCOMPARE(cut.streams[0].hostWaitNs, int64_t(5'000));
        QCOMPARE(cut.streams[0].otherNs, int64_t(10'000));
        QCOMPARE(cut.streams[0].busyNs, int64_t(5'000));

        // A threshold above 20 µs turns the queued 20 µs gap into kernel wait; the unlaunched 10 µs one too.
        const analysis::StreamIdleReport wide = analysis::computeStreamIdle(*t, std::nullopt, 25'000);
        QCOMPARE(wide.streams[0].otherNs, int64_t(0));
        QCOMPARE(wide.streams[0].kernelWaitNs, int64_t(37'500));
        QCOMPARE(wide.streams[0].hostWaitNs, int64_t(15'000));
    }

    void cliJson()
    {
        QTemporaryDir dir;
        const QString path = QString::fromStdString(writeSynthetic(dir));
        const Run run = cli({"idle", path, "--format", "json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(doc.keys(), (QStringList{"kernel_wait_threshold_us", "selection", "streams"}));
        QVERIFY(doc.value("selection").isNull());
        QCOMPARE(doc.value("kernel_wait_threshold_us").toDouble(), 10.0);
        const QJsonObject s = doc.value("streams").toArray().at(0).toObject();
        QStringList keys{"device",      "stream",       "window_start_us", "window_end_us", "busy_us",         "idle_us",
                         "idle_share",  "host_wait_us", "kernel_wait_us",  "other_us",      "host_wait_share", "kernel_wait_share",
                         "other_share", "gaps"};
        keys.sort();
        QCOMPARE(s.keys(), keys);
        QCOMPARE(s.value("host_wait_us").toDouble(), 15.0);
        QCOMPARE(s.value("kernel_wait_us").toDouble(), 7.5);
        QCOMPARE(s.value("other_us").toDouble(), 30.0);
        QCOMPARE(s.value("idle_us").toDouble(), 52.5);
        QCOMPARE(s.value("idle_share").toDouble(), 52.5 / 110.0);
        QCOMPARE(s.value("host_wait_share").toDouble(), 15.0 / 52.5);
        QCOMPARE(testutil::jsonAt(s, {"gaps", "other"}).toInt(), 2);
        const auto t = trace::loadTrace(path.toStdString());
        QCOMPARE(run.out.toStdString(), report::streamIdleJson(analysis::computeStreamIdle(*t)));

        const Run threshold = cli({"idle", path, "--format", "json", "--kernel-wait-threshold", "25"});
        QCOMPARE(threshold.exitCode, 0);
        QCOMPARE(testutil::jsonAt(QJsonDocument::fromJson(threshold.out).object(), {"streams", 0, "other_us"}).toDouble(), 0.0);
        const Run table = cli({"idle", path});
        QCOMPARE(table.exitCode, 0);
        QVERIFY2(table.out.contains("GPU 0 stream 7") && table.out.contains("host wait"), table.out.constData());
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
        const Run byStep = cli({"idle", path, "--format", "json", "--step", QString::number(step.number)});
        const Run byWindow = cli({"idle", path, "--format", "json", "--window", window});
        QCOMPARE(byStep.exitCode, 0);
        QCOMPARE(byWindow.exitCode, 0);
        QCOMPARE(byStep.out, byWindow.out);
        const analysis::StreamIdleReport r = analysis::computeStreamIdle(*t, analysis::Interval{step.start, step.end});
        QCOMPARE(byStep.out.toStdString(), report::streamIdleJson(r));
        checkAgainstRaw(path.toStdString(), r);
    }

    void cliBadInput()
    {
        const QString path = QString::fromStdString(testutil::workloadTrace("streams_overlap"));
        const Run format = cli({"idle", path, "--format", "csv"});
        QCOMPARE(format.exitCode, 2);
        QVERIFY(format.err.contains("--format for idle"));
        for (const QString& window : {QStringLiteral("5"), QStringLiteral("9,3"), QStringLiteral("a,b")}) {
            const Run bad = cli({"idle", path, "--window", window});
            QCOMPARE(bad.exitCode, 2);
            QVERIFY2(bad.err.contains("--window expects START_US,END_US"), bad.err.constData());
        }
        const Run outside = cli({"idle", path, "--window", "1,2"});
        QCOMPARE(outside.exitCode, 2);
        QVERIFY2(outside.err.contains("lies outside the trace"), outside.err.constData());
        const Run both = cli({"idle", path, "--window", "1,2", "--step", "0"});
        QCOMPARE(both.exitCode, 2);
        const Run noSteps = cli({"idle", QString::fromStdString(testutil::workloadTrace("launch_bound")), "--step", "0"});
        QCOMPARE(noSteps.exitCode, 2);
        QVERIFY2(noSteps.err.contains("no steps"), noSteps.err.constData());
        const Run threshold = cli({"idle", path, "--kernel-wait-threshold", "-3"});
        QCOMPARE(threshold.exitCode, 2);
        QVERIFY2(threshold.err.contains("--kernel-wait-threshold"), threshold.err.constData());
        const Run missing = cli({"idle", "/nonexistent/trace.json"});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.contains("/nonexistent/trace.json"), missing.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestStreamIdle)
#include "tst_streamidle.moc"
