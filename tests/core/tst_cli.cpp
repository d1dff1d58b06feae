// SPDX-License-Identifier: MIT
// tilescope-cli as a user runs it: output formats and exit codes.
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

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
        const QStringList fields{"count", "cpu_memory_usage", "cpu_time_total_us", "device_memory_usage", "device_time_total_us", "flops",
                                 "input_shapes", "key", "self_cpu_memory_usage", "self_cpu_time_total_us", "self_device_memory_usage",
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
            QVERIFY(rows[i - 1].toObject().value("cpu_time_total_us").toDouble() >= rows[i].toObject().value("cpu_time_total_us").toDouble());
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
    }

    void overlapJsonShape()
    {
        const Run r = cli({"overlap", trace("launch_bound"), "--format", "json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(doc.keys(), (QStringList{"cpu_busy_us", "cpu_gpu_overlap_us", "devices", "launches", "window_us"}));
        const QJsonObject device = doc.value("devices").toArray()[0].toObject();
        QCOMPARE(device.keys(), (QStringList{"busy_us", "device", "idle_us", "kernels", "utilization"}));
        QCOMPARE(device.value("kernels").toInt(), 3000);
        QCOMPARE(doc.value("launches").toObject().keys(), (QStringList{"count", "cpu_us", "kernel_us"}));
        const Run text = cli({"overlap", trace("launch_bound")});
        QVERIFY(text.out.contains("flag: launch-bound"));
        const Run windowed = cli({"overlap", trace("launch_bound"), "--format", "json", "--window", "5349368714433,5349368754433"});
        QCOMPARE(windowed.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(windowed.out).object().value("window_us").toDouble(), 40000.0);
        QCOMPARE(cli({"overlap", trace("launch_bound"), "--window", "5,1"}).exitCode, 2);
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
            for (const char* field : {"name", "calls", "total_us", "flops", "bytes", "achieved_flops_per_s", "achieved_bytes_per_s", "class", "strength", "evidence"})
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
        QCOMPARE(cli({"info", dir.filePath("nothing.json")}).exitCode, 2);
        QCOMPARE(cli({"summary", trace("gemm_compare"), "--sort", "bogus"}).exitCode, 2);
        QCOMPARE(cli({"summary", trace("gemm_compare"), "--row-limit", "x"}).exitCode, 2);
        QCOMPARE(cli({"frobnicate", trace("gemm_compare")}).exitCode, 2);
        QCOMPARE(cli({}).exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
