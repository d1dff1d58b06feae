// SPDX-License-Identifier: MIT
// compare (issue #12): two regions or two kernels of one trace. The per-call figures are checked against a
// direct walk over the loaded events (and, on gemm_compare, the raw file), not against compare's own code.
#include "testutil.h"

#include "compare/compare.h"
#include "io/bytesource.h"
#include "io/smalljson.h"
#include "report/comparereport.h"
#include "roofline/classify.h"
#include "stats/torchtable.h"
#include "trace/traceloader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

using namespace tilescope;

namespace {

const char* const kNvjet = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT";

std::string sessionTrace() { return testutil::dataPath("memory/h200_session/trace.pt.trace.json.gz"); }

// GPU ns per call, straight from the events: every span named `label`, the activities on its track that lie
// inside it, summed per External id.
std::vector<int64_t> directRegionCalls(const trace::Trace& t, const std::string& label)
{
    std::map<int64_t, int64_t> perCall;
    for (const trace::Event& span : t.events) {
        if (span.kind != trace::EventKind::GpuUserAnnotation || t.strings.view(span.name) != label)
            continue;
        int64_t& ns = perCall[span.externalId];
        for (const trace::Event& e : t.events)
            if (trace::isGpuActivity(e.kind) && e.track == span.track && e.start >= span.start && e.end() <= span.end())
                ns += e.duration;
    }
    std::vector<int64_t> out;
    for (const auto& [id, ns] : perCall)
        out.push_back(ns);
    return out;
}

std::vector<int64_t> directKernelCalls(const trace::Trace& t, const std::string& name)
{
    std::vector<int64_t> out;
    for (const trace::Event& e : t.events)
        if (trace::isGpuActivity(e.kind) && t.strings.view(e.name) == name)
            out.push_back(e.duration);
    return out;
}

// Mean, median, min, max in us of a list of ns, computed here.
std::array<double, 4> stats4(std::vector<int64_t> ns)
{
    std::sort(ns.begin(), ns.end());
    double sum = 0;
    for (const int64_t v : ns)
        sum += double(v);
    const size_t n = ns.size();
    const double median = n % 2 ? double(ns[n / 2]) : 0.5 * (double(ns[n / 2 - 1]) + double(ns[n / 2]));
    return {sum / double(n) / 1000, median / 1000, double(ns.front()) / 1000, double(ns.back()) / 1000};
}

bool near(double x, double y) { return std::abs(x - y) <= 1e-9 * std::max(1.0, std::abs(y)); }

void checkSide(const compare::Side& side, const std::vector<int64_t>& direct)
{
    QCOMPARE(side.calls, uint64_t(direct.size()));
    QCOMPARE(side.callList.size(), direct.size());
    const auto [mean, median, min, max] = stats4(direct);
    QVERIFY2(near(side.gpuUsPerCall.mean, mean), qPrintable(QString::number(side.gpuUsPerCall.mean) + " vs " + QString::number(mean)));
    QVERIFY(near(side.gpuUsPerCall.median, median));
    QVERIFY(near(side.gpuUsPerCall.min, min));
    QVERIFY(near(side.gpuUsPerCall.max, max));
    QVERIFY(near(side.totalGpuUs, mean * double(direct.size())));
    for (size_t i = 1; i < side.callList.size(); ++i)
        QVERIFY(side.callList[i - 1].startNs <= side.callList[i].startNs);
    for (const compare::Call& c : side.callList)
        QVERIFY(c.startNs <= c.endNs && c.gpuNs <= c.endNs - c.startNs);
}

const roofline::Classification* classificationOf(const std::vector<roofline::Classification>& list, const std::string& name)
{
    for (const auto& c : list)
        if (c.name == name)
            return &c;
    return nullptr;
}

template <class F> QString errorOf(F&& f)
{
    try {
        f();
    } catch (const compare::CompareError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

testutil::ProcessRun cli(const QStringList& arguments) { return testutil::runProcess(QStringLiteral(TILESCOPE_CLI), arguments); }

} // namespace

class TestCompare : public QObject
{
    Q_OBJECT
private slots:
    // The shared gemm_compare trace: custom_kernel (a Triton GEMM) against torch_ref (torch.mm), 20 calls each.
    void gemmCompareDefaultPair()
    {
        const std::string path = testutil::workloadTrace("gemm_compare");
        const auto t = trace::loadTrace(path);
        const auto report = roofline::classify(*t, {});
        QCOMPARE(compare::defaultPair(*t), (std::pair<std::string, std::string>{"custom_kernel", "torch_ref"}));
        const compare::Comparison c = compare::compareSides(*t, report);
        QCOMPARE(c.a.name, std::string("custom_kernel"));
        QCOMPARE(c.b.name, std::string("torch_ref"));
        QVERIFY(c.a.kind == compare::SideKind::Region && c.b.kind == compare::SideKind::Region);
        const auto directA = directRegionCalls(*t, "custom_kernel"), directB = directRegionCalls(*t, "torch_ref");
        QCOMPARE(directA.size(), size_t(20));
        checkSide(c.a, directA);
        checkSide(c.b, directB);
        QCOMPARE(c.a.calls, classificationOf(report.regions, "custom_kernel")->calls);
        // The span the achieved rates divide by is classify's region time, gaps included.
        QVERIFY(near(c.a.totalSpanUs, classificationOf(report.regions, "custom_kernel")->totalUs));
        QVERIFY(near(c.b.totalSpanUs, classificationOf(report.regions, "torch_ref")->totalUs));
        QVERIFY(c.b.totalSpanUs >= c.b.totalGpuUs);
        QVERIFY(c.ratioBOverA && near(*c.ratioBOverA, stats4(directB)[0] / stats4(directA)[0]));

        // Against the raw file: custom_kernel holds the 20 matmul_kernel launches and nothing else.
        auto source = io::openTraceFile(path);
        std::string text;
        char buffer[1 << 16];
        while (const size_t n = source->read(buffer, sizeof buffer))
            text.append(buffer, n);
        double matmulUs = 0;
        const io::Json raw = io::Json::parse(text);
        for (const io::Json& e : raw.at("traceEvents"))
            if (io::jsonText(e, "cat") == "kernel" && io::jsonText(e, "name") == "matmul_kernel")
                matmulUs += io::jsonDouble(io::jsonMember(e, "dur")).value_or(0);
        QVERIFY2(std::abs(c.a.totalGpuUs - matmulUs) < 1e-6, qPrintable(QString::number(c.a.totalGpuUs - matmulUs)));
        QCOMPARE(c.a.kernels.size(), size_t(1));
        QCOMPARE(c.a.kernels[0].name, std::string("matmul_kernel"));
        // torch_ref's kernels: the GEMM and a memset; their totals add up to the side's GPU time.
        double inside = 0;
        for (const auto& k : c.b.kernels)
            inside += k.totalUs;
        QVERIFY(std::abs(inside - c.b.totalGpuUs) < 1e-6);

        // The report's lines: the verdict first, every figure with both sides.
        const std::vector<std::string> lines = report::compareLines(c);
        QCOMPARE(lines.front(), c.verdict);
        QCOMPARE(lines[1], std::string("a: custom_kernel (region), b: torch_ref (region)"));
        QVERIFY(std::find(lines.begin(), lines.end(), "calls: 20 (a), 20 (b)") != lines.end());
        QCOMPARE(lines.back(), "ratio b/a (b's mean GPU time per call / a's): " + stats::formatFixed(*c.ratioBOverA, 3));

        // The Triton kernel has no FLOP estimate without annotations: inconclusive, no roof share.
        QVERIFY(c.a.classified && c.a.cls == roofline::RooflineClass::Inconclusive && !c.a.roofShare && !c.a.achievedFlopsPerS);
        const auto* ref = classificationOf(report.regions, "torch_ref");
        QCOMPARE(c.b.cls, ref->cls);
        QCOMPARE(c.b.strength, ref->strength);
        QCOMPARE(*c.b.achievedFlopsPerS, ref->achievedFlopsPerS);
        QCOMPARE(c.b.roof, ref->roof);
        QVERIFY(near(*c.b.roofShare, ref->achievedFlopsPerS / roofline::roofRate(report.ceilings, ref->roof)));
        const std::string slower = stats::formatFixed(stats4(directA)[0] / stats4(directB)[0], 2);
        QCOMPARE(c.verdict,
                 "custom_kernel is " + slower + "x slower than torch_ref; custom_kernel is inconclusive on the roofline, torch_ref "
                     + "tensor-core bound (" + stats::formatFixed(100 * *c.b.roofShare, 0) + "% of the BF16 roof)");
    }

    // With the FLOPs declared for custom_kernel both sides sit on the BF16 roof: the example sentence of the issue.
    void declaredWorkGivesBothRoofShares()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        const QJsonObject meta = testutil::readJsonObject(testutil::dataPath("h200/gemm_compare/meta.json"));
        roofline::Annotation a;
        a.region = "custom_kernel";
        a.flops = meta.value("flops_per_call").toDouble();
        a.bytes = meta.value("min_bytes_per_call").toDouble();
        a.roof = "bf16";
        roofline::ClassifyOptions options;
        options.annotations = {a};
        const auto report = roofline::classify(*t, options);
        const compare::Comparison c = compare::compareSides(*t, report, "custom_kernel", "torch_ref");
        QCOMPARE(c.a.cls, roofline::RooflineClass::TensorCoreBound);
        QCOMPARE(c.a.roof, std::string("bf16"));
        // The region's rate is its FLOPs over its spans' time (classify's definition), against the BF16 ceiling.
        const auto* custom = classificationOf(report.regions, "custom_kernel");
        QVERIFY(near(*c.a.roofShare, *a.flops * 20 / (custom->totalUs / 1e6) / report.ceilings.bf16));
        QVERIFY2(testutil::contains(c.verdict,
                                    "; both tensor-core bound, " + stats::formatFixed(100 * *c.a.roofShare, 0) + "% vs "
                                        + stats::formatFixed(100 * *c.b.roofShare, 0) + "% of the BF16 roof"),
                 c.verdict.c_str());
    }

    // Two kernels by name: a call is a launch.
    void kernelAgainstKernel()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        const auto report = roofline::classify(*t, {});
        const compare::Comparison c = compare::compareSides(*t, report, "matmul_kernel", kNvjet);
        QVERIFY(c.a.kind == compare::SideKind::Kernel && c.b.kind == compare::SideKind::Kernel);
        checkSide(c.a, directKernelCalls(*t, "matmul_kernel"));
        checkSide(c.b, directKernelCalls(*t, kNvjet));
        QVERIFY(c.a.kernels.empty());
        QVERIFY(near(*c.ratioBOverA, stats4(directKernelCalls(*t, kNvjet))[0] / stats4(directKernelCalls(*t, "matmul_kernel"))[0]));
        const auto* nvjet = classificationOf(report.kernels, kNvjet);
        QCOMPARE(c.b.cls, nvjet->cls);
        QCOMPARE(*c.b.achievedBytesPerS, nvjet->achievedBytesPerS);
        // A kernel against a region works too, and a kernel against itself is as fast as itself.
        const compare::Comparison mixed = compare::compareSides(*t, report, "matmul_kernel", "custom_kernel");
        QVERIFY(near(mixed.a.totalGpuUs, mixed.b.totalGpuUs));
        QVERIFY2(testutil::contains(mixed.verdict, "matmul_kernel is as fast as custom_kernel (within 2%)"), mixed.verdict.c_str());
        QVERIFY(!errorOf([&] { compare::compareSides(*t, report, kNvjet, kNvjet); }).isEmpty()); // not against itself
    }

    // Copies: a host<->device memcpy's roof is the host link, which the report has no ceiling for (no share);
    // a device-to-device copy's share is of the HBM ceiling.
    void copies()
    {
        const auto streams = trace::loadTrace(testutil::workloadTrace("streams_overlap"));
        const auto report = roofline::classify(*streams, {});
        const compare::Comparison host = compare::compareSides(*streams, report, "Memcpy HtoD (Pinned -> Device)",
                                                               "Memcpy DtoH (Device -> Pinned)");
        checkSide(host.a, directKernelCalls(*streams, "Memcpy HtoD (Pinned -> Device)"));
        QVERIFY(host.a.hostLink && host.b.hostLink);
        QCOMPARE(host.a.cls, roofline::RooflineClass::IoBound);
        QVERIFY(!host.a.roofShare && !host.b.roofShare);
        QVERIFY2(host.verdict.ends_with("; both io-bound"), host.verdict.c_str());

        const auto train = trace::loadTrace(testutil::workloadTrace("train_scheduled"));
        const auto trainReport = roofline::classify(*train, {});
        const compare::Side dtod = compare::measureSide(*train, trainReport, "Memcpy DtoD (Device -> Device)");
        checkSide(dtod, directKernelCalls(*train, "Memcpy DtoD (Device -> Device)"));
        QVERIFY(!dtod.hostLink);
        QCOMPARE(dtod.roof, std::string("memory"));
        const auto* c = classificationOf(trainReport.kernels, "Memcpy DtoD (Device -> Device)");
        QVERIFY(near(*dtod.roofShare, c->achievedBytesPerS / trainReport.ceilings.memoryBytesPerS));
    }

    // A recorded session: regions of many kernels (step_N) and a region called six times (the optimizer).
    void manyKernelRegions()
    {
        const auto t = trace::loadTrace(sessionTrace());
        const auto report = roofline::classify(*t, {});
        const compare::Comparison steps = compare::compareSides(*t, report, "step_0", "step_5");
        checkSide(steps.a, directRegionCalls(*t, "step_0"));
        checkSide(steps.b, directRegionCalls(*t, "step_5"));
        QVERIFY(steps.a.kernels.size() > 3);
        double inside = 0;
        for (const auto& k : steps.b.kernels)
            inside += k.totalUs;
        QVERIFY(std::abs(inside - steps.b.totalGpuUs) < 1e-6);
        const compare::Comparison adam = compare::compareSides(*t, report, "Optimizer.step#Adam.step", "step_1");
        checkSide(adam.a, directRegionCalls(*t, "Optimizer.step#Adam.step"));
        QCOMPARE(adam.a.calls, uint64_t(6));
        // No tilelang_kernel / custom_kernel / torch_ref here: no default pair, and the error lists the regions.
        const QString noPair = errorOf([&] { compare::compareSides(*t, report); });
        QVERIFY2(noPair.contains("no default pair") && noPair.contains("step_0") && noPair.contains("Optimizer.step#Adam.step"),
                 qPrintable(noPair));
        // ... and the kernels, the longest first, for a trace whose regions are no help.
        QVERIFY2(noPair.contains("; kernels: '" + QString::fromStdString(compare::candidates(*t).kernels.front()) + "'"),
                 qPrintable(noPair));
    }

    // A region that launched on two streams has a span on each with one External id: one call, its time the
    // envelope of the spans, in compare and classify alike; GPU time counts both streams' kernels.
    void regionOnTwoStreams()
    {
        std::string json = "{\"traceEvents\": [";
        const auto add = [&](const char* cat, const char* name, int tid, int ts, int dur, const std::string& args) {
            json += std::string(json.back() == '[' ? "" : ", ") + "{\"ph\": \"X\", \"cat\": \"" + cat + "\", \"name\": \"" + name
                + "\", \"pid\": 0, \"tid\": " + std::to_string(tid) + ", \"ts\": " + std::to_string(ts)
                + ", \"dur\": " + std::to_string(dur) + ", \"args\": {" + args + "}}";
        };
        add("gpu_user_annotation", "R", 7, 0, 100, "\"External id\": 5");
        add("gpu_user_annotation", "R", 20, 0, 100, "\"External id\": 5");
        add("kernel", "k", 7, 0, 100, "\"correlation\": 1");
        add("kernel", "k", 20, 0, 100, "\"correlation\": 2");
        json += "]}";
        auto source = io::memorySource(json, "two_streams.json");
        const auto t = trace::loadTrace(*source);
        const roofline::ClassifyReport report = roofline::classify(*t, {});
        const compare::Comparison c = compare::compareSides(*t, report, "R", "k");
        QCOMPARE(c.a.calls, uint64_t(1));
        QVERIFY(near(c.a.totalGpuUs, 200));
        QVERIFY(near(c.a.totalSpanUs, 100));
        const auto* region = classificationOf(report.regions, "R");
        QVERIFY(region);
        QCOMPARE(region->calls, uint64_t(1));
        QVERIFY(near(region->totalUs, 100));
    }

    void unknownNames()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        const auto report = roofline::classify(*t, {});
        const QString bad = errorOf([&] { compare::compareSides(*t, report, "tilelang_kernel", "torch_ref"); });
        QVERIFY2(bad.contains("no region or kernel named 'tilelang_kernel'") && bad.contains("regions: 'torch_ref', 'custom_kernel'")
                     && bad.contains("kernels: 'matmul_kernel', '" + QString::fromLatin1(kNvjet) + "'"),
                 qPrintable(bad));
        QVERIFY(!bad.contains('\n'));
        // A string interned for another event (a CPU op) is not a kernel.
        QVERIFY(!errorOf([&] { compare::measureSide(*t, report, "aten::mm"); }).isEmpty());
        QVERIFY(!errorOf([&] { compare::measureSide(*t, report, ""); }).isEmpty());
        // Only b given: a comes from the default pair; only a given: b is torch_ref.
        QCOMPARE(compare::compareSides(*t, report, {}, kNvjet).a.name, std::string("custom_kernel"));
        QCOMPARE(compare::compareSides(*t, report, "matmul_kernel").b.name, std::string("torch_ref"));
        // A side against itself is refused, the default b included ("torch_ref is as fast as torch_ref").
        const QString same = errorOf([&] { compare::compareSides(*t, report, "torch_ref"); });
        QVERIFY2(same.contains("a and b are the same, 'torch_ref'"), qPrintable(same));
        QVERIFY(!errorOf([&] { compare::compareSides(*t, report, "matmul_kernel", "matmul_kernel"); }).isEmpty());
        // Candidates: regions in first-seen order, kernels by GPU time.
        const compare::Candidates c = compare::candidates(*t);
        QCOMPARE(c.regions, (std::vector<std::string>{"torch_ref", "custom_kernel"}));
        QCOMPARE(c.kernels.front(), std::string("matmul_kernel"));
    }

    // The verdict's wording on hand-made sides: speed within 2%, faster, slower, classes that differ, unknown shares.
    void verdictWording()
    {
        compare::Side a, b;
        a.name = "tilelang_kernel";
        b.name = "torch_ref";
        a.classified = b.classified = true;
        a.cls = b.cls = roofline::RooflineClass::TensorCoreBound;
        a.roof = b.roof = "fp16";
        a.roofShare = 0.71;
        b.roofShare = 0.78;
        a.gpuUsPerCall.mean = 111;
        b.gpuUsPerCall.mean = 100;
        QCOMPARE(compare::verdictText(a, b),
                 std::string("tilelang_kernel is 1.11x slower than torch_ref; both tensor-core bound, 71% vs 78% of the FP16 roof"));
        b.gpuUsPerCall.mean = 222;
        QVERIFY(compare::verdictText(a, b).starts_with("tilelang_kernel is 2.00x faster than torch_ref;"));
        b.gpuUsPerCall.mean = 112;
        QVERIFY(compare::verdictText(a, b).starts_with("tilelang_kernel is as fast as torch_ref (within 2%);"));
        b.gpuUsPerCall.mean = 113.5; // 2.25% apart
        QVERIFY(compare::verdictText(a, b).starts_with("tilelang_kernel is 1.02x faster"));
        b.roofShare = 0.0449;
        QVERIFY(compare::verdictText(a, b).ends_with("; both tensor-core bound, 71% vs 4.5% of the FP16 roof"));
        b.roofShare = 0.0004;
        QVERIFY(compare::verdictText(a, b).ends_with("; both tensor-core bound, 71% vs <0.1% of the FP16 roof"));
        b.roofShare.reset();
        QVERIFY(compare::verdictText(a, b).ends_with("; both tensor-core bound, tilelang_kernel at 71% of the FP16 roof"));
        b.cls = roofline::RooflineClass::IoBound;
        b.roof = "memory";
        b.roofShare = 0.5;
        QVERIFY(compare::verdictText(a, b).ends_with(
            "; tilelang_kernel is tensor-core bound (71% of the FP16 roof), torch_ref io-bound (50% of the memory-bandwidth roof)"));
        a.roofShare.reset();
        b.roofShare.reset();
        b.classified = false;
        QVERIFY(compare::verdictText(a, b).ends_with("; tilelang_kernel is tensor-core bound, torch_ref not classified"));
        a.gpuUsPerCall.mean = 0;
        QVERIFY(compare::verdictText(a, b).starts_with("tilelang_kernel has no GPU activity inside its calls;"));
    }

    // The CLI: the issue's JSON keys (then the extras), the table, exit 2 on a bad name or format.
    void cliJsonAndErrors()
    {
        const QString path = QString::fromStdString(testutil::workloadTrace("gemm_compare"));
        const auto r = cli({"compare", path, "--format", "json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(doc.keys(), (QStringList{"a", "b", "ratio_b_over_a", "verdict"}));
        // Members in the issue's order, the extras after them.
        const QStringList sideKeys{"name",
                                   "calls",
                                   "gpu_us_per_call",
                                   "achieved_flops_per_s",
                                   "achieved_bytes_per_s",
                                   "class",
                                   "strength",
                                   "kind",
                                   "total_gpu_us",
                                   "total_span_us",
                                   "roof",
                                   "roof_share",
                                   "kernels",
                                   "call_ranges"};
        const io::Json ordered = io::parseSmallJson(r.out.toStdString(), "compare output");
        QStringList top;
        for (const auto& [key, value] : ordered.items())
            top << QString::fromStdString(key);
        QCOMPARE(top, (QStringList{"a", "b", "ratio_b_over_a", "verdict"}));
        const auto t = trace::loadTrace(path.toStdString());
        const compare::Comparison c = compare::compareSides(*t, roofline::classify(*t, {}));
        for (const char* side : {"a", "b"}) {
            QStringList keys;
            for (const auto& [key, value] : ordered.at(side).items())
                keys << QString::fromStdString(key);
            QCOMPARE(keys, sideKeys);
            const QJsonObject s = doc.value(side).toObject();
            QCOMPARE(s.value("gpu_us_per_call").toObject().keys(), (QStringList{"max", "mean", "median", "min"}));
            const compare::Side& expected = side == std::string("a") ? c.a : c.b;
            QCOMPARE(s.value("calls").toInt(), int(expected.calls));
            QVERIFY(near(s.value("gpu_us_per_call").toObject().value("median").toDouble(), expected.gpuUsPerCall.median));
            QCOMPARE(s.value("call_ranges").toArray().size(), 20);
        }
        QVERIFY(near(doc.value("ratio_b_over_a").toDouble(), *c.ratioBOverA));
        QCOMPARE(doc.value("verdict").toString().toStdString(), c.verdict);
        QVERIFY(doc.value("a").toObject().value("achieved_flops_per_s").isNull()); // unknown work: null, not 0

        const auto table = cli({"compare", path, "--a", "matmul_kernel", "--b", kNvjet});
        QCOMPARE(table.exitCode, 0);
        QVERIFY(table.out.contains("matmul_kernel (a)") && table.out.contains("ratio b/a"));
        const QJsonObject kernels
            = QJsonDocument::fromJson(cli({"compare", path, "--a", "matmul_kernel", "--b", kNvjet, "--format", "json"}).out).object();
        QVERIFY(table.out.trimmed().endsWith(kernels.value("verdict").toString().toUtf8()));
        QVERIFY(kernels.value("verdict").toString().contains(" tensor-core bound (81% of the BF16 roof)"));

        const auto bad = cli({"compare", path, "--b", "nope"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.out.isEmpty());
        QCOMPARE(bad.err.count('\n'), 1);
        QVERIFY2(bad.err.contains("no region or kernel named 'nope'") && bad.err.contains(path.toUtf8()), bad.err.constData());
        // A region the trace has on the CPU only (train_scheduled's optimizer_step, 3 spans, no gpu_user_annotation):
        // said as such, not as a name the trace lacks.
        const auto hostOnly = cli({"compare", QString::fromStdString(testutil::workloadTrace("train_scheduled")), "--a", "optimizer_step",
                                   "--b", "forward_pass"});
        QCOMPARE(hostOnly.exitCode, 2);
        QCOMPARE(hostOnly.err.count('\n'), 1);
        QVERIFY2(hostOnly.err.contains("'optimizer_step' is a record_function region on the CPU only (3 spans): the trace has no GPU-side "
                                       "span of it (gpu_user_annotation)"),
                 hostOnly.err.constData());
        // Cut in half and loaded in part, gemm_compare keeps its regions' CPU spans, not their GPU-side ones: the
        // refusals say the cut may be why.
        {
            QTemporaryDir cutDir;
            const QString cut = cutDir.filePath("cut.json");
            const std::string whole = testutil::readFile(testutil::workloadTrace("gemm_compare")); // plain JSON
            QFile out(cut);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(whole.data(), qint64(whole.size() / 2));
            out.close();
            for (const QStringList& args : {QStringList{"compare", cut, "--partial"},
                                            QStringList{"compare", cut, "--partial", "--a", "custom_kernel", "--b", "torch_ref"},
                                            QStringList{"compare", cut, "--partial", "--a", "matmul_kernel", "--b", "no_such_kernel"}}) {
                const auto r = cli(args);
                QCOMPARE(r.exitCode, 2);
                QVERIFY2(r.err.contains("the trace is cut off and loaded in part: its GPU-side spans and kernels may lie past the cut"),
                         r.err.constData());
            }
            QVERIFY(!hostOnly.err.contains("cut off"));
        }
        QCOMPARE(cli({"compare", path, "--format", "csv"}).exitCode, 2);
        QCOMPARE(cli({"compare", QString::fromStdString(sessionTrace())}).exitCode, 2);

        // TRACE.annotations.json beside the trace is read, as classify does.
        QTemporaryDir dir;
        const QString copy = dir.filePath("gemm.json");
        QVERIFY(QFile::copy(path, copy));
        QFile sidecar(copy + ".annotations.json");
        QVERIFY(sidecar.open(QIODevice::WriteOnly));
        sidecar.write(R"({"annotations": [{"region": "custom_kernel", "flops": 137438953472, "bytes": 100663296, "roof": "bf16"}]})");
        sidecar.close();
        const QJsonObject annotated = QJsonDocument::fromJson(cli({"compare", copy, "--format", "json"}).out).object();
        QCOMPARE(annotated.value("a").toObject().value("class").toString(), QStringLiteral("tensor-core-bound"));
        QVERIFY(annotated.value("verdict").toString().contains("both tensor-core bound"));
        // The same file named with --annotations (a trace in a folder one cannot write to): the same reading;
        // diagnose takes it too.
        const QString elsewhere = dir.filePath("notes.json");
        QVERIFY(QFile::rename(copy + ".annotations.json", elsewhere));
        QVERIFY(!QJsonDocument::fromJson(cli({"compare", copy, "--format", "json"}).out)
                     .object()
                     .value("verdict")
                     .toString()
                     .contains("both tensor-core bound"));
        const QJsonObject named
            = QJsonDocument::fromJson(cli({"compare", copy, "--format", "json", "--annotations", elsewhere}).out).object();
        QCOMPARE(named.value("verdict"), annotated.value("verdict"));
        const testutil::ProcessRun diagnosed = cli({"diagnose", copy, "--annotations", elsewhere});
        QCOMPARE(diagnosed.exitCode, 0);
        QCOMPARE(cli({"diagnose", copy, "--annotations", dir.filePath("missing.json")}).exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestCompare)
#include "tst_compare.moc"
