// SPDX-License-Identifier: MIT
// tilescope-cli as a user runs it: output formats and exit codes.
#include "exactjson.h"
#include "testutil.h"

#include "io/smalljson.h"
#include "trace/namefit.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QProcessEnvironment>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <string>

namespace {

using Run = testutil::ProcessRun;

Run cli(const QStringList& arguments) { return testutil::runProcess(QStringLiteral(TILESCOPE_CLI), arguments); }

QString trace(const char* workload) { return QString::fromStdString(testutil::workloadTrace(workload)); }

} // namespace

class TestCli : public QObject
{
    Q_OBJECT
private slots:
    void summaryJsonShape()
    {
        const Run r = cli({"summary", trace("gemm_compare"), "--format", "json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(doc.keys(), (QStringList{"rows", "self_cpu_time_total_us", "self_device_time_total_us", "sort_by", "trace"}));
        QCOMPARE(doc.value("sort_by").toString(), QStringLiteral("self_cuda_time_total"));
        QCOMPARE(doc.value("trace").toString(), trace("gemm_compare"));
        const QJsonArray rows = doc.value("rows").toArray();
        QCOMPARE(rows.size(), 13);
        const QStringList fields{"count",
                                 "cpu_memory_usage",
                                 "cpu_time_total_us",
                                 "device_memory_usage",
                                 "device_time_total_us",
                                 "flops",
                                 "input_shapes",
                                 "key",
                                 "self_cpu_memory_usage",
                                 "self_cpu_time_total_us",
                                 "self_device_memory_usage",
                                 "self_device_time_total_us"};
        for (const auto& row : rows) {
            QCOMPARE(row.toObject().keys(), fields);
            QVERIFY(row.toObject().value("input_shapes").isNull());
        }
        QCOMPARE(rows[0].toObject().value("key").toString(), QStringLiteral("matmul_kernel"));
        QVERIFY(std::abs(doc.value("self_device_time_total_us").toDouble() - 7592.0) < 1.0);
    }

    void summaryOptions()
    {
        const Run limited = cli({"summary", trace("train_scheduled"), "--format", "json", "--row-limit", "5", "--sort", "cpu_time_total",
                                 "--group-by-input-shape"});
        QCOMPARE(limited.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(limited.out).object();
        const QJsonArray rows = doc.value("rows").toArray();
        QCOMPARE(rows.size(), 5);
        QCOMPARE(rows[0].toObject().value("key").toString(), QStringLiteral("ProfilerStep*"));
        for (qsizetype i = 1; i < rows.size(); ++i)
            QVERIFY(rows[i - 1].toObject().value("cpu_time_total_us").toDouble()
                    >= rows[i].toObject().value("cpu_time_total_us").toDouble());
        QVERIFY(rows[0].toObject().value("input_shapes").isString());

        const Run csv = cli({"summary", trace("launch_bound"), "--format", "csv"});
        QCOMPARE(csv.exitCode, 0);
        const QList<QByteArray> lines = csv.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 10);
        QVERIFY(lines[0].startsWith("key,input_shapes,device_type"));

        const Run table = cli({"summary", trace("launch_bound")});
        QCOMPARE(table.exitCode, 0);
        QVERIFY(table.out.contains("Self CUDA time total: 2.589ms"));
        QVERIFY(table.out.contains("Self CPU time total: 81.560ms"));
    }

    void info()
    {
        const Run text = cli({"info", trace("streams_overlap")});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("NVIDIA H200"));
        QVERIFY(text.out.contains("GPU 0 stream 14"));
        QVERIFY(text.out.contains("GPU 0 stream 18"));
        QVERIFY(text.out.contains("cupti_version: 130001"));
        const Run json = cli({"info", trace("streams_overlap"), "--format", "json"});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(json.out).object();
        QCOMPARE(doc.value("devices").toArray()[0].toObject().value("numSms").toInt(), 132);
        QVERIFY(doc.value("events_per_category").toObject().value("kernel").toInt() > 0);
        QCOMPARE(doc.value("options").toArray(), QJsonArray{"record_shapes"});
        QVERIFY(text.out.contains("options:    record_shapes\n"));
        QCOMPARE(doc.value("metadata").toObject().value("trace_id").toString(), QStringLiteral("1C01AABBB1B9411AAF42A5B284A09D50"));
        QVERIFY(text.out.contains("trace_id: 1C01AABBB1B9411AAF42A5B284A09D50\n"));
        QVERIFY(doc.value("distributed").isNull());
        // Ids the file gives as strings are quoted, empty ones included (Kineto's "Record Window End" has pid "" tid "").
        const Run kineto = cli({"info",
                                QString::fromStdString(testutil::dataPath(
                                    "external/hta/critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz"))});
        QVERIFY2(kineto.out.contains("  other  pid \"\" tid \"\": 1 event\n"), kineto.out.constData());
        QVERIFY(kineto.out.contains("  spans  pid \"Traces\" tid \"Trace PyTorch Profiler\": 1 event\n"));
        QVERIFY(kineto.out.contains("pid 3727853 tid 3727853 \"thread 3727853 (pt_main_thread)\": 45 events, depth 3\n"));
    }

    void infoSummarisesDistributedRuns()
    {
        const QString cpuOnly = QString::fromStdString(
            testutil::dataPath("external/hta/cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"));
        const Run text = cli({"info", cpuOnly});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("distributed: backend gloo, rank 34 of world size 300, 10 process groups\n"), text.out.constData());
        QVERIFY(!text.out.contains("pg_config"));
        QVERIFY(text.out.size() < 4000); // not the ranks of ten groups of 300 (12 KB)
        // No deviceProperties: said so, not "0"; with GPU streams, their devices named.
        QVERIFY2(text.out.contains("devices:    none described (no deviceProperties)\n"), text.out.constData());
        const Run ranked = cli({"info", QString::fromStdString(testutil::dataPath("ranks/hta/trace_filter_sampled_rank-0.json.gz"))});
        QVERIFY2(ranked.out.contains("devices:    none described (no deviceProperties); GPU activity on device 0\n"),
                 ranked.out.constData());
        const Run json = cli({"info", cpuOnly, "--format", "json"});
        QCOMPARE(json.exitCode, 0);
        QVERIFY(!json.out.contains("pg_config"));
        const QJsonObject d = QJsonDocument::fromJson(json.out).object().value("distributed").toObject();
        QCOMPARE(d.value("backend").toString(), QStringLiteral("gloo"));
        QCOMPARE(d.value("rank").toInt(), 34);
        QCOMPARE(d.value("world_size").toInt(), 300);
        QCOMPARE(d.value("process_groups").toInt(), 10);
    }

    void overlapJsonShape()
    {
        const Run r = cli({"overlap", trace("launch_bound"), "--format", "json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(doc.keys(),
                 (QStringList{"both_idle_us", "cpu_busy_us", "cpu_gpu_overlap_us", "cpu_threads", "devices", "gpu_devices",
                              "gpu_idle_while_cpu_busy_us", "launches", "window_end_us", "window_given", "window_start_us", "window_us"}));
        QCOMPARE(doc.value("gpu_devices").toInt(), 1);
        QCOMPARE(doc.value("window_given").toBool(), false);
        const QJsonObject device = doc.value("devices").toArray()[0].toObject();
        QCOMPARE(device.keys(), (QStringList{"busy_us", "device", "idle_us", "kernels", "memcpys", "memsets", "utilization"}));
        QCOMPARE(device.value("kernels").toInt(), 3000);
        const QJsonObject launches = doc.value("launches").toObject();
        QCOMPARE(launches.keys(), (QStringList{"costly", "count", "cpu_us", "kernel_us", "launch_bound"}));
        QVERIFY(launches.value("launch_bound").toBool());
        const QJsonArray threads = doc.value("cpu_threads").toArray();
        QVERIFY(!threads.isEmpty());
        QCOMPARE(threads[0].toObject().keys(), (QStringList{"busy_us", "thread", "tid"}));

        // Every figure of the table is in the JSON: the table's numbers are the JSON's.
        const Run text = cli({"overlap", trace("launch_bound")});
        QCOMPARE(text.exitCode, 0);
        const QString table = QString::fromUtf8(text.out);
        const int costly = launches.value("costly").toInt(), count = launches.value("count").toInt();
        QVERIFY2(table.contains(QStringLiteral("launches: launch-bound: %1 of %2 kernel launches cost at least 80% of their kernel's time")
                                    .arg(QLocale(QLocale::English).toString(costly), QLocale(QLocale::English).toString(count))),
                 qPrintable(table));
        QVERIFY(count >= 1000); // so the separator is exercised
        QVERIFY(table.contains(QStringLiteral("3,000 kernels, 0 memcpys, 0 memsets")));
        for (const auto& th : threads)
            QVERIFY2(table.contains("  " + th.toObject().value("thread").toString() + ": "), qPrintable(table));
        QVERIFY(table.contains(QStringLiteral("GPU idle while CPU works: ")));
        QVERIFY(table.contains(QStringLiteral("(first to last CPU work or GPU activity)")));

        const Run windowed = cli({"overlap", trace("launch_bound"), "--format", "json", "--window", "5349368714433,5349368754433.5"});
        QCOMPARE(windowed.exitCode, 0);
        const QJsonObject w = QJsonDocument::fromJson(windowed.out).object();
        QCOMPARE(w.value("window_us").toDouble(), 40000.5);
        QCOMPARE(w.value("window_given").toBool(), true);
        QVERIFY(windowed.out.contains("\"window_start_us\":5349368714433,"));
        QVERIFY(windowed.out.contains("\"window_end_us\":5349368754433.5,"));
        const Run windowedText = cli({"overlap", trace("launch_bound"), "--window", "5349368714433,5349368754433"});
        QVERIFY2(windowedText.out.startsWith("window: 40.000ms (given: ts 5349368714433 .. 5349368754433 us)"),
                 windowedText.out.constData());
        QCOMPARE(cli({"overlap", trace("launch_bound"), "--window", "5,1"}).exitCode, 2);
        const Run outside = cli({"overlap", trace("launch_bound"), "--window", "1,2"});
        QCOMPARE(outside.exitCode, 2);
        QVERIFY2(outside.err.contains("lies outside the trace"), outside.err.constData());
        QVERIFY(outside.out.isEmpty());
    }

    void overlapCpuOnlyTrace()
    {
        const QString cpuOnly = QString::fromStdString(
            testutil::dataPath("external/hta/cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"));
        const Run text = cli({"overlap", cpuOnly});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("GPU: no GPU activity in the trace"), text.out.constData());
        QVERIFY(!text.out.contains("GPU idle while CPU works"));
        QVERIFY(!text.out.contains("GPU 0"));
        QVERIFY(text.out.contains("launches: no kernel launches"));
        const Run json = cli({"overlap", cpuOnly, "--format", "json"});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(json.out).object();
        QCOMPARE(doc.value("gpu_devices").toInt(), 0);
        QVERIFY(doc.value("cpu_busy_us").toDouble() > 1e6); // gloo's all_reduces, not 3.964 us of aten::empty
        QCOMPARE(doc.value("cpu_threads").toArray().size(), 3);
    }

    void overlapLeavesOutIdleDevices()
    {
        // deviceProperties names two GPUs; only GPU 1 ran anything.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("two.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"deviceProperties": [{"id": 0, "name": "A"}, {"id": 1, "name": "B"}], "traceEvents": [
            {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
            {"ph": "X", "cat": "gpu_memset", "name": "Memset", "pid": 1, "tid": 9, "ts": 2, "dur": 3, "args": {"device": 1, "stream": 7}}]})");
        f.close();
        const Run quiet = cli({"overlap", path, "--format", "json"});
        QCOMPARE(quiet.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(quiet.out).object();
        QCOMPARE(doc.value("gpu_devices").toInt(), 1);
        QCOMPARE(doc.value("devices").toArray().size(), 1);
        QCOMPARE(doc.value("devices").toArray()[0].toObject().value("device").toInt(), 1);
        QCOMPARE(doc.value("devices").toArray()[0].toObject().value("memsets").toInt(), 1);
        const Run all = cli({"overlap", path, "--format", "json", "--all-devices"});
        QCOMPARE(QJsonDocument::fromJson(all.out).object().value("devices").toArray().size(), 2);
        const Run table = cli({"overlap", path});
        QVERIFY2(table.out.contains("(1 device with no GPU activity left out; --all-devices lists them)"), table.out.constData());
        QVERIFY(table.out.contains("GPU 1: busy 3.000us"));
    }

    // diagnose's JSON has exactly the issue's keys, and the table prints the same findings and sentences.
    void diagnoseJsonShape()
    {
        const Run r = cli({"diagnose", trace("launch_bound"), "--format", "json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(doc.keys(), QStringList{"findings"});
        const QJsonArray list = doc.value("findings").toArray();
        QStringList ids;
        const Run table = cli({"diagnose", trace("launch_bound")});
        QCOMPARE(table.exitCode, 0);
        const QString text = QString::fromUtf8(table.out);
        // launch_bound's kernels have names of 190 characters: whole in the JSON, shortened in the text.
        QVERIFY(r.out.contains("void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, "));
        QVERIFY(!table.out.contains("void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, "));
        for (const QString& line : text.split('\n'))
            QVERIFY2(line.size() < 400, qPrintable(line));
        for (const auto& item : list) {
            const QJsonObject f = item.toObject();
            // The text shortens the trace's long event names wherever they appear (over 120 characters; the JSON keeps
            // them whole): here the two kernels', in the where entries of the findings.
            tilescope::trace::NameShortener names(120);
            for (const auto& other : list)
                for (const auto& w : other.toObject().value("where").toArray())
                    if (w.toObject().value("event").isString())
                        names.add(w.toObject().value("event").toString().toStdString());
            const auto shown = [&](const QJsonValue& v) { return QString::fromStdString(names.apply(v.toString().toStdString())); };
            QCOMPARE(f.keys(), (QStringList{"columns", "evidence", "id", "impact_us", "next_step", "strength", "title", "where"}));
            QVERIFY(f.value("impact_us").isDouble() && f.value("impact_us").toDouble() >= 0);
            ids << f.value("id").toString();
            QVERIFY((QStringList{"strong", "weak", "provisional"}).contains(f.value("strength").toString()));
            QVERIFY(!f.value("evidence").toArray().isEmpty() && !f.value("columns").toArray().isEmpty());
            QVERIFY(text.contains("[" + f.value("strength").toString() + "] " + f.value("id").toString() + ": " + shown(f.value("title"))));
            for (const auto& e : f.value("evidence").toArray())
                QVERIFY2(text.contains("  - " + shown(e) + "\n"), qPrintable(e.toString()));
            QVERIFY(text.contains("  next step: " + f.value("next_step").toString() + "\n"));
            for (const auto& w : f.value("where").toArray()) {
                const QJsonObject where = w.toObject();
                QCOMPARE(where.keys(), (QStringList{"end_us", "event", "start_us"}));
                QVERIFY(where.value("start_us").isDouble() && where.value("end_us").isDouble());
                QVERIFY(where.value("start_us").toDouble() <= where.value("end_us").toDouble());
                QVERIFY(where.value("event").isNull() || where.value("event").isString());
            }
        }
        // launch_bound: 3,000 tiny kernels launched one by one, the GPU idle most of the window.
        QVERIFY2(ids.contains("launch-bound") && ids.contains("gpu-idle"), qPrintable(ids.join(',')));
        // The where ranges lie inside the trace, in the file's microseconds.
        const QJsonObject overlap = QJsonDocument::fromJson(cli({"overlap", trace("launch_bound"), "--format", "json"}).out).object();
        const QJsonObject gpuIdle = list[ids.indexOf("gpu-idle")].toObject();
        const QJsonObject window = gpuIdle.value("where").toArray()[0].toObject();
        QCOMPARE(window.value("start_us").toDouble(), overlap.value("window_start_us").toDouble());
        QCOMPARE(window.value("end_us").toDouble(), overlap.value("window_end_us").toDouble());

        // A clean trace says so; bad options and files exit 2.
        const Run clean = cli({"diagnose", trace("train_scheduled"), "--format", "json"});
        QCOMPARE(clean.exitCode, 0);
        QVERIFY(QJsonDocument::fromJson(clean.out).object().value("findings").isArray());
        QCOMPARE(cli({"diagnose", trace("launch_bound"), "--format", "csv"}).exitCode, 2);
        // --window: the gpu-idle finding's own window gives it back; a window outside the trace or malformed exits 2.
        const QString range = QString::number(window.value("start_us").toDouble(), 'f', 3) + ","
            + QString::number(window.value("end_us").toDouble(), 'f', 3);
        const Run windowed = cli({"diagnose", trace("launch_bound"), "--format", "json", "--window", range});
        QCOMPARE(windowed.exitCode, 0);
        QStringList windowedIds;
        for (const auto& item : QJsonDocument::fromJson(windowed.out).object().value("findings").toArray())
            windowedIds << item.toObject().value("id").toString();
        QVERIFY2(windowedIds.contains("gpu-idle"), qPrintable(windowedIds.join(',')));
        QCOMPARE(cli({"diagnose", trace("launch_bound"), "--window", "1,2"}).exitCode, 2);
        QCOMPARE(cli({"diagnose", trace("launch_bound"), "--window", "5"}).exitCode, 2);
        const Run missing = cli({"diagnose", "/nonexistent/trace.json"});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY(missing.out.isEmpty());
    }

    void everyCommandHasHelp()
    {
        for (const char* command : {"info", "summary", "overlap", "device", "classify", "inspect", "memory", "diagnose", "compare",
                                    "report", "capture", "calibrate", "idle", "queue", "launches", "sequences"}) {
            for (const char* flag : {"--help", "-h"}) {
                const Run r = cli({command, flag});
                QVERIFY2(r.exitCode == 0, qPrintable(QString("%1 %2: %3").arg(command, flag, r.err)));
                QVERIFY2(r.out.startsWith("usage:\n  " + QByteArray(command) + " "), r.out.constData());
                QVERIFY(r.err.isEmpty());
            }
            QCOMPARE(cli({"help", command}).out, cli({command, "--help"}).out);
        }
        // After other options too, and capture's script arguments may hold their own --help.
        QCOMPARE(cli({"overlap", trace("launch_bound"), "--format", "json", "-h"}).exitCode, 0);
        const Run scriptHelp = cli({"capture", "--script", "nothing.py", "--", "--help"});
        QVERIFY(!scriptHelp.out.startsWith("usage:"));
        const Run all = cli({"--help"});
        QCOMPARE(all.exitCode, 0);
        QVERIFY(all.err.isEmpty());
        // No command at all is a mistake: the same usage, on stderr, and exit status 2.
        const Run bare = cli({});
        QCOMPARE(bare.exitCode, 2);
        QVERIFY(bare.out.isEmpty());
        QCOMPARE(bare.err, all.out);
        // Help on a command that does not exist is the unknown command's error.
        const Run nosuch = cli({"help", "nosuch"});
        QCOMPARE(nosuch.exitCode, 2);
        QVERIFY(nosuch.out.isEmpty());
        QCOMPARE(nosuch.err, cli({"nosuch", "x"}).err);
        for (const char* command : {"info", "summary", "overlap", "device", "classify", "inspect", "memory", "diagnose", "compare",
                                    "report", "capture", "calibrate", "idle", "queue", "launches", "sequences"})
            QVERIFY2(all.out.contains("\n  " + QByteArray(command) + " "), command);
    }

    // The version from project(VERSION) in the top CMakeLists.txt and the commit from git, read here.
    void versionAndCommit()
    {
        const QString sourceDir = QStringLiteral(TILESCOPE_TEST_DATA "/../..");
        QFile top(sourceDir + QStringLiteral("/CMakeLists.txt"));
        QVERIFY(top.open(QIODevice::ReadOnly));
        const QRegularExpressionMatch project
            = QRegularExpression(QStringLiteral("project\\(TileScope VERSION ([0-9.]+)")).match(QString::fromUtf8(top.readAll()));
        QVERIFY(project.hasMatch());
        const Run r = cli({"--version"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.err.isEmpty());
        const QRegularExpressionMatch line
            = QRegularExpression(QStringLiteral("^tilescope-cli (\\S+) \\(commit (\\S+)\\)\n$")).match(QString::fromUtf8(r.out));
        QVERIFY2(line.hasMatch(), r.out.constData());
        QCOMPARE(line.captured(1), project.captured(1));
        QProcess git;
        git.setWorkingDirectory(sourceDir);
        git.start(QStringLiteral("git"), {QStringLiteral("rev-parse"), QStringLiteral("--short=12"), QStringLiteral("HEAD")});
        if (!git.waitForFinished() || git.exitCode() != 0)
            QSKIP("not a git checkout: the commit is 'unknown'");
        const QString head = QString::fromUtf8(git.readAllStandardOutput()).trimmed();
        QVERIFY2(line.captured(2) == head || line.captured(2) == head + QStringLiteral("-dirty"), r.out.constData());
    }

    void memoryDataGivenAsTrace()
    {
        const Run r = cli({"overlap", QString::fromStdString(testutil::dataPath("memory/memory_snapshot.pickle"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("memory_snapshot.pickle: this is a CUDA allocator snapshot"), r.err.constData());
        QVERIFY(r.err.contains("open it with `tilescope-cli memory`"));
        const Run timeline = cli({"info", QString::fromStdString(testutil::dataPath("memory/memory_timeline.json")), "--partial"});
        QCOMPARE(timeline.exitCode, 2);
        QVERIFY2(timeline.err.contains("this is a torch memory timeline export"), timeline.err.constData());
    }

    void memoryJsonShape()
    {
        const Run r = cli({"memory", trace("memory_churn"), "--format", "json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(doc.keys(), (QStringList{"devices", "live_at_end", "ooms", "steps", "suspected_leak", "top_allocators"}));
        // The peaks are the maxima of the raw records, read here from the file itself.
        qint64 peak = 0, peakReserved = 0, allocs = 0, frees = 0;
        const tilescope::io::Json raw = tilescope::io::readSmallJsonFile(testutil::workloadTrace("memory_churn"));
        for (const auto& e : raw["traceEvents"])
            if (e.value("name", "") == "[memory]" && e["args"]["Device Type"] == 1) {
                peak = std::max(peak, e["args"]["Total Allocated"].get<qint64>());
                peakReserved = std::max(peakReserved, e["args"]["Total Reserved"].get<qint64>());
                (e["args"]["Bytes"].get<qint64>() > 0 ? allocs : frees) += 1;
            }
        const QJsonArray devices = doc.value("devices").toArray();
        QCOMPARE(devices.size(), 1);
        const QJsonObject d = devices[0].toObject();
        QCOMPARE(d.keys(),
                 (QStringList{"allocs", "device", "final_allocated_bytes", "frees", "peak_allocated_bytes", "peak_op",
                              "peak_reserved_bytes", "peak_ts_us"}));
        QCOMPARE(d.value("device").toString(), QStringLiteral("cuda:0"));
        QCOMPARE(d.value("peak_allocated_bytes").toInteger(), peak);
        QCOMPARE(d.value("peak_reserved_bytes").toInteger(), peakReserved);
        QCOMPARE(d.value("allocs").toInteger(), allocs);
        QCOMPARE(d.value("frees").toInteger(), frees);
        QVERIFY(d.value("peak_ts_us").toDouble() > 5.3e12); // the file's own ts, in microseconds
        QVERIFY(d.value("peak_op").isString());
        QVERIFY(doc.value("ooms").toArray().isEmpty());
        const QJsonArray steps = doc.value("steps").toArray();
        QCOMPARE(steps.size(), 30);
        QCOMPARE(steps[0].toObject().keys(), (QStringList{"allocated_bytes_at_end", "step"}));
        QCOMPARE(steps[29].toObject().value("step").toString(), QStringLiteral("alloc_round_29"));
        const QJsonObject leak = doc.value("suspected_leak").toObject();
        QCOMPARE(leak.keys(), (QStringList{"device", "growth_bytes_per_step", "steps"}));
        QCOMPARE(leak.value("device").toString(), QStringLiteral("cuda:0"));
        const QJsonArray top = doc.value("top_allocators").toArray();
        QVERIFY(!top.isEmpty());
        QCOMPARE(top[0].toObject().keys(), (QStringList{"allocs", "bytes", "op"}));
        const QJsonArray live = doc.value("live_at_end").toArray();
        QCOMPARE(live.size(), 10);
        qint64 liveBytes = 0;
        for (const auto& b : live) {
            QCOMPARE(b.toObject().keys(), (QStringList{"bytes", "device", "op", "ts_us"}));
            liveBytes += b.toObject().value("bytes").toInteger();
        }
        const QJsonObject meta = testutil::readJsonObject(testutil::dataPath("h200/memory_churn/meta.json"));
        QCOMPARE(liveBytes, meta.value("expected_growth_bytes").toInteger());

        const Run events = cli({"memory", trace("memory_churn"), "--format", "json", "--events"});
        QCOMPARE(events.exitCode, 0);
        const QJsonArray paired = QJsonDocument::fromJson(events.out).object().value("events").toArray();
        QCOMPARE(qint64(paired.size()),
                 allocs + (frees - (allocs - 10))); // every allocation, and frees of blocks allocated before the trace
        QCOMPARE(paired[0].toObject().keys(),
                 (QStringList{"address", "alloc_op", "alloc_ts_us", "bytes", "device", "free_op", "free_ts_us", "live_at_end"}));
    }

    void memoryTable()
    {
        const Run churn = cli({"memory", trace("memory_churn")});
        QCOMPARE(churn.exitCode, 0);
        QVERIFY2(churn.out.contains("suspected leak: cuda:0 grew"), churn.out.constData());
        QVERIFY(churn.out.contains("live at end: 10 blocks, 640.0 MiB"));
        const Run train = cli({"memory", trace("train_scheduled"), "--format", "table", "--events"});
        QCOMPARE(train.exitCode, 0);
        QVERIFY(train.out.contains("steps (ProfilerStep#N)"));
        QVERIFY(train.out.contains("suspected leak: none"));
        QVERIFY(train.out.contains("allocations paired with their frees"));
        const QJsonObject doc = QJsonDocument::fromJson(cli({"memory", trace("train_scheduled"), "--format", "json"}).out).object();
        QVERIFY(doc.value("suspected_leak").isNull());
        QCOMPARE(doc.value("steps").toArray().size(), 3);
    }

    void memoryBadInput()
    {
        const Run none = cli({"memory", trace("launch_bound")});
        QCOMPARE(none.exitCode, 2);
        QVERIFY(none.out.isEmpty());
        QVERIFY2(none.err.contains(trace("launch_bound").toUtf8()
                                   + ": this trace was recorded without profile_memory=True (no [memory] events)"),
                 none.err.constData());
        QCOMPARE(none.err.count('\n'), 1);
        QTemporaryDir dir;
        const QString garbage = dir.filePath("garbage.json");
        QFile f(garbage);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("\x01\x02 this is not a trace {[");
        f.close();
        const Run bad = cli({"memory", garbage});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains(garbage.toUtf8()));
        QCOMPARE(cli({"memory", trace("memory_churn"), "--format", "csv"}).exitCode, 2);
        QCOMPARE(cli({"memory"}).exitCode, 2);
        // A snapshot or a memory timeline goes to the memory-data reader, detected by content.
        const Run snapshot = cli(
            {"memory", QString::fromStdString(testutil::dataPath("h200/memory_churn/memory_snapshot.pickle.gz")), "--format", "json"});
        QCOMPARE(snapshot.exitCode, 0);
        const QJsonObject s = QJsonDocument::fromJson(snapshot.out).object();
        QCOMPARE(s.value("segments").toInt(), 3); // trace-format.md §11.3: one large, two small
        QCOMPARE(s.value("reserved_bytes").toDouble(), 2147483648.0 + 2 * 2097152.0);
        QCOMPARE(s.value("actions").toObject().value("alloc").toInt(), 610);
        QCOMPARE(s.value("actions").toObject().value("free_completed").toInt(), 600);
        const Run timeline = cli(
            {"memory", QString::fromStdString(testutil::dataPath("h200/train_scheduled/memory_timeline.json.gz")), "--format", "json"});
        QCOMPARE(timeline.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(timeline.out).object().value("peak_total_bytes").toDouble(), 974724608.0);
        // A pickle is a program: one that imports code is refused by name, never run.
        const QString code = dir.filePath("code.pickle");
        QFile c(code);
        QVERIFY(c.open(QIODevice::WriteOnly));
        c.write(QByteArray::fromHex("80049514000000000000008c05706f736978948c0673797374656d9493942e")); // pickle.dumps(os.system)
        c.close();
        const Run refused = cli({"memory", code});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("STACK_GLOBAL") && refused.err.contains("refused"), refused.err.constData());
        QCOMPARE(refused.err.count('\n'), 1);
    }

    // Without --python, capture looks past a python3 with no torch: the active venv's python first.
    void capturePicksAPythonWithTorch()
    {
        QTemporaryDir dir;
        const auto script = [&](const QString& path, const QByteArray& body) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("#!/bin/sh\n" + body);
            f.close();
            f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        };
        QVERIFY(QDir(dir.path()).mkpath("path"));
        QVERIFY(QDir(dir.path()).mkpath("venv/bin"));
        // python3 on PATH: no torch. The venv's python: has torch, and says so when run as the harness.
        script(dir.filePath("path/python3"), "[ \"$1\" = -c ] && exit 1\necho 'wrong python ran' >&2; exit 1\n");
        script(dir.filePath("venv/bin/python"), "[ \"$1\" = -c ] && exit 0\necho 'venv python ran' >&2; exit 1\n");
        QFile(dir.filePath("s.py")).open(QIODevice::WriteOnly);
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("PATH", dir.filePath("path") + ":/usr/bin:/bin");
        env.insert("VIRTUAL_ENV", dir.filePath("venv"));
        env.remove("CONDA_PREFIX");
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(TILESCOPE_CLI), {"capture", "--script", dir.filePath("s.py"), "--out", dir.filePath("out")});
        QVERIFY(p.waitForFinished(60000));
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(err.contains("python3 on PATH has no torch; using " + dir.filePath("venv/bin/python").toUtf8()), err.constData());
        QVERIFY2(err.contains("venv python ran"), err.constData());
        QVERIFY(!err.contains("wrong python ran"));
        // --python is taken as given.
        p.start(QStringLiteral(TILESCOPE_CLI),
                {"capture", "--python", "python3", "--script", dir.filePath("s.py"), "--out", dir.filePath("out")});
        QVERIFY(p.waitForFinished(60000));
        const QByteArray given = p.readAllStandardError();
        QVERIFY2(given.contains("wrong python ran") && !given.contains("has no torch"), given.constData());
    }

    void classifyWithSidecar()
    {
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("gemm.json"));
        QVERIFY(QFile::copy(trace("gemm_compare"), copy));
        QFile sidecar(copy + QStringLiteral(".annotations.json"));
        QVERIFY(sidecar.open(QIODevice::WriteOnly));
        sidecar.write(R"({"annotations": [{"kernel": "matmul_kernel", "flops": 137438953472, "bytes": 100663296}]})");
        sidecar.close();
        const Run r = cli({"classify", copy, "--format", "json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(doc.value("device").toObject().value("name").toString(), QStringLiteral("NVIDIA H200"));
        QCOMPARE(doc.value("ceilings").toObject().value("bf16_flops_per_s").toDouble(), 989.4e12);
        bool sawTriton = false;
        for (const auto& k : doc.value("kernels").toArray()) {
            const QJsonObject o = k.toObject();
            for (const char* field : {"name", "calls", "total_us", "flops", "bytes", "achieved_flops_per_s", "achieved_bytes_per_s",
                                      "class", "strength", "evidence"})
                QVERIFY2(o.contains(QLatin1String(field)), field);
            if (o.value("name").toString() == QLatin1String("matmul_kernel")) {
                sawTriton = true;
                QCOMPARE(o.value("class").toString(), QStringLiteral("tensor-core-bound"));
            }
        }
        QVERIFY(sawTriton);
        QVERIFY(doc.value("regions").toArray().size() == 2);
        QCOMPARE(cli({"classify", copy, "--annotations", dir.filePath(QStringLiteral("missing.json"))}).exitCode, 2);
        QCOMPARE(cli({"device", trace("gemm_compare"), "--ceilings", copy}).exitCode, 2); // a trace is not a ceilings file
    }

    // --gpu names the GPU of a trace without deviceProperties, for every command that classifies.
    void gpuChosenForATraceWithoutDevice()
    {
        QTemporaryDir dir;
        const QString unnamed = dir.filePath(QStringLiteral("unnamed.json"));
        QVERIFY(testutil::writeWithoutDeviceProperties(trace("gemm_compare"), unnamed));

        const Run plain = cli({"classify", unnamed});
        QCOMPARE(plain.exitCode, 0);
        QVERIFY(plain.out.contains("choose its GPU (--gpu, or Ceilings > GPU in the app)"));
        const Run chosen = cli({"classify", unnamed, "--gpu", "H200", "--format", "json"});
        QCOMPARE(chosen.exitCode, 0);
        const QJsonObject device = QJsonDocument::fromJson(chosen.out).object().value("device").toObject();
        QCOMPARE(device.value("datasheet_row").toString(), QStringLiteral("H200 SXM"));
        QCOMPARE(device.value("chosen_gpu").toString(), QStringLiteral("H200"));
        const Run named = cli({"classify", trace("gemm_compare"), "--format", "json"});
        QCOMPARE(QJsonDocument::fromJson(chosen.out).object().value("kernels"),
                 QJsonDocument::fromJson(named.out).object().value("kernels"));

        const Run deviceRun = cli({"device", unnamed, "--gpu", "nvidia h200"});
        QCOMPARE(deviceRun.exitCode, 0);
        QVERIFY(deviceRun.out.contains("the GPU chosen for it: the H200 SXM datasheet row (from 'nvidia h200')"));
        QVERIFY(deviceRun.out.contains("BF16 989.4 TFLOP/s"));
        // diagnose and compare grade as they do the trace that names its H200.
        for (const char* command : {"diagnose", "compare"}) {
            const Run given = cli({command, unnamed, "--gpu", "H200", "--format", "json"});
            QCOMPARE(given.exitCode, 0);
            QCOMPARE(QJsonDocument::fromJson(given.out),
                     QJsonDocument::fromJson(cli({command, trace("gemm_compare"), "--format", "json"}).out));
        }
        QVERIFY(cli({"compare", unnamed, "--format", "json"}).out != cli({"compare", unnamed, "--gpu", "H200", "--format", "json"}).out);
        // Their text names the chosen GPU first; the trace's own GPU needs no such line.
        for (const char* command : {"diagnose", "compare"}) {
            QVERIFY(cli({command, unnamed, "--gpu", "H200"}).out.startsWith("device: (none), graded as the H200 SXM (chosen)\n\n"));
            QVERIFY(!cli({command, trace("gemm_compare")}).out.contains("device:"));
        }
        const Run ambiguous = cli({"classify", unnamed, "--gpu", "A100"});
        QCOMPARE(ambiguous.exitCode, 2);
        QVERIFY(
            ambiguous.err.contains("'A100' fits several datasheet rows (A100 PCIe 80GB, A100 PCIe 40GB, A100 SXM4 80GB, A100 SXM4 40GB)"));
        QCOMPARE(cli({"classify", trace("gemm_compare"), "--gpu", "NVIDIA H200"}).exitCode, 0); // its own GPU

        const Run unknown = cli({"classify", unnamed, "--gpu", "Z9000"});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY(unknown.err.contains("--gpu: no datasheet row for the GPU 'Z9000'; the rows: H100 NVL"));
        QCOMPARE(cli({"device", unnamed, "--gpu", "Z9000"}).exitCode, 2);
        const Run empty = cli({"classify", unnamed, "--gpu", ""});
        QCOMPARE(empty.exitCode, 2);
        QVERIFY(empty.err.contains("--gpu needs a GPU's name"));
        for (const char* command : {"classify", "device", "diagnose"}) {
            const Run contradicted = cli({command, trace("gemm_compare"), "--gpu", "A100 SXM4 40GB"});
            QCOMPARE(contradicted.exitCode, 2);
            QVERIFY2(contradicted.err.contains(
                         "the trace ran on NVIDIA H200 (the H200 SXM datasheet row), which 'A100 SXM4 40GB' does not name"),
                     command);
        }
    }

    // torch's table of nothing is empty; a trace whose events are none that key averages count is told why.
    void summaryOfNothingToAverage()
    {
        QTemporaryDir dir;
        const QString generic = dir.filePath(QStringLiteral("generic.json"));
        QFile f(generic);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("[{\"ph\": \"X\", \"name\": \"frame\", \"ts\": 1, \"dur\": 2, \"pid\": 1, \"tid\": 1},"
                " {\"ph\": \"X\", \"name\": \"draw\", \"ts\": 1, \"dur\": 1, \"pid\": 1, \"tid\": 1}]");
        f.close();
        const Run r = cli({"summary", generic});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains(": nothing to average: none of its 2 events is a torch op, record_function region, CUDA runtime call or "
                                "GPU activity"),
                 r.err.constData());
        QVERIFY(!cli({"summary", trace("gemm_compare")}).err.contains("nothing to average"));
    }

    void classifyRegionsListKernels()
    {
        const Run json = cli({"classify", trace("train_scheduled"), "--format", "json"});
        QCOMPARE(json.exitCode, 0);
        bool sawAttention = false;
        for (const auto& region : QJsonDocument::fromJson(json.out).object().value("regions").toArray()) {
            const QJsonObject o = region.toObject();
            const QJsonArray kernels = o.value("kernels").toArray();
            QVERIFY2(!kernels.isEmpty(), qPrintable(o.value("name").toString()));
            for (const auto& k : kernels)
                for (const char* field : {"name", "calls", "total_us", "share_of_busy"})
                    QVERIFY2(k.toObject().contains(QLatin1String(field)), field);
            if (o.value("name").toString() == QLatin1String("attention_block"))
                for (const auto& k : kernels)
                    if (k.toObject().value("name").toString().contains(QLatin1String("sdpa_sm90_flash_fprop"))) {
                        sawAttention = true;
                        QCOMPARE(k.toObject().value("calls").toInt(), 12);
                    }
        }
        QVERIFY(sawAttention);
        const Run table = cli({"classify", trace("train_scheduled")});
        QCOMPARE(table.exitCode, 0);
        QVERIFY(table.out.contains("kernels (calls, total, share of GPU busy):"));
    }

    // compare's columns never run together: a kernel's long name goes on a line of its own, and a's column is as
    // wide as its widest figure.
    void compareTableColumns()
    {
        const Run r = cli(
            {"compare", trace("gemm_compare"), "--a", "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", "--b", "matmul_kernel"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith("  a: nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT\n  b: matmul_kernel\n"), r.out.constData());
        const QList<QByteArray> lines = r.out.split('\n');
        QVERIFY(lines.size() > 15);
        const qsizetype bColumn = lines[2].indexOf(" b") + 1;
        QVERIFY(bColumn > 0);
        for (int i = 3; i < 15; ++i)
            QVERIFY2(lines[i].size() > bColumn && lines[i].at(bColumn - 1) == ' ' && lines[i].at(bColumn) != ' ', lines[i].constData());
        const Run regions = cli({"compare", trace("gemm_compare")});
        QVERIFY(regions.out.startsWith("                            custom_kernel (a)           torch_ref (b)\n"));
    }

    // Absolute times at 1.7e15 µs (HTA's ns_resolution trace) come out exact to the ns: each step's start
    // and end as the ProfilerStep event's ts and ts + dur in the raw events, and a step's window.
    void exactAbsoluteTimes()
    {
        const std::string path = testutil::dataPath("external/hta/ns_resolution_trace_rank0.json.gz");
        std::map<int64_t, std::pair<int64_t, int64_t>> raw; // step -> start, end in ns
        const nlohmann::json doc = testutil::readExactJson(path);
        for (const nlohmann::json& e : doc["traceEvents"]) {
            const std::string name = e.value("name", "");
            if (e.value("ph", "") == "X" && name.starts_with("ProfilerStep#")) {
                const int64_t start = testutil::exactNs(e["ts"]);
                raw[std::stoll(name.substr(13))] = {start, start + testutil::exactNs(e["dur"])};
            }
        }
        QCOMPARE(raw.size(), size_t(5));
        // A number as the CLI wrote it: plain decimal digits, at most three after the point, read exactly.
        const auto exactText = [](const nlohmann::json& value) {
            const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
            const size_t dot = text.find('.');
            return text.find_first_not_of("-0123456789.") == std::string::npos && (dot == std::string::npos || text.size() - dot <= 4);
        };
        auto run = cli({"steps", QString::fromStdString(path), "--format", "json"});
        QCOMPARE(run.exitCode, 0);
        const nlohmann::json steps = testutil::parseExactJson(run.out.toStdString());
        QCOMPARE(steps["steps"].size(), raw.size());
        for (const nlohmann::json& row : steps["steps"]) {
            const auto& [start, end] = raw.at(row["step"].get<int64_t>());
            QVERIFY(exactText(row["start_us"]) && exactText(row["end_us"]));
            QCOMPARE(testutil::exactNs(row["start_us"]), start);
            QCOMPARE(testutil::exactNs(row["end_us"]), end);
        }
        run = cli({"breakdown", QString::fromStdString(path), "--format", "json", "--step", "103"});
        QCOMPARE(run.exitCode, 0);
        const nlohmann::json breakdown = testutil::parseExactJson(run.out.toStdString());
        QVERIFY(exactText(breakdown["window_start_us"]));
        QCOMPARE(testutil::exactNs(breakdown["window_start_us"]), raw.at(103).first);
        QCOMPARE(testutil::exactNs(breakdown["window_end_us"]), raw.at(103).second);
        QCOMPARE(breakdown["window_start_us"].get<std::string>(), std::string("1712195495609361.776"));
        // A folder of ranks embeds each rank's output: still exact.
        QTemporaryDir dir;
        QVERIFY(QFile::copy(QString::fromStdString(path), dir.filePath("rank-0.json.gz")));
        run = cli({"breakdown", dir.path(), "--format", "json", "--step", "103"});
        QCOMPARE(run.exitCode, 0);
        const nlohmann::json folder = testutil::parseExactJson(run.out.toStdString());
        QCOMPARE(folder["ranks"].size(), size_t(1));
        QCOMPARE(folder["ranks"][0]["result"]["window_start_us"], breakdown["window_start_us"]);
        QCOMPARE(folder["ranks"][0]["result"]["window_end_us"], breakdown["window_end_us"]);
    }

    void badInputExitsWithTwo()
    {
        QTemporaryDir dir;
        const QString bad = dir.filePath("bad.json");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "dur": 1}, {"ph": )");
        f.close();
        const Run r = cli({"summary", bad});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(bad.toUtf8()));
        QVERIFY(r.err.contains("truncated"));
        QVERIFY(r.out.isEmpty());
        const Run partial = cli({"summary", bad, "--partial", "--sort", "self_cpu_time_total"});
        QCOMPARE(partial.exitCode, 0);
        QVERIFY(partial.err.contains("warning"));
        QVERIFY(partial.out.contains("Self CPU time total: 1.000us"));
        QCOMPARE(cli({"summary", dir.path()}).exitCode, 2);
        // report and diff take trace files: a folder is told the ways to its ranks.
        QVERIFY(QFile::copy(trace("gemm_compare"), dir.filePath("rank-0.json")));
        const Run folderReport = cli({"report", dir.path(), "--out", dir.filePath("r.html")});
        QCOMPARE(folderReport.exitCode, 2);
        QVERIFY2(folderReport.err.contains(": is a folder; report takes one trace file (a rank's, such as one in the folder); "
                                           "`tilescope-cli ranks "),
                 folderReport.err.constData());
        QVERIFY(!QFile::exists(dir.filePath("r.html")));
        QVERIFY(cli({"diff", dir.path(), trace("gemm_compare")}).err.contains("diff takes two trace files"));
        QVERIFY(cli({"diff", trace("gemm_compare"), dir.path()}).err.contains(dir.path().toUtf8() + ": is a folder; diff takes two"));
        QVERIFY(QFile::remove(dir.filePath("rank-0.json")));
        QCOMPARE(cli({"info", dir.filePath("nothing.json")}).exitCode, 2);
        QCOMPARE(cli({"summary", trace("gemm_compare"), "--sort", "bogus"}).exitCode, 2);
        // A mistake in a command's line points at that command's usage; an unknown command at the list.
        const Run badRowLimit = cli({"summary", trace("gemm_compare"), "--row-limit", "x"});
        QCOMPARE(badRowLimit.exitCode, 2);
        QVERIFY2(badRowLimit.err.endsWith("(run 'tilescope-cli summary --help' for its usage)\n"), badRowLimit.err.constData());
        const Run badCapture = cli({"capture", "--iters", "x"});
        QCOMPARE(badCapture.exitCode, 2);
        QVERIFY2(badCapture.err.endsWith("(run 'tilescope-cli capture --help' for its usage)\n"), badCapture.err.constData());
        const Run unknown = cli({"frobnicate", trace("gemm_compare")});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.endsWith("(run 'tilescope-cli --help' for usage)\n"), unknown.err.constData());
        QCOMPARE(cli({}).exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
