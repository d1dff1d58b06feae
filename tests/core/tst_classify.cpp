// SPDX-License-Identifier: MIT
// Roofline classification on the H200 traces, against what each workload's meta.json says it is.
#include "testutil.h"

#include "io/tracefileerror.h"
#include "roofline/classify.h"
#include "trace/traceloader.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include "classifytestutil.h"

#include <QtTest>

using namespace tilescope;

namespace {

using testutil::find;
using testutil::mentions;

QJsonObject meta(const char* workload)
{
    const std::string text = testutil::readFile(testutil::dataPath(std::string("h200/") + workload + "/meta.json"));
    return QJsonDocument::fromJson(QByteArray(text.data(), qsizetype(text.size()))).object();
}

} // namespace

class TestClassify : public QObject
{
    Q_OBJECT
private slots:
    void gemmCompareIsTensorCoreBound()
    {
        // The Triton kernel has no op: its work comes from an annotation built from meta.json.
        const QJsonObject m = meta("gemm_compare");
        roofline::Annotation kernel, region;
        kernel.kernel = "re:^matmul_kernel$";
        region.region = "custom_kernel";
        kernel.flops = region.flops = m.value("flops_per_call").toDouble();
        kernel.bytes = region.bytes = m.value("min_bytes_per_call").toDouble();
        roofline::ClassifyOptions options;
        options.annotations = {kernel, region};
        const auto t = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        const auto r = roofline::classify(*t, options);
        QCOMPARE(r.deviceRow, std::string("H200 SXM"));
        QCOMPARE(m.value("expected").toObject().value("triton_matmul").toString(), QStringLiteral("tensor-core bound"));
        const auto* triton = find(r.kernels, "matmul_kernel");
        QVERIFY(triton);
        QCOMPARE(triton->cls, std::string("tensor-core-bound"));
        QCOMPARE(triton->strength, std::string("strong"));
        QCOMPARE(triton->roof, std::string("bf16")); // assumed: faster than any FP32 CUDA-core rate
        QVERIFY(std::abs(triton->achievedFlopsPerS - 664e12) < 1e12);
        const auto* cublas = find(r.kernels, "nvjet_sm90");
        QCOMPARE(cublas->cls, std::string("tensor-core-bound"));
        QCOMPARE(cublas->evidenceLevel, std::string("B"));
        QVERIFY(mentions(*cublas, "at the roof"));
        QVERIFY(mentions(*cublas, "name hint 'nvjet'"));
        // FLOPs from the launching op equal torch's flops column for aten::mm.
        QCOMPARE(*cublas->flops, 20.0 * 137438953472.0);
        QCOMPARE(find(r.regions, "custom_kernel")->cls, std::string("tensor-core-bound"));
        QCOMPARE(find(r.regions, "torch_ref")->cls, std::string("tensor-core-bound"));
    }

    void measuredCeilingsRaisePercentages()
    {
        roofline::ClassifyOptions options;
        options.measured = roofline::loadMeasuredCeilings(testutil::dataPath("h200/calibration/calibration.json"));
        const auto r = roofline::classify(*trace::loadTrace(testutil::workloadTrace("gemm_compare")), options);
        const auto* cublas = find(r.kernels, "nvjet_sm90");
        QVERIFY(mentions(*cublas, "103.3% of the bf16 roof 775.14 TFLOP/s (measured)")); // not clamped at 100%
        QVERIFY(!find(r.kernels, "matmul_kernel")->flops); // no annotation: no work, no verdict
        QCOMPARE(find(r.kernels, "matmul_kernel")->cls, std::string("inconclusive"));
    }

    void launchBoundIsLatencyBound()
    {
        const auto r = roofline::classify(*trace::loadTrace(testutil::workloadTrace("launch_bound")), {});
        QVERIFY(meta("launch_bound").value("expected").toObject().value("pipeline").toString().contains(QStringLiteral("launch")));
        for (const auto& k : r.kernels) {
            QCOMPARE(k.cls, std::string("latency-bound"));
            QCOMPARE(k.strength, std::string("provisional"));
        }
        QCOMPARE(r.kernels.size(), size_t(2));
        QCOMPARE(find(r.regions, "many_small_kernels")->cls, std::string("latency-bound"));
        QVERIFY(mentions(*find(r.regions, "many_small_kernels"), "GPU busy 3.3% of its span"));
    }

    void streamsOverlapCopiesAndElementwise()
    {
        const auto r = roofline::classify(*trace::loadTrace(testutil::workloadTrace("streams_overlap")), {});
        const auto* h2d = find(r.kernels, "Memcpy HtoD");
        QCOMPARE(h2d->cls, std::string("io-bound"));
        QCOMPARE(h2d->strength, std::string("strong"));
        QVERIFY(mentions(*h2d, "host link"));
        const auto* mul = find(r.kernels, "void at::native::vectorized_elementwise_kernel");
        QCOMPARE(mul->cls, std::string("io-bound"));
        QVERIFY(mentions(*mul, "at the roof"));
        QCOMPARE(find(r.kernels, "nvjet_sm90")->cls, std::string("tensor-core-bound"));
    }

    void cacheResidentIsInconclusive()
    {
        roofline::Annotation cold;
        cold.kernel = "cold_kernel";
        cold.bytes = 2.0 * 4 * (1 << 22); // exp over 2^22 fp32: read and write
        roofline::ClassifyOptions options;
        options.annotations = {cold};
        const auto r = roofline::classify(*trace::loadTrace(testutil::workloadTrace("jit_cold")), options);
        const auto* k = find(r.kernels, "cold_kernel");
        QCOMPARE(k->cls, std::string("inconclusive"));
        QVERIFY(mentions(*k, "cache-resident"));
    }

    // Traces made on the H200 for each class (tools/gpu/make_class_traces.py).
    void oneTracePerClass_data()
    {
        QTest::addColumn<QString>("trace");
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("cls");
        QTest::addColumn<QString>("strength");
        QTest::newRow("fp32 matmul, TF32 off") << "fp32_mm" << "sm80_xmma_gemm_f32f32" << "cuda-core-bound" << "strong";
        QTest::newRow("bf16 matmul") << "bf16_mm" << "nvjet_sm90" << "tensor-core-bound" << "strong";
        QTest::newRow("1 GiB elementwise") << "elementwise" << "void at::native::vectorized_elementwise_kernel" << "io-bound" << "strong";
        QTest::newRow("tiny kernels") << "tiny" << "void at::native::vectorized_elementwise_kernel" << "latency-bound" << "provisional";
    }
    void oneTracePerClass()
    {
        QFETCH(QString, trace);
        QFETCH(QString, kernel);
        QFETCH(QString, cls);
        QFETCH(QString, strength);
        const auto t = trace::loadTrace(testutil::dataPath("h200_classes/" + trace.toStdString() + ".json.gz"));
        const auto r = roofline::classify(*t, {});
        const auto* k = find(r.kernels, kernel.toStdString());
        QVERIFY(k);
        QCOMPARE(QString::fromStdString(k->cls), cls);
        QCOMPARE(QString::fromStdString(k->strength), strength);
        const auto* region = find(r.regions, trace.toStdString());
        QVERIFY(region);
        QCOMPARE(QString::fromStdString(region->cls), cls);
    }

    void annotationFiles()
    {
        QTemporaryDir dir;
        auto write = [&](const char* name, const char* text) {
            const std::string path = dir.path().toStdString() + "/" + name;
            std::ofstream(path) << text;
            return path;
        };
        const auto ok = roofline::loadAnnotations(write("ok.json", "{\"annotations\": [{\"region\": \"tilelang_kernel\", \"flops\": 1e9, \"bytes\": 2e6},\n"
    "            {\"kernel\": \"re:^main_kernel\", \"flops\": 5, \"roof\": \"fp16\"}]}"));
        QCOMPARE(ok.size(), size_t(2));
        QCOMPARE(ok[1].roof, std::string("fp16"));
        for (const auto& [name, text, problem] : {std::tuple{"a.json", "{}", "'annotations' array"},
                                                 {"b.json", "{\"annotations\": [{\"flops\": 1}]}", "exactly one of"},
                                                 {"c.json", "{\"annotations\": [{\"kernel\": \"k\"}]}", "neither 'flops' nor 'bytes'"},
                                                 {"d.json", "{\"annotations\": [{\"kernel\": \"re:([\", \"flops\": 1}]}", "bad regular expression"}}) {
            try {
                roofline::loadAnnotations(write(name, text));
                QFAIL("no error");
            } catch (const io::TraceFileError& e) {
                QVERIFY2(std::string(e.what()).find(problem) != std::string::npos, e.what());
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestClassify)
#include "tst_classify.moc"
