// SPDX-License-Identifier: MIT
// Roofline classification on the H200 traces, against what each workload's meta.json says it is.
#include "testutil.h"

#include "io/tracefileerror.h"
#include "report/classifyreport.h"
#include "report/verdicttext.h"
#include "roofline/classify.h"
#include "trace/traceloader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include "classifytestutil.h"

#include <QtTest>

#include <algorithm>

using namespace tilescope;

namespace {

using testutil::find;
using testutil::mentions;

QJsonObject meta(const char* workload)
{
    const std::string text = testutil::readFile(testutil::dataPath(std::string("h200/") + workload + "/meta.json"));
    return QJsonDocument::fromJson(QByteArray(text.data(), qsizetype(text.size()))).object();
}

// A minimal H200 trace: a record_function region around one aten::mm on two n x n `dtype` matrices, whose one
// kernel runs `kernelUs`.
std::string mmRegionTrace(const QTemporaryDir& dir, const char* dtype, int64_t n, double kernelUs, bool withDevice = true)
{
    auto x = [](const char* cat, const char* name, double ts, double dur, int pid, int tid, QJsonObject args) {
        return QJsonObject{{"ph", "X"}, {"cat", cat}, {"name", name}, {"ts", ts}, {"dur", dur}, {"pid", pid}, {"tid", tid}, {"args", args}};
    };
    const QJsonArray dims{QJsonArray{qint64(n), qint64(n)}, QJsonArray{qint64(n), qint64(n)}};
    QJsonArray events{
        x("user_annotation", "gemm_region", 100, kernelUs + 200, 1, 1, {{"External id", 1}}),
        x("cpu_op", "aten::mm", 110, 50, 1, 1, {{"External id", 2}, {"Input Dims", dims}, {"Input type", QJsonArray{dtype, dtype}}}),
        x("cuda_runtime", "cudaLaunchKernel", 120, 5, 1, 1, {{"External id", 2}, {"correlation", 77}}),
        x("gpu_user_annotation", "gemm_region", 129, kernelUs + 2, 0, 7, {{"External id", 1}, {"device", 0}, {"stream", 7}}),
        x("kernel", "gemm_kernel_128x128", 130, kernelUs, 0, 7, {{"External id", 2}, {"correlation", 77}, {"device", 0}, {"stream", 7}}),
    };
    QJsonObject root{{"deviceProperties",
                      QJsonArray{QJsonObject{{"id", 0},
                                             {"name", "NVIDIA H200"},
                                             {"totalGlobalMem", 150109880320.0},
                                             {"computeMajor", 9},
                                             {"computeMinor", 0},
                                             {"numSms", 132}}}},
                     {"traceEvents", events}};
    if (!withDevice)
        root.remove("deviceProperties");
    const std::string path = dir.path().toStdString() + "/mm_" + dtype + std::to_string(int64_t(kernelUs)) + (withDevice ? "" : "_nodevice")
        + ".json";
    QFile f(QString::fromStdString(path));
    f.open(QIODevice::WriteOnly);
    f.write(QJsonDocument(root).toJson());
    return path;
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
        QCOMPARE(triton->cls, roofline::RooflineClass::TensorCoreBound);
        QCOMPARE(triton->strength, std::string("strong"));
        QCOMPARE(triton->roof, std::string("bf16")); // assumed: faster than any FP32 CUDA-core rate
        QVERIFY(std::abs(triton->achievedFlopsPerS - 664e12) < 1e12);
        const auto* cublas = find(r.kernels, "nvjet_sm90");
        QCOMPARE(cublas->cls, roofline::RooflineClass::TensorCoreBound);
        QCOMPARE(cublas->evidenceLevel, std::string("B"));
        QVERIFY(mentions(*cublas, "at the roof"));
        QVERIFY(mentions(*cublas, "name hint 'nvjet'"));
        // FLOPs from the launching op equal torch's flops column for aten::mm.
        QCOMPARE(*cublas->flops, 20.0 * 137438953472.0);
        QCOMPARE(find(r.regions, "custom_kernel")->cls, roofline::RooflineClass::TensorCoreBound);
        QCOMPARE(find(r.regions, "torch_ref")->cls, roofline::RooflineClass::TensorCoreBound);
    }

    void measuredCeilingsRaisePercentages()
    {
        roofline::ClassifyOptions options;
        options.measured = roofline::loadMeasuredCeilings(testutil::dataPath("h200/calibration/calibration.json"));
        const auto r = roofline::classify(*trace::loadTrace(testutil::workloadTrace("gemm_compare")), options);
        const auto* cublas = find(r.kernels, "nvjet_sm90");
        QVERIFY(mentions(*cublas, "103.3% of the bf16 roof 775.14 TFLOP/s (measured)")); // not clamped at 100%
        QVERIFY(!find(r.kernels, "matmul_kernel")->flops);                               // no annotation: no work, no verdict
        QCOMPARE(find(r.kernels, "matmul_kernel")->cls, roofline::RooflineClass::Inconclusive);
    }

    // Ceilings measured on an H200 grade nothing of an A100 trace: its datasheet's are used and it is said.
    void measuredCeilingsOfAnotherGpuAreNotUsed()
    {
        roofline::ClassifyOptions options;
        options.measured = roofline::loadMeasuredCeilings(testutil::dataPath("h200/calibration/calibration.json"));
        const auto path = testutil::dataPath("external/hta/critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz");
        const auto withMeasured = roofline::classify(*trace::loadTrace(path), options);
        const auto datasheet = roofline::classify(*trace::loadTrace(path), {});
        QVERIFY(!withMeasured.measured);
        QCOMPARE(withMeasured.ceilings.bf16, datasheet.ceilings.bf16);
        QCOMPARE(withMeasured.ceilings.memoryBytesPerS, datasheet.ceilings.memoryBytesPerS);
        QVERIFY(std::find(withMeasured.notes.begin(), withMeasured.notes.end(),
                          "measured ceilings not used: they were measured on NVIDIA H200 and this trace ran on NVIDIA A100-PG509-200; the"
                          " datasheet's are used instead")
                != withMeasured.notes.end());
        QCOMPARE(withMeasured.kernels.size(), datasheet.kernels.size());
        for (size_t k = 0; k < datasheet.kernels.size(); ++k)
            QCOMPARE(withMeasured.kernels[k].cls, datasheet.kernels[k].cls);
        // The names are compared without case and surrounding spaces; an unnamed side cannot tell, and takes them.
        roofline::MeasuredCeilings m;
        m.gpu = " nvidia h200";
        QVERIFY(!roofline::measuredOnAnotherGpu(m, "NVIDIA H200 "));
        QVERIFY(roofline::measuredOnAnotherGpu(m, "NVIDIA H100 80GB HBM3"));
        QVERIFY(!roofline::measuredOnAnotherGpu(m, ""));
        m.gpu.clear();
        QVERIFY(!roofline::measuredOnAnotherGpu(m, "NVIDIA H200"));
    }

    // A trace without deviceProperties is graded against the GPU a user chooses for it, as if the trace had named
    // it; a choice the trace's own GPU contradicts, or one no row fits, is refused.
    void chosenGpuGradesATraceWithoutDevice()
    {
        QTemporaryDir dir;
        const auto named = trace::loadTrace(mmRegionTrace(dir, "c10::BFloat16", 4096, 200));
        const auto unnamed = trace::loadTrace(mmRegionTrace(dir, "c10::BFloat16", 4096, 200, false));
        const auto reference = roofline::classify(*named, {});
        QCOMPARE(find(reference.kernels, "gemm_kernel")->cls, roofline::RooflineClass::TensorCoreBound);

        const auto ungraded = roofline::classify(*unnamed, {});
        QVERIFY(ungraded.deviceRow.empty());
        QCOMPARE(ungraded.ceilings.bf16, 0.0);
        QVERIFY(ungraded.notes.back().find("choose its GPU (--gpu, or Ceilings > GPU in the app)") != std::string::npos);
        QVERIFY(find(ungraded.kernels, "gemm_kernel")->cls != roofline::RooflineClass::TensorCoreBound);
        QVERIFY(mentions(*find(ungraded.kernels, "gemm_kernel"), "no roofs: the trace names no GPU the datasheet table knows"));

        roofline::ClassifyOptions options;
        options.gpu = "NVIDIA H200";
        const auto chosen = roofline::classify(*unnamed, options);
        QCOMPARE(chosen.deviceRow, std::string("H200 SXM"));
        QCOMPARE(chosen.chosenGpu, std::string("NVIDIA H200"));
        QCOMPARE(chosen.ceilings.bf16, reference.ceilings.bf16);
        QCOMPARE(chosen.notes.back(),
                 std::string("the trace has no deviceProperties; the GPU chosen for it: the H200 SXM datasheet row (from 'NVIDIA H200')"));
        QCOMPARE(chosen.kernels.size(), reference.kernels.size());
        for (size_t k = 0; k < chosen.kernels.size(); ++k) {
            QCOMPARE(chosen.kernels[k].cls, reference.kernels[k].cls);
            QCOMPARE(chosen.kernels[k].strength, reference.kernels[k].strength);
            QCOMPARE(chosen.kernels[k].evidence, reference.kernels[k].evidence);
        }
        auto deviceJson = [](const roofline::ClassifyReport& r) {
            return QJsonDocument::fromJson(QByteArray::fromStdString(report::classifyJson(r))).object().value("device").toObject();
        };
        QCOMPARE(deviceJson(chosen).value("chosen_gpu").toString(), QStringLiteral("NVIDIA H200"));
        QVERIFY(deviceJson(reference).value("chosen_gpu").isNull());

        // The trace's own GPU wins over a choice that names the same row, and refuses another.
        options.gpu = "h200 sxm";
        QVERIFY(roofline::classify(*named, options).chosenGpu.empty());
        options.gpu = "A100 SXM4 40GB";
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, roofline::classify(*named, options));
        options.gpu = "MI300X";
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, roofline::classify(*unnamed, options));

        // A choice the kernels outrun is doubted: 687 TFLOP/s of BF16 on an A100's 312.
        options.gpu = "A100 SXM4 80GB";
        const auto outrun = roofline::classify(*unnamed, options);
        QCOMPARE(outrun.notes.back(),
                 std::string("1 kernel runs well above the chosen GPU's peaks (gemm_kernel_128x128 at 220% of its bf16 roof): "
                             "did the trace run on the A100 SXM4 80GB?"));
        QCOMPARE(roofline::deviceText(outrun), std::string("(none), graded as the A100 SXM4 80GB (chosen)"));
        QCOMPARE(roofline::deviceText(reference), std::string("NVIDIA H200"));

        // Measured ceilings go with the chosen GPU only when they were measured on its row.
        options.gpu = "A100 SXM4 40GB";
        options.measured = roofline::loadMeasuredCeilings(testutil::dataPath("h200/calibration/calibration.json"));
        const auto otherMeasured = roofline::classify(*unnamed, options);
        QVERIFY(!otherMeasured.measured);
        QVERIFY(
            std::find(otherMeasured.notes.begin(), otherMeasured.notes.end(),
                      "measured ceilings not used: they were measured on NVIDIA H200 and this trace ran on the A100 SXM4 40GB (chosen); "
                      "the datasheet's are used instead")
            != otherMeasured.notes.end());
        options.gpu = "H200";
        QVERIFY(roofline::classify(*unnamed, options).measured);
    }

    void launchBoundIsLatencyBound()
    {
        const auto r = roofline::classify(*trace::loadTrace(testutil::workloadTrace("launch_bound")), {});
        QVERIFY(meta("launch_bound").value("expected").toObject().value("pipeline").toString().contains(QStringLiteral("launch")));
        for (const auto& k : r.kernels) {
            QCOMPARE(k.cls, roofline::RooflineClass::LatencyBound);
            QCOMPARE(k.strength, std::string("provisional"));
        }
        QCOMPARE(r.kernels.size(), size_t(2));
        QCOMPARE(find(r.regions, "many_small_kernels")->cls, roofline::RooflineClass::LatencyBound);
        QVERIFY(mentions(*find(r.regions, "many_small_kernels"), "GPU busy 3.3% of its span"));
        // Its reason is the idle span, not its kernels' launch overhead, tails or grid; a kernel keeps those.
        QVERIFY(mentions(*find(r.regions, "many_small_kernels"), "the GPU is idle 96.7% of the span, between its activities"));
        QVERIFY(!mentions(*find(r.regions, "many_small_kernels"), "small grid"));
        QVERIFY(mentions(r.kernels.front(), "launch overhead, tails or a small grid dominate"));
    }

    void streamsOverlapCopiesAndElementwise()
    {
        const auto r = roofline::classify(*trace::loadTrace(testutil::workloadTrace("streams_overlap")), {});
        const auto* h2d = find(r.kernels, "Memcpy HtoD");
        QCOMPARE(h2d->cls, roofline::RooflineClass::IoBound);
        QCOMPARE(h2d->strength, std::string("strong"));
        QVERIFY(mentions(*h2d, "host link"));
        const auto* mul = find(r.kernels, "void at::native::vectorized_elementwise_kernel");
        QCOMPARE(mul->cls, roofline::RooflineClass::IoBound);
        QVERIFY(mentions(*mul, "at the roof"));
        QCOMPARE(find(r.kernels, "nvjet_sm90")->cls, roofline::RooflineClass::TensorCoreBound);
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
        QCOMPARE(k->cls, roofline::RooflineClass::Inconclusive);
        QVERIFY(mentions(*k, "cache-resident"));
    }

    // Traces made on the H200 for each class (tools/gpu/make_class_traces.py).
    void oneTracePerClass_data()
    {
        QTest::addColumn<QString>("trace");
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("cls");
        QTest::addColumn<QString>("strength");
        QTest::newRow("fp32 matmul, TF32 off") << "fp32_mm"
                                               << "sm80_xmma_gemm_f32f32"
                                               << "cuda-core-bound"
                                               << "strong";
        QTest::newRow("bf16 matmul") << "bf16_mm"
                                     << "nvjet_sm90"
                                     << "tensor-core-bound"
                                     << "strong";
        QTest::newRow("1 GiB elementwise") << "elementwise"
                                           << "void at::native::vectorized_elementwise_kernel"
                                           << "io-bound"
                                           << "strong";
        QTest::newRow("tiny kernels") << "tiny"
                                      << "void at::native::vectorized_elementwise_kernel"
                                      << "latency-bound"
                                      << "provisional";
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
        QCOMPARE(k->cls, roofline::parseClassName(cls.toStdString()).value());
        QCOMPARE(QString::fromStdString(k->strength), strength);
        const auto* region = find(r.regions, trace.toStdString());
        QVERIFY(region);
        QCOMPARE(region->cls, roofline::parseClassName(cls.toStdString()).value());
    }

    // A region's precision comes from its ops when its work comes from a region entry without a roof: the fp16 GEMM
    // region uses the FP16 roof, fast (no "BF16 roof assumed") or slow (not graded against FP32).
    void regionEntryTakesItsOpsPrecision_data()
    {
        QTest::addColumn<double>("kernelUs");
        QTest::newRow("fast: above the FP32 peak") << 200.0;
        QTest::newRow("slow: below the FP32 peak") << 20000.0;
    }
    void regionEntryTakesItsOpsPrecision()
    {
        QFETCH(double, kernelUs);
        QTemporaryDir dir;
        const int64_t n = 4096;
        const auto t = trace::loadTrace(mmRegionTrace(dir, "c10::Half", n, kernelUs));
        roofline::Annotation entry;
        entry.region = "gemm_region";
        entry.flops = 2.0 * n * n * n;
        entry.bytes = 3.0 * n * n * 2;
        roofline::ClassifyOptions options;
        options.annotations = {entry};
        const auto r = roofline::classify(*t, options);
        QCOMPARE(find(r.kernels, "gemm_kernel")->roof, std::string("fp16")); // its row knows the dtype
        const auto* region = find(r.regions, "gemm_region");
        QVERIFY(region);
        QCOMPARE(region->evidenceLevel, std::string("C"));
        QCOMPARE(region->roof, std::string("fp16"));
        QVERIFY(!mentions(*region, "assumed"));
        QVERIFY(mentions(*region, "fp16 roof comes from the region's kernels"));
        // Without the entry the work comes from the op, on the same roof.
        QCOMPARE(find(roofline::classify(*t, {}).regions, "gemm_region")->roof, std::string("fp16"));
    }

    // NCCL kernels are communication, with NCCL's algorithm and bus bandwidths from the recorded message
    // (tests/data/nccl, cut from HTA's samples). The expected numbers are computed here from the fixture's JSON.
    void ncclKernelsAreCommunication()
    {
        const std::string path = testutil::dataPath("nccl/nccl_allreduce_broadcast.json");
        const QJsonArray events = testutil::readJsonObject(path).value("traceEvents").toArray();
        auto argsWithMessage = [&](const QJsonObject& kernel) {
            if (kernel.value("args").toObject().contains("In msg nelems"))
                return kernel.value("args").toObject();
            for (const auto& e : events) // the record_param_comms op with the kernel's External id
                if (e.toObject().value("cat") == QLatin1String("cpu_op")
                    && e.toObject().value("args").toObject().value("External id") == kernel.value("args").toObject().value("External id"))
                    return e.toObject().value("args").toObject();
            return QJsonObject();
        };
        const auto r = roofline::classify(*trace::loadTrace(path), {});
        int checked = 0;
        for (const auto& value : events) {
            const QJsonObject kernel = value.toObject();
            if (kernel.value("cat") != QLatin1String("kernel"))
                continue;
            const QJsonObject args = argsWithMessage(kernel);
            QVERIFY(!args.isEmpty());
            QCOMPARE(args.value("dtype").toString(), QStringLiteral("Float"));
            const double bytes = std::max(args.value("In msg nelems").toDouble(), args.value("Out msg nelems").toDouble()) * 4;
            const double n = args.value("Group size").toDouble();
            const QString collective = args.value("Collective name").toString();
            const double factor = collective == QLatin1String("allreduce") ? 2 * (n - 1) / n : 1.0; // allreduce, broadcast
            const double seconds = kernel.value("dur").toDouble() / 1e6;
            const auto* c = find(r.kernels, kernel.value("name").toString().toStdString());
            QVERIFY(c);
            QCOMPARE(c->cls, roofline::RooflineClass::Communication);
            QVERIFY(c->bytes);
            QCOMPARE(*c->bytes, bytes);
            QVERIFY(std::abs(c->achievedBytesPerS - bytes / seconds) < 1e-6 * bytes / seconds);
            QVERIFY(c->busBytesPerS);
            QVERIFY(std::abs(*c->busBytesPerS - factor * bytes / seconds) < 1e-6 * bytes / seconds);
            QVERIFY(!mentions(*c, "FLOP"));
            ++checked;
        }
        QCOMPARE(checked, 2); // the allreduce (args on the kernel) and the broadcast (args on its op only)
        const auto* region = find(r.regions, "nccl:all_reduce");
        QVERIFY(region);
        QCOMPARE(region->cls, roofline::RooflineClass::Communication);
        QVERIFY(region->busBytesPerS);
        const std::string json = report::classifyJson(r);
        QVERIFY(json.find("\"bus_bytes_per_s\"") != std::string::npos);
        QVERIFY(report::classifyText(r).find("communication") != std::string::npos);
    }

    void ncclBusBandwidthFollowsTheGroupSize()
    {
        // The same allreduce over 8 ranks: bus = algorithm bandwidth x 2(n-1)/n = 1.75.
        QTemporaryDir dir;
        QJsonObject root = testutil::readJsonObject(testutil::dataPath("nccl/nccl_allreduce_broadcast.json"));
        QJsonArray events = root.value("traceEvents").toArray();
        for (auto&& value : events) {
            QJsonObject e = value.toObject();
            QJsonObject args = e.value("args").toObject();
            if (args.contains("Group size"))
                args.insert("Group size", 8);
            e.insert("args", args);
            value = e;
        }
        root.insert("traceEvents", events);
        const QString path = dir.filePath(QStringLiteral("eight.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(root).toJson());
        f.close();
        const auto r = roofline::classify(*trace::loadTrace(path.toStdString()), {});
        const auto* allreduce = find(r.kernels, "ncclKernel_AllReduce");
        QVERIFY(allreduce && allreduce->busBytesPerS);
        QVERIFY(std::abs(*allreduce->busBytesPerS / allreduce->achievedBytesPerS - 1.75) < 1e-9);
        const auto* broadcast = find(r.kernels, "ncclKernel_Broadcast");
        QVERIFY(std::abs(*broadcast->busBytesPerS / broadcast->achievedBytesPerS - 1.0) < 1e-9);
    }

    void ncclKernelWithoutMessageSize()
    {
        const auto r = roofline::classify(*trace::loadTrace(testutil::dataPath("nccl/nccl_sendrecv_no_size.json")), {});
        QCOMPARE(r.kernels.size(), size_t(1));
        const auto& c = r.kernels[0];
        QCOMPARE(c.cls, roofline::RooflineClass::Communication);
        QCOMPARE(c.calls, uint64_t(2));
        QVERIFY(!c.bytes);
        QVERIFY(!c.busBytesPerS);
        QVERIFY(mentions(c, "message size not recorded"));
        QVERIFY(!mentions(c, "give FLOPs"));
    }

    // What a user reads (the CLI table, the evidence) cites no document sections and no evidence levels.
    // The loader keeps what the roofline needs (op inputs, strides, Concrete Inputs, Sequence number, transfer
    // bytes, NCCL messages) structured: dropping the raw args changes no verdict, figure or evidence line.
    void leanLoadClassifiesLikeRawArgs_data()
    {
        QTest::addColumn<QString>("path");
        for (const char* w : testutil::h200Workloads)
            QTest::newRow(w) << QString::fromStdString(testutil::workloadTrace(w));
        QTest::newRow("resnet50 (convolution backward)")
            << QString::fromStdString(testutil::dataPath("external/tb_plugin/resnet50_v100_worker0.pt.trace.json.gz"));
        QTest::newRow("nccl") << QString::fromStdString(testutil::dataPath("nccl/nccl_allreduce_broadcast.json"));
    }
    void leanLoadClassifiesLikeRawArgs()
    {
        QFETCH(QString, path);
        trace::LoadOptions lean;
        lean.keepRawArgs = false;
        const auto withArgs = trace::loadTrace(path.toStdString());
        const auto without = trace::loadTrace(path.toStdString(), lean);
        QVERIFY(without->args.empty());
        const std::string expected = report::classifyJson(roofline::classify(*withArgs, {}));
        QCOMPARE(report::classifyJson(roofline::classify(*without, {})), expected);
    }

    void classNamesRoundTrip()
    {
        using roofline::RooflineClass;
        for (const RooflineClass c : {RooflineClass::IoBound, RooflineClass::CudaCoreBound, RooflineClass::TensorCoreBound,
                                      RooflineClass::LatencyBound, RooflineClass::Communication, RooflineClass::Inconclusive})
            QCOMPARE(roofline::parseClassName(roofline::className(c)), std::optional<RooflineClass>(c));
        QCOMPARE(roofline::className(RooflineClass::TensorCoreBound), std::string_view("tensor-core-bound"));
        QVERIFY(!roofline::parseClassName("tensor-core bound"));
        QVERIFY(!roofline::parseClassName(""));
    }

    // One verdict, two media: the CLI's text and the card's HTML carry the same lines, the HTML escaped.
    void verdictTextAndHtmlFromOneRenderer()
    {
        roofline::Classification c;
        c.name = "gemm<float, 128>&";
        c.cls = roofline::RooflineClass::TensorCoreBound;
        c.strength = "strong";
        c.calls = 3;
        c.totalUs = 1500;
        c.evidenceLevel = "B";
        c.evidence = {"arithmetic intensity 12 < ridge", "at the roof"};
        c.kernels.push_back({"inner<T>", 2, 1000, 0.75});
        const report::Verdict v = report::verdictOf(c);
        const std::string text = report::toText(v);
        QVERIFY2(text.starts_with("  gemm<float, 128>&  [3 calls, "), text.c_str());
        QVERIFY2(
            text.find(
                "]  tensor-core-bound (strong; work estimated from the trace)\n      arithmetic intensity 12 < ridge\n      at the roof\n")
                != std::string::npos,
            text.c_str());
        QVERIFY2(text.find("  75.0%  inner<T>\n") != std::string::npos, text.c_str());
        const std::string html = report::toHtml(v);
        QVERIFY2(html.starts_with("<b style='color:#28a046'>tensor-core-bound</b> (strong) - gemm&lt;float, 128&gt;&amp;<br>3 calls, "),
                 html.c_str());
        QVERIFY(html.find("<li>arithmetic intensity 12 &lt; ridge</li><li>at the roof</li>") != std::string::npos);
        QVERIFY(html.find("inner&lt;T&gt;") != std::string::npos);
        QVERIFY(html.find('<' + std::string("float")) == std::string::npos);
        QCOMPARE(report::htmlEscaped(R"(a<b & "c">)"), std::string("a&lt;b &amp; &quot;c&quot;&gt;"));
        QVERIFY(html.find("Full name") == std::string::npos); // a short name is shown whole once
        // A long demangled signature is shortened in the card's headline and bullets, and given whole at its end.
        c.name = "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
                 "unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned "
                 "int, float, 4, 4>)";
        c.evidence = {c.name + " moves 3 bytes per FLOP"};
        const std::string longHtml = report::toHtml(report::verdictOf(c));
        const std::string headline = longHtml.substr(0, longHtml.find("<br>"));
        QVERIFY2(headline.find("reduce_kernel") != std::string::npos && headline.size() < 200, headline.c_str());
        QVERIFY2(longHtml.find("<li>" + report::htmlEscaped(c.name)) == std::string::npos, longHtml.c_str());
        QVERIFY2(longHtml.ends_with("Full name: " + report::htmlEscaped(c.name) + "</p>"), longHtml.c_str());
        // A region's kernels shortened in its list are named whole too.
        c.kernels.push_back({c.name + " ", 1, 10, 0.1});
        const std::string regionHtml = report::toHtml(report::verdictOf(c));
        QVERIFY2(
            regionHtml.ends_with("Full names:<br>" + report::htmlEscaped(c.name) + "<br>" + report::htmlEscaped(c.name + " ") + "</p>"),
            regionHtml.c_str());
    }

    void humanTextCitesNoDocument()
    {
        const auto r = roofline::classify(*trace::loadTrace(testutil::workloadTrace("train_scheduled")), {});
        const std::string text = report::classifyText(r);
        QVERIFY(text.find("inconclusive") != std::string::npos); // the backward kernels have no estimate
        QVERIFY(text.find("no FLOP/byte estimate") != std::string::npos);
        QVERIFY(text.find("Annotations...") != std::string::npos);
        for (const char* banned : {"\xc2\xa7", "roofline.md", "level D", "work level"})
            QVERIFY2(text.find(banned) == std::string::npos, banned);
    }

    void annotationFiles()
    {
        QTemporaryDir dir;
        auto write = [&](const char* name, const char* text) {
            const std::string path = dir.path().toStdString() + "/" + name;
            std::ofstream(path) << text;
            return path;
        };
        const auto ok = roofline::loadAnnotations(
            write("ok.json",
                  "{\"annotations\": [{\"region\": \"tilelang_kernel\", \"flops\": 1e9, \"bytes\": 2e6},\n"
                  "            {\"kernel\": \"re:^main_kernel\", \"flops\": 5, \"roof\": \"fp16\"}]}"));
        QCOMPARE(ok.size(), size_t(2));
        QCOMPARE(ok[1].roof, std::string("fp16"));
        for (const auto& [name, text, problem] :
             {std::tuple{"a.json", "{}", "'annotations' array"},
              {"b.json", "{\"annotations\": [{\"flops\": 1}]}", "exactly one of"},
              {"c.json", "{\"annotations\": [{\"kernel\": \"k\"}]}", "neither 'flops' nor 'bytes'"},
              {"d.json", "{\"annotations\": [{\"kernel\": \"re:([\", \"flops\": 1}]}", "bad regular expression"},
              {"e.json", "{\"annotations\": [{\"kernel\": \"k\", \"flops\": \"lots\"}]}",
               "'flops' must be a number (FLOPs or bytes per call), got a string"},
              {"f.json", "{\"annotations\": [{\"kernel\": \"k\", \"flops\": 1, \"bytes\": [2]}]}", "'bytes' must be a number"}}) {
            try {
                roofline::loadAnnotations(write(name, text));
                QFAIL("no error");
            } catch (const io::TraceFileError& e) {
                QVERIFY2(std::string(e.what()).find(problem) != std::string::npos, e.what());
            }
        }
    }

    // An annotation naming no kernel or region of the trace (a typo) is said, not silently ignored; those that
    // match, by name, pattern or region, are not listed.
    void unmatchedAnnotationsAreSaid()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        roofline::ClassifyOptions options;
        roofline::Annotation typo, pattern, region, missingRegion;
        typo.kernel = "matmul_kernal";
        typo.flops = 1e9;
        pattern.kernel = "re:^matmul_";
        pattern.flops = 1e9;
        region.region = "custom_kernel";
        region.flops = 1e9;
        missingRegion.region = "custom_kernels";
        missingRegion.bytes = 1e6;
        options.annotations = {typo, pattern, region, missingRegion};
        const roofline::ClassifyReport r = roofline::classify(*t, options);
        QCOMPARE(r.unmatchedAnnotations.size(), size_t(2));
        QVERIFY2(r.unmatchedAnnotations[0].find("annotation 0 (kernel 'matmul_kernal') names no kernel") == 0,
                 r.unmatchedAnnotations[0].c_str());
        QVERIFY2(r.unmatchedAnnotations[1].find("annotation 3 (region 'custom_kernels') names no region") == 0,
                 r.unmatchedAnnotations[1].c_str());
        QVERIFY(roofline::classify(*t, {}).unmatchedAnnotations.empty());
    }
};

QTEST_APPLESS_MAIN(TestClassify)
#include "tst_classify.moc"
