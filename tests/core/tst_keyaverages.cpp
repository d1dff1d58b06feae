// SPDX-License-Identifier: MIT
// key_averages against torch's own output from the same runs: every row, in torch's order, and the
// printed tables byte for byte.
#include "testutil.h"

#include "stats/keyaverages.h"
#include "stats/torchtable.h"
#include "io/bytesource.h"
#include "trace/trace.h"
#include "trace/traceloader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>

using namespace tilescope;

namespace {

QJsonArray referenceRows(const std::string& path)
{
    const std::string text = testutil::readFile(path);
    return QJsonDocument::fromJson(QByteArray(text.data(), qsizetype(text.size()))).object().value("rows").toArray();
}

std::string describe(const stats::KeyAverage& row)
{
    return row.key + (row.deviceType == stats::DeviceType::CPU ? " [CPU]" : " [CUDA]") + " " + row.inputShapes;
}

// Compares our rows with torch's, row for row in order. `timeTolerance(ref)` gives the allowed error.
void compareRows(const stats::KeyAverages& ours, const QJsonArray& reference, bool byShape, bool legacy)
{
    std::vector<const stats::KeyAverage*> rows;
    for (const auto& row : ours.rows)
        if (!(legacy && (row.key == "[memory]" || row.key == "_fork_join")))
            rows.push_back(&row);
    int skipped = 0;
    for (qsizetype i = 0; i < reference.size(); ++i) {
        const QJsonObject ref = reference[i].toObject();
        // The legacy exporter writes no [memory] events, so torch's leftover-memory row cannot be rebuilt;
        // nor the async flag (key-averages.md §9): torch gives the async TorchScript _fork_join self time 0.
        if (legacy
            && (ref.value("key").toString() == QLatin1String("[memory]") || ref.value("key").toString() == QLatin1String("_fork_join"))) {
            ++skipped;
            continue;
        }
        const size_t at = size_t(i - skipped);
        QVERIFY2(at < rows.size(), qPrintable("missing row " + ref.value("key").toString()));
        const stats::KeyAverage& row = *rows[at];
        const std::string label = describe(row);
        QCOMPARE(QString::fromStdString(row.key), ref.value("key").toString());
        QCOMPARE(row.deviceType == stats::DeviceType::CPU ? QStringLiteral("DeviceType.CPU") : QStringLiteral("DeviceType.CUDA"),
                 ref.value("device_type").toString());
        QCOMPARE(row.isUserAnnotation, ref.value("is_user_annotation").toBool());
        if (byShape)
            QCOMPARE(QString::fromStdString(row.inputShapes), ref.value("input_shapes").toString());
        QCOMPARE(row.count, int64_t(ref.value("count").toInteger()));
        const auto near = [&](double value, const char* field) {
            const double want = ref.value(QLatin1String(field)).toDouble();
            const double tolerance = legacy ? std::max(1.0, 0.005 * std::fabs(want)) : 1e-6;
            QVERIFY2(std::fabs(value - want) <= tolerance,
                     qPrintable(QString::fromStdString(label) + " " + field + ": " + QString::number(value, 'g', 17) + " vs "
                                + QString::number(want, 'g', 17)));
        };
        near(row.cpuTimeTotal, "cpu_time_total_us");
        near(row.selfCpuTimeTotal, "self_cpu_time_total_us");
        near(row.deviceTimeTotal, "device_time_total_us");
        near(row.selfDeviceTimeTotal, "self_device_time_total_us");
        if (!legacy) {
            QCOMPARE(row.cpuMemoryUsage, int64_t(ref.value("cpu_memory_usage").toInteger()));
            QCOMPARE(row.selfCpuMemoryUsage, int64_t(ref.value("self_cpu_memory_usage").toInteger()));
            QCOMPARE(row.deviceMemoryUsage, int64_t(ref.value("device_memory_usage").toInteger()));
            QCOMPARE(row.selfDeviceMemoryUsage, int64_t(ref.value("self_device_memory_usage").toInteger()));
            QCOMPARE(row.flops, uint64_t(ref.value("flops").toInteger()));
        }
    }
    QCOMPARE(rows.size(), size_t(reference.size() - skipped));
}

} // namespace

class TestKeyAverages : public QObject
{
    Q_OBJECT
private slots:
    void h200_data()
    {
        QTest::addColumn<QString>("workload");
        for (const char* w : testutil::h200Workloads)
            QTest::newRow(w) << QString::fromLatin1(w);
    }
    void h200()
    {
        QFETCH(QString, workload);
        const std::string dir = testutil::dataPath("h200/" + workload.toStdString());
        const auto t = trace::loadTrace(testutil::workloadTrace(workload.toStdString()));
        // One thread, and four: the memory, device and order steps then run side by side.
        for (const unsigned threads : {1u, 4u}) {
            stats::KeyAveragesOptions options;
            options.threads = threads;
            const auto plain = stats::computeKeyAverages(*t, options);
            compareRows(plain, referenceRows(dir + "/ref_key_averages.json"), false, false);
            options.groupByInputShape = true;
            const auto byShape = stats::computeKeyAverages(*t, options);
            compareRows(byShape, referenceRows(dir + "/ref_key_averages_by_shape.json"), true, false);
        }
    }

    // [memory] records inside no op are torch's leftover rows, sorted with the events by their time: the
    // order is sorted without them and they are merged in after, so they must land where one sort puts them.
    // The rows come in the order of each key's first event, so "[memory]" is first when a leftover record is
    // the earliest of all, and after "early" when it is not; both ways, on one thread and on four.
    void leftoverMemoryMergedIntoOrder_data()
    {
        QTest::addColumn<bool>("memoryFirst");
        QTest::newRow("a record before every op") << true;
        QTest::newRow("records between ops") << false;
    }
    void leftoverMemoryMergedIntoOrder()
    {
        QFETCH(bool, memoryFirst);
        const auto memoryAt = [](int ts, int bytes) {
            return "{\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(ts)
                + ", \"args\": {\"Bytes\": " + std::to_string(bytes)
                + ", \"Total Allocated\": 4096, \"Device Type\": 0, \"Device Id\": -1, \"Addr\": 1}}";
        };
        const auto opAt = [](const char* name, int ts, int dur) {
            return std::string("{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"") + name
                + "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(ts) + ", \"dur\": " + std::to_string(dur) + "}";
        };
        // In the file the ops come first, each record later: the merge, not the file, must order them.
        std::string json = "{\"traceEvents\": [" + opAt("early", 10, 5) + ", " + opAt("middle", 30, 5) + ", " + opAt("late", 50, 5) + ", "
            + memoryAt(32, 100) + ", " + memoryAt(40, 64) + ", " + memoryAt(60, -64) + ", " + memoryAt(20, 8);
        if (memoryFirst)
            json += ", " + memoryAt(1, 16);
        // Out of memory at "middle"'s start: a leftover always, after "middle" (the same start, torch's -end
        // puts the longer first).
        json += ", {\"ph\": \"i\", \"s\": \"t\", \"name\": \"[OutOfMemory]\", \"pid\": 1, \"tid\": 1, \"ts\": 30, \"args\": "
                "{\"Bytes\": 1073741824, \"Total Allocated\": 4096, \"Total Reserved\": 8192, \"Device Type\": 1, \"Device Id\": 0}}";
        json += "]}";
        const auto source = io::memorySource(json, "leftovers.json");
        const auto t = trace::loadTrace(*source);
        std::vector<std::string> expected = {"early", "[memory]", "middle", "[OutOfMemory]", "late"};
        if (memoryFirst)
            expected = {"[memory]", "early", "middle", "[OutOfMemory]", "late"};
        for (const unsigned threads : {1u, 4u}) {
            stats::KeyAveragesOptions options;
            options.threads = threads;
            const auto averages = stats::computeKeyAverages(*t, options);
            std::vector<std::string> keys;
            for (const stats::KeyAverage& row : averages.rows)
                keys.push_back(row.key);
            QCOMPARE(keys, expected);
            const stats::KeyAverage& memory = averages.rows[memoryFirst ? 0 : 1];
            QCOMPARE(memory.count, int64_t(memoryFirst ? 4 : 3)); // the record at 32 is inside "middle"
            QCOMPARE(memory.selfCpuMemoryUsage, int64_t(memoryFirst ? 8 + 64 - 64 + 16 : 8 + 64 - 64));
            QCOMPARE(averages.rows[2].selfCpuMemoryUsage, int64_t(100)); // "middle"
        }
    }

    // The global order is a merge of the tracks' own (sorted by the loader); without their lists every event
    // is gathered in file order and sorted afresh. Both end in the same total order, so this checks the
    // gathering: every event taken once from the lists, with its own times, also when a window leaves some
    // out. (torch's own rows, above, check the order itself; timesBeyondExactNanoseconds the doubles.)
    void mergedTrackOrderEqualsFullSort_data() { h200_data(); }
    void mergedTrackOrderEqualsFullSort()
    {
        QFETCH(QString, workload);
        const auto t = trace::loadTrace(testutil::workloadTrace(workload.toStdString()));
        auto unlisted = trace::loadTrace(testutil::workloadTrace(workload.toStdString()));
        for (trace::Track& track : unlisted->tracks)
            track.events.clear();
        stats::KeyAveragesOptions window;
        window.window = std::make_pair(t->firstTime(), t->firstTime() + (t->lastTime() - t->firstTime()) / 2); // the first half
        std::vector<stats::KeyAveragesOptions> variants = {stats::KeyAveragesOptions::byInputShape(false),
                                                           stats::KeyAveragesOptions::byInputShape(true), window};
        for (size_t k = 0, n = variants.size(); k < n; ++k) { // each on four threads too (the order sorted beside the rest)
            variants.push_back(variants[k]);
            variants.back().threads = 4;
        }
        for (const auto& options : variants) {
            const auto merged = stats::computeKeyAverages(*t, options);
            const auto sorted = stats::computeKeyAverages(*unlisted, options);
            QVERIFY(!merged.rows.empty());
            QCOMPARE(merged.rows.size(), sorted.rows.size());
            for (size_t i = 0; i < merged.rows.size(); ++i) {
                const stats::KeyAverage& a = merged.rows[i];
                const stats::KeyAverage& b = sorted.rows[i];
                QVERIFY2(a.key == b.key && a.inputShapes == b.inputShapes && a.deviceType == b.deviceType
                             && a.hasCpuParent == b.hasCpuParent && a.count == b.count && a.cpuTimeTotal == b.cpuTimeTotal
                             && a.selfCpuTimeTotal == b.selfCpuTimeTotal && a.deviceTimeTotal == b.deviceTimeTotal
                             && a.selfDeviceTimeTotal == b.selfDeviceTimeTotal && a.selfCpuMemoryUsage == b.selfCpuMemoryUsage
                             && a.selfDeviceMemoryUsage == b.selfDeviceMemoryUsage && a.flops == b.flops,
                         qPrintable(QString::fromStdString("row " + std::to_string(i) + ": " + describe(a) + " / " + describe(b))));
            }
        }
    }

    // Events more than 2^50 ns (13 days) from the first: nanoseconds no longer map one to one onto torch's
    // microsecond doubles, and the events are sorted as doubles, as torch sorts them. 9e15 us from the
    // start, "outer" begins 1 ns after "inner" but as a double at the same microsecond, and ends later: torch
    // puts it first and nests "inner" in it (sorted as nanoseconds, "outer" would overlap "inner" instead).
    void timesBeyondExactNanoseconds()
    {
        const std::string json = R"({"traceEvents": [
            {"ph": "X", "cat": "cpu_op", "name": "first", "pid": 1, "tid": 1, "ts": 0, "dur": 1},
            {"ph": "X", "cat": "cpu_op", "name": "inner", "pid": 1, "tid": 1, "ts": 9000000000000000, "dur": 1},
            {"ph": "X", "cat": "cpu_op", "name": "outer", "pid": 1, "tid": 1, "ts": 9000000000000000.001, "dur": 5}]})";
        const auto source = io::memorySource(json, "far.json");
        const auto averages = stats::computeKeyAverages(*trace::loadTrace(*source));
        QCOMPARE(averages.rows.size(), size_t(3));
        QCOMPARE(averages.rows[1].key, std::string("outer"));
        QCOMPARE(averages.rows[1].cpuTimeTotal, 5.0);
        QCOMPARE(averages.rows[1].selfCpuTimeTotal, 4.0);
        QCOMPARE(averages.rows[2].key, std::string("inner"));
        QVERIFY(averages.rows[2].hasCpuParent);
    }

    // ref_table.txt: the table sorted by self CUDA time (memory_churn: self CUDA memory), then by self CPU.
    void h200TablesByteForByte_data() { h200_data(); }
    void h200TablesByteForByte()
    {
        QFETCH(QString, workload);
        const std::string dir = testutil::dataPath("h200/" + workload.toStdString());
        const auto t = trace::loadTrace(testutil::workloadTrace(workload.toStdString()));
        const auto averages = stats::computeKeyAverages(*t);
        stats::TorchTableOptions options;
        options.rowLimit = -1;
        options.maxNameColumnWidth = 80;
        options.sortBy = workload == QLatin1String("memory_churn") ? stats::SortKey::SelfDeviceMemoryUsage
                                                                   : stats::SortKey::SelfDeviceTimeTotal;
        std::string text = stats::renderTorchTable(averages, options);
        options.sortBy = stats::SortKey::SelfCpuTimeTotal;
        text += "\n\n# sorted by self_cpu_time_total\n" + stats::renderTorchTable(averages, options);
        const std::string expected = testutil::readFile(dir + "/ref_table.txt");
        if (text != expected) {
            std::istringstream a(text), b(expected);
            std::string la, lb;
            int line = 1;
            while (std::getline(a, la) && std::getline(b, lb) && la == lb)
                ++line;
            QFAIL(qPrintable(QStringLiteral("first difference at line %1:\nours:  %2\ntorch: %3")
                                 .arg(line)
                                 .arg(QString::fromStdString(la), QString::fromStdString(lb))));
        }
    }

    // Torch 1.13 without Kineto: the legacy "CPU functions" export, checked against that torch's key_averages.
    void legacyAutograd_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::newRow("cpu_mlp") << "cpu_mlp";
        QTest::newRow("cpu_newapi") << "cpu_newapi";
    }
    void legacyAutograd()
    {
        QFETCH(QString, fixture);
        const std::string dir = testutil::dataPath("legacy/" + fixture.toStdString());
        const auto t = trace::loadTrace(dir + "/trace.json");
        compareRows(stats::computeKeyAverages(*t), referenceRows(dir + "/ref_key_averages.json"), false, true);
    }

    void documentedFacts()
    {
        // key-averages.md §10: values torch prints, which depend on the subtle rules.
        const auto jit = stats::computeKeyAverages(*trace::loadTrace(testutil::workloadTrace("jit_cold")));
        const auto iter0 = std::find_if(jit.rows.begin(), jit.rows.end(),
                                        [](const auto& r) { return r.key == "iter_0" && r.deviceType == stats::DeviceType::CPU; });
        QVERIFY(iter0 != jit.rows.end());
        QCOMPARE(stats::formatTorchTime(iter0->selfCpuTimeTotal), std::string("360.710ms")); // overhead nests under iter_0
        const auto streams = stats::computeKeyAverages(*trace::loadTrace(testutil::workloadTrace("streams_overlap")));
        const auto buffer = std::find_if(streams.rows.begin(), streams.rows.end(),
                                         [](const auto& r) { return r.key == "Activity Buffer Request"; });
        QCOMPARE(stats::formatTorchTime(buffer->selfDeviceTimeTotal), std::string("1.429ms")); // borrowed id gets the op's kernels
        const auto train = stats::computeKeyAverages(*trace::loadTrace(testutil::workloadTrace("train_scheduled")));
        const auto step = std::find_if(train.rows.begin(), train.rows.end(), [](const auto& r) { return r.key == "ProfilerStep*"; });
        QVERIFY(step != train.rows.end());
        QCOMPARE(step->count, int64_t(3));
        const auto gemm = stats::computeKeyAverages(*trace::loadTrace(testutil::workloadTrace("gemm_compare")));
        const auto order = stats::sortedRowOrder(gemm, stats::SortKey::SelfDeviceTimeTotal);
        QCOMPARE(stats::formatTorchTime(gemm.selfDeviceTimeTotal(order)), std::string("7.592ms"));
        QCOMPARE(gemm.rows[order[0]].key, std::string("matmul_kernel")); // tie with its GPU span: file order wins
        QCOMPARE(gemm.rows[order[1]].key, std::string("custom_kernel"));
    }

    void sortKeys()
    {
        QCOMPARE(stats::sortKeyFromName("self_cuda_time_total"), std::optional(stats::SortKey::SelfDeviceTimeTotal));
        QCOMPARE(stats::sortKeyFromName("self_device_time_total"), std::optional(stats::SortKey::SelfDeviceTimeTotal));
        QCOMPARE(stats::sortKeyFromName("self_xpu_time_total"), std::optional(stats::SortKey::SelfDeviceTimeTotal));
        QCOMPARE(stats::sortKeyFromName("cuda_time"), std::optional(stats::SortKey::DeviceTime));
        QCOMPARE(stats::sortKeyFromName("count"), std::optional(stats::SortKey::Count));
        QVERIFY(!stats::sortKeyFromName("bogus"));
        // Descending and stable: ties keep group order (not a reversed ascending sort).
        stats::KeyAverages a;
        for (int i = 0; i < 5; ++i) {
            stats::KeyAverage r;
            r.key = std::to_string(i);
            r.count = i % 2;
            a.rows.push_back(r);
        }
        QCOMPARE(stats::sortedRowOrder(a, stats::SortKey::Count), (std::vector<size_t>{1, 3, 0, 2, 4}));
    }
};

QTEST_APPLESS_MAIN(TestKeyAverages)
#include "tst_keyaverages.moc"
