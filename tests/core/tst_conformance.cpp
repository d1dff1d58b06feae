// SPDX-License-Identifier: MIT
// Format conformance on public traces (HTA, TensorBoard plugin): V100/A100, 2021-2024 Kineto writers.
// Expected facts come from tests/tools/make_conformance_manifest.py (Python's json module).
#include "testutil.h"

#include "stats/keyaverages.h"
#include "trace/traceloader.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <map>

using namespace tilescope;

class TestConformance : public QObject
{
    Q_OBJECT
private slots:
    void externalTraces_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QJsonObject>("facts");
        const std::string text = testutil::readFile(testutil::dataPath("external/manifest.json"));
        const QJsonObject manifest = QJsonDocument::fromJson(QByteArray(text.data(), qsizetype(text.size()))).object();
        QVERIFY(manifest.size() >= 8);
        for (auto it = manifest.begin(); it != manifest.end(); ++it)
            QTest::newRow(qPrintable(it.key())) << it.key() << it.value().toObject();
    }
    void externalTraces()
    {
        QFETCH(QString, file);
        QFETCH(QJsonObject, facts);
        const auto t = trace::loadTrace(testutil::dataPath("external/" + file.toStdString()));
        QCOMPARE(qint64(t->stats.records), facts.value("records").toInteger());
        QVERIFY(t->meta.format == trace::TraceFormat::Kineto || t->meta.format == trace::TraceFormat::Kineto18);
        std::map<std::string, qint64> perCategory;
        for (const auto& e : t->events)
            if (!(e.flags & trace::FromBeginEnd) && e.kind != trace::EventKind::Instant)
                ++perCategory[std::string(t->strings.view(e.category))];
        const QJsonObject expected = facts.value("complete_per_category").toObject();
        for (auto it = expected.begin(); it != expected.end(); ++it)
            QCOMPARE(perCategory[it.key().toStdString()], it.value().toInteger());
        QCOMPARE(qint64(t->flows.size()), facts.value("flows").toInteger());
        QCOMPARE(qint64(t->memory.size()), facts.value("memory_records").toInteger());
        QCOMPARE(qint64(t->meta.devices.size()), facts.value("devices").toInteger());

        // Every GPU activity reaches key_averages as exactly one CUDA row entry.
        const auto averages = stats::computeKeyAverages(*t);
        qint64 gpuCount = 0;
        for (const auto& row : averages.rows) {
            if (row.deviceType == stats::DeviceType::CUDA && !row.isUserAnnotation)
                gpuCount += row.count;
            QVERIFY(std::isfinite(row.selfCpuTimeTotal) && std::isfinite(row.deviceTimeTotal));
            QVERIFY2(row.selfCpuTimeTotal <= row.cpuTimeTotal + 1e-6, row.key.c_str());
            QVERIFY2(row.selfDeviceTimeTotal <= row.deviceTimeTotal + 1e-6, row.key.c_str());
        }
        QCOMPARE(gpuCount, facts.value("gpu_activities").toInteger() + expected.value("cuda_sync").toInteger());
        if (facts.value("gpu_activities_with_external_id").toInteger() < facts.value("gpu_activities").toInteger())
            QVERIFY(!t->meta.externalIdEqualsCorrelationMeansNone);
        // Links: every GPU activity with a correlation has a launch call, except where CUPTI lost it.
        qint64 launched = 0, activities = 0;
        for (uint32_t i = 0; i < t->events.size(); ++i)
            if (trace::isGpuActivity(t->events[i].kind)) {
                ++activities;
                launched += t->launchOf(i) != trace::kNoIndex;
            }
        QVERIFY(launched * 10 >= activities * 9);
    }

    // trace-format.md §3.3: the widening changed between Kineto versions; it is measured per file.
    void wideningPerWriter()
    {
        const auto ns = trace::loadTrace(testutil::dataPath("external/hta/ns_resolution_trace_rank0.json.gz"));
        QCOMPARE(ns->meta.annotationWideningStart, int64_t(1));
        QCOMPARE(ns->meta.annotationWideningEnd, int64_t(0));
        const auto nccl = trace::loadTrace(testutil::dataPath("external/hta/nccl_parser_config_nccl_data.json.gz"));
        QCOMPARE(nccl->meta.annotationWideningStart, int64_t(1000));
        QCOMPARE(nccl->meta.annotationWideningEnd, int64_t(500));
        QVERIFY(nccl->meta.distributedInfo.has_value());
    }

    void oldWriterExternalIds()
    {
        // Before pytorch/kineto#1001 every unlinked activity carried its own correlation as External id.
        const auto t = trace::loadTrace(
            testutil::dataPath("external/hta/critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz"));
        QVERIFY(t->meta.externalIdEqualsCorrelationMeansNone);
        const auto sync = std::find_if(t->events.begin(), t->events.end(),
                                       [](const auto& e) { return e.kind == trace::EventKind::CudaSync; });
        QVERIFY(sync != t->events.end());
        QVERIFY(!t->hasExternalLink(*sync));
    }

    void cpuOnlyTrace()
    {
        const auto t = trace::loadTrace(testutil::dataPath("external/hta/cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"));
        QVERIFY(t->meta.devices.empty());
        const auto averages = stats::computeKeyAverages(*t);
        QVERIFY(!averages.useDevice);
        for (const auto& row : averages.rows)
            QCOMPARE(row.deviceTimeTotal, 0.0);
    }
};

QTEST_APPLESS_MAIN(TestConformance)
#include "tst_conformance.moc"
