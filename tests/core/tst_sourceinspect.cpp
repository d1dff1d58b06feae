// SPDX-License-Identifier: MIT
// Generated TileLang sources (roofline.md §7.4-7.5): what the call sites show, and how they corroborate
// the roofline verdicts.
#include "testutil.h"

#include "io/tracefileerror.h"
#include "roofline/classify.h"
#include "roofline/cudalexer.h"
#include "roofline/sourceinspect.h"
#include "trace/traceloader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace tilescope;
using roofline::TensorCorePath;

namespace {

std::string fixture(const char* name) { return testutil::dataPath(std::string("tilelang/") + name); }

// The 1-based lines of the fixture that contain `token`, found by plain text search (not the inspector).
std::vector<int> linesWith(const std::string& path, std::string_view token)
{
    std::vector<int> out;
    std::istringstream in(testutil::readFile(path));
    int n = 0;
    for (std::string line; std::getline(in, line);)
        if (++n && line.find(token) != std::string::npos)
            out.push_back(n);
    return out;
}

uint64_t calls(const roofline::SourceSummary& s, std::string_view name) { return s.callSitesOf(name); }

const roofline::SourceFeature* feature(const roofline::SourceSummary& s, std::string_view name)
{
    for (const auto& f : s.features)
        if (f.name == name)
            return &f;
    return nullptr;
}

bool anyContains(const std::vector<std::string>& list, std::string_view text)
{
    return std::any_of(list.begin(), list.end(), [&](const std::string& s) { return s.find(text) != std::string::npos; });
}

const roofline::Classification* find(const std::vector<roofline::Classification>& list, std::string_view name)
{
    for (const auto& c : list)
        if (c.name == name)
            return &c;
    return nullptr;
}

// gemm_compare's Triton matmul_kernel (a custom kernel: level C) with the given work per call.
roofline::Annotation matmulAnnotation(double flops)
{
    roofline::Annotation a;
    a.kernel = "matmul_kernel";
    a.flops = flops;
    a.bytes = 100663296; // A, B and C of bf16 4096^3 once
    return a;
}

const char* kWgmmaName = "tl::wgmma_*";
const char* kTmaName = "TMA (tl::tma_*)";
const char* kCpAsyncName = "cp.async (tl::cp_async_*)";

} // namespace

class TestSourceInspect : public QObject
{
    Q_OBJECT
private slots:
    // The lexer under the inspector: what it blanks, what it keeps apart, and that offsets and lines survive.
    void lexerBlanksCommentsStringsAndDirectives()
    {
        const std::string text = "#include <tl_templates/gemm.h>\n"
                                 "// tl::wgmma_ss in a comment\n"
                                 "__global__ void k() { /* mma.sync */ const char* s = \"tl::tma_load\"; char c = '\"';\n"
                                 "  asm volatile(\"wgmma.mma_async.sync.aligned.m64n64k16 %0;\" : \"=r\"(x));\n"
                                 "  int n = 1'000; tl::gemm_ss<64, 64, (1 + 2), tl::foo<1, 2>, true>(a); }\n";
        const auto cleaned = roofline::cudalexer::clean(text);
        QCOMPARE(cleaned.code.size(), text.size());
        QCOMPARE(std::count(cleaned.code.begin(), cleaned.code.end(), '\n'), std::count(text.begin(), text.end(), '\n'));
        for (const char* gone : {"include", "wgmma_ss", "mma.sync", "tl::tma_load", "wgmma.mma_async"})
            QVERIFY2(cleaned.code.find(gone) == std::string::npos, gone);
        QVERIFY(cleaned.code.find("__global__ void k()") != std::string::npos);
        QVERIFY(cleaned.code.find("1'000") != std::string::npos); // a digit separator is not a character literal
        QCOMPARE(cleaned.includes.size(), size_t(1));
        QCOMPARE(cleaned.includes[0].second, std::string("tl_templates/gemm.h"));
        // The asm() template and its constraint strings are kept apart; no other string joins them.
        QCOMPARE(cleaned.asmTexts.size(), size_t(2));
        QVERIFY(cleaned.asmTexts[0].text.find("wgmma.mma_async") != std::string::npos);
        const roofline::cudalexer::LineIndex lines(text);
        QCOMPARE(lines.line(cleaned.asmTexts[0].pos), 4);
        QCOMPARE(lines.line(0), 1);
    }

    void lexerMatchesBracketsAndTemplateArguments()
    {
        using namespace roofline::cudalexer;
        const std::string code = "f(a, (b), c) + tl::gemm_ss<64, (1 + 2), tl::foo<1, 2>, true>(x); if (a < b) {}";
        QCOMPARE(matchClose(code, 1), code.find(" + "));
        const size_t angle = code.find('<');
        const size_t close = matchAngle(code, angle);
        QCOMPARE(code.substr(close, 3), std::string("(x)"));
        QCOMPARE(splitTemplateArguments(std::string_view(code).substr(angle + 1, close - angle - 2)),
                 (std::vector<std::string>{"64", "(1 + 2)", "tl::foo<1, 2>", "true"}));
        QCOMPARE(matchAngle(code, code.find("a < b") + 2), std::string::npos); // a comparison, not a template
        QCOMPARE(skipSpaces(code, code.find(' ')), code.find(' ') + 1);
    }

    void hopperWgmmaGemm()
    {
        const std::string path = fixture("hopper_wgmma_gemm.cu");
        const auto r = roofline::inspectGeneratedSourceFile(path);
        QCOMPARE(r.path, path);
        QCOMPARE(r.kernels.size(), size_t(1)); // the declaration before the definition is not a kernel
        QCOMPARE(r.kernels[0].name, std::string("main_kernel"));
        QCOMPARE(r.kernels[0].line, linesWith(path, "__launch_bounds__(256, 1) main_kernel")[0]);
        const auto& s = r.kernels[0].summary;
        QCOMPARE(s.tensorCore, TensorCorePath::Wgmma);
        QCOMPARE(s.mmaPrecision, std::string("fp16"));
        QCOMPARE(calls(s, kWgmmaName), uint64_t(1));
        QCOMPARE(feature(s, kWgmmaName)->lines, linesWith(path, "tl::wgmma_ss<"));
        QCOMPARE(calls(s, kTmaName),
                 uint64_t(linesWith(path, "tl::tma_load(").size() + linesWith(path, "tl::prefetch_tma_descriptor(").size()));
        // mbarrier[i].init x6, .wait x2, .expect_transaction, .arrive_and_expect_tx, .arrive
        QCOMPARE(calls(s, "mbarrier"), uint64_t(11));
        QCOMPARE(calls(s, "CUtensorMap parameter"), uint64_t(2));
        QCOMPARE(calls(s, kCpAsyncName), uint64_t(0));
        QCOMPARE(s.dataMovement, (std::vector<std::string>{"TMA", "mbarrier"}));
        QVERIFY(s.conclusion.find("Hopper WGMMA") != std::string::npos);
        QVERIFY(s.conclusion.find("warp-specialised") != std::string::npos);
        QVERIFY(!anyContains(r.caveats, "appears only"));
    }

    // Generated by TileLang 0.1.15 on the H200 for resources/examples/tilelang_gemm.py (tools/gpu/prove_sessions.sh).
    void realTileLangGemmFromTheH200()
    {
        const std::string path = fixture("h200_tilelang_0_1_15_gemm.cu");
        const auto r = roofline::inspectGeneratedSourceFile(path);
        QCOMPARE(r.kernels.size(), size_t(1));
        QCOMPARE(r.kernels[0].name, std::string("main_kernel"));
        const auto& s = r.kernels[0].summary;
        QCOMPARE(s.tensorCore, TensorCorePath::Wgmma);
        QCOMPARE(s.mmaPrecision, std::string("fp16"));
        QCOMPARE(feature(s, kWgmmaName)->lines, linesWith(path, "tl::wgmma_"));
        QCOMPARE(calls(s, kTmaName),
                 uint64_t(linesWith(path, "tl::tma_load(").size() + linesWith(path, "tl::prefetch_tma_descriptor(").size()));
        QCOMPARE(calls(s, kCpAsyncName), uint64_t(0));
        QVERIFY(s.conclusion.find("Hopper WGMMA") != std::string::npos);
    }

    void ampereMmaSync()
    {
        const std::string path = fixture("ampere_mma_decode.cu");
        const auto r = roofline::inspectGeneratedSourceFile(path);
        QCOMPARE(r.file.tensorCore, TensorCorePath::MmaSync);
        QCOMPARE(r.file.mmaPrecision, std::string("fp16"));
        QCOMPARE(calls(r.file, "tl::mma_sync"), uint64_t(linesWith(path, "tl::mma_sync<").size()));
        QCOMPARE(calls(r.file, "tl::mma_sync"), uint64_t(4));
        QCOMPARE(calls(r.file, "ldmatrix/stmatrix"), uint64_t(3));
        QCOMPARE(calls(r.file, kCpAsyncName), uint64_t(3));
        QCOMPARE(calls(r.file, kWgmmaName), uint64_t(0));
        QCOMPARE(r.file.dataMovement, std::vector<std::string>{"cp.async"});
        // AllReduce is busy-looking but not tensor-core evidence (§7.4)
        QCOMPARE(r.file.features.size(), size_t(3));
    }

    void elementwiseHasNoTensorCores()
    {
        const auto r = roofline::inspectGeneratedSourceFile(fixture("elementwise_mul2.cu"));
        QCOMPARE(r.kernels.size(), size_t(1));
        QCOMPARE(r.kernels[0].name, std::string("mul2_kernel_kernel"));
        QCOMPARE(r.file.tensorCore, TensorCorePath::None);
        QVERIFY(r.file.features.empty()); // load_global_256 / store_global_256 are plain vector accesses
        QVERIFY(r.file.dataMovement.empty());
        QVERIFY(r.file.conclusion.find("none seen") != std::string::npos);
        QVERIFY(anyContains(r.caveats, "gemm.h is included"));
        QVERIFY(anyContains(r.includes, "tl_templates/cuda/gemm.h"));
    }

    void commentsIncludesAndStringsDoNotCount()
    {
        const auto r = roofline::inspectGeneratedSourceFile(fixture("comments_mention_wgmma.cu"));
        QCOMPARE(r.kernels.size(), size_t(1));
        QCOMPARE(r.file.tensorCore, TensorCorePath::None);
        QVERIFY(r.file.features.empty());
        QVERIFY(anyContains(r.caveats, "'wgmma' appears only in #include lines"));
        QVERIFY(anyContains(r.caveats, "'mma.sync' appears only"));
        QVERIFY(anyContains(r.caveats, "'TMA' appears only"));
        QVERIFY(anyContains(r.caveats, "'tcgen05' appears only in string literals"));
        QVERIFY(anyContains(r.caveats, "prove nothing"));
    }

    void tmaMbarrierEraA()
    {
        const std::string path = fixture("hopper_tma_gemm_ss.cu");
        const auto r = roofline::inspectGeneratedSourceFile(path);
        QCOMPARE(r.kernels.size(), size_t(1));
        QCOMPARE(r.kernels[0].name, std::string("kernel_kernel"));
        const auto& s = r.kernels[0].summary;
        QCOMPARE(s.tensorCore, TensorCorePath::Wgmma); // gemm_ss<..., true>: the old 9-argument form
        QCOMPARE(calls(s, "tl::gemm_ss/rs/sr<..., true>"), uint64_t(1));
        QCOMPARE(calls(s, "tl::gemm_ss/rs/sr (mma.sync)"), uint64_t(0));
        QCOMPARE(calls(s, kTmaName), uint64_t(4));
        QCOMPARE(calls(s, "mbarrier"), uint64_t(linesWith(path, "tl::mbarrier_").size()));
        QCOMPARE(calls(s, kCpAsyncName), uint64_t(0));            // tl::mbarrier_cp_async_arrive is an mbarrier call
        QCOMPARE(calls(s, "CUtensorMap parameter"), uint64_t(2)); // not the host code's CUtensorMap local
        QCOMPARE(calls(s, "tl::warpgroup_reg_alloc/dealloc"), uint64_t(2));
        QCOMPARE(calls(r.file, "CUtensorMap parameter"), uint64_t(2));
    }

    void hopperMmaSyncFallback()
    {
        const auto r = roofline::inspectGeneratedSourceFile(fixture("hopper_mma_fallback.cu"));
        QCOMPARE(r.file.tensorCore, TensorCorePath::MmaSync); // gemm_ss<..., false>, 13th argument
        QCOMPARE(calls(r.file, "tl::gemm_ss/rs/sr (mma.sync)"), uint64_t(2));
        QCOMPARE(calls(r.file, kCpAsyncName), uint64_t(4));
        QVERIFY(!anyContains(r.caveats, "without a use_wgmma"));
    }

    void useWgmmaFlagPositions()
    {
        auto path = [](const char* call) {
            const std::string text = std::string("extern \"C\" __global__ void k(float* C) {\n  ") + call + "(a, b, C);\n}\n";
            return roofline::inspectGeneratedSource(text).file.tensorCore;
        };
        QCOMPARE(path("tl::gemm_ss<64, 64, 32, 4, 1, 0, 0, 0, 32, 64, 0, 0, true, 0>"), TensorCorePath::Wgmma);
        QCOMPARE(path("tl::gemm_ss<64, 64, 32, 4, 1, 0, 0, 0, 32, 64, 0, 0, false>"), TensorCorePath::MmaSync);
        QCOMPARE(path("tl::gemm_rs<64, 256, 64, 4, 1, 0, 0, 0, true, -1>"), TensorCorePath::Wgmma);
        QCOMPARE(path("tl::gemm_ss<64, 64, 32, 2, 2, 0, 1, 1>"), TensorCorePath::MmaSync);
        QCOMPARE(path("tl::AllReduce<tl::SumOp, 4, 1, 0>::run"), TensorCorePath::None);
        const auto noFlag = roofline::inspectGeneratedSource("__global__ void k() { tl::gemm_ss<64, 64, 32, 2, 2, 0, 1, 1>(a, b, c); }");
        QVERIFY(anyContains(noFlag.caveats, "without a use_wgmma"));
    }

    void tcgen05()
    {
        const auto r = roofline::inspectGeneratedSourceFile(fixture("blackwell_tcgen05_bmm.cu"));
        QCOMPARE(r.file.tensorCore, TensorCorePath::Tcgen05);
        QCOMPARE(r.file.mmaPrecision, std::string("fp16"));
        QCOMPARE(calls(r.file, "tl::tcgen05mma_*"), uint64_t(1));
        QCOMPARE(calls(r.file, "tl::tcgen05_* / tl::tmem_*"), uint64_t(8));
        QCOMPARE(calls(r.file, "mbarrier"), uint64_t(2)); // mbar[0].init, mbar[0].wait
        QCOMPARE(calls(r.file, kCpAsyncName), uint64_t(3));
        QVERIFY(r.file.conclusion.find("Blackwell tcgen05") != std::string::npos);
    }

    void inlinePtxInAsmCounts()
    {
        const auto r = roofline::inspectGeneratedSourceFile(fixture("inline_ptx_mma.cu"));
        QCOMPARE(r.file.tensorCore, TensorCorePath::MmaSync);
        QCOMPARE(calls(r.file, "mma.sync (inline PTX)"), uint64_t(1));
        QCOMPARE(calls(r.file, kCpAsyncName), uint64_t(3)); // cp.async.cg, commit_group, wait_group
        QCOMPARE(calls(r.file, "ldmatrix/stmatrix"), uint64_t(1));
        // the same PTX in an ordinary string is not a call site
        const auto printed = roofline::inspectGeneratedSource("__global__ void k() { printf(\"mma.sync.aligned wgmma.mma_async\"); }");
        QCOMPARE(printed.file.tensorCore, TensorCorePath::None);
        const auto wgmmaAsm = roofline::inspectGeneratedSource(
            "__global__ void k() {\n asm volatile(\"{\\n\"\n \"wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0}, %1, %2;\\n\"\n "
            "\"}\\n\" : \"+f\"(d) : \"l\"(a), \"l\"(b));\n}\n");
        QCOMPARE(wgmmaAsm.file.tensorCore, TensorCorePath::Wgmma);
        QCOMPARE(wgmmaAsm.file.features[0].lines, std::vector<int>{3});
    }

    void kernelsOfOneFileAreapart()
    {
        const std::string text = testutil::readFile(fixture("hopper_wgmma_gemm.cu")) + testutil::readFile(fixture("elementwise_mul2.cu"));
        const auto r = roofline::inspectGeneratedSource(text);
        QCOMPARE(r.kernels.size(), size_t(2));
        QCOMPARE(r.kernels[0].summary.tensorCore, TensorCorePath::Wgmma);
        QCOMPARE(r.kernels[1].summary.tensorCore, TensorCorePath::None);
        QCOMPARE(roofline::sourceEvidenceFor(r, "mul2_kernel_kernel").summary.tensorCore, TensorCorePath::None);
        QCOMPARE(roofline::sourceEvidenceFor(r, "main_kernel").kernel, std::string("main_kernel"));
        const auto other = roofline::sourceEvidenceFor(r, "gemm_kernel");
        QVERIFY(other.kernel.empty()); // whole file
        QCOMPARE(other.summary.tensorCore, TensorCorePath::Wgmma);
        QVERIFY(anyContains(other.caveats, "defines 2 kernels"));
    }

    void badFiles()
    {
        QTemporaryDir dir;
        auto write = [&](const char* name, const std::string& bytes) {
            const std::string path = dir.path().toStdString() + "/" + name;
            std::ofstream(path, std::ios::binary) << bytes;
            return path;
        };
        const std::string binary = write("kernel.cubin",
                                         std::string("\x7f"
                                                     "ELF\0\0\x01",
                                                     7));
        for (const auto& [path, problem] : {std::pair{write("empty.cu", ""), "empty"},
                                            {write("blank.cu", "  \n\n"), "empty"},
                                            {binary, "binary"},
                                            {dir.path().toStdString(), "directory"},
                                            {dir.path().toStdString() + "/missing.cu", "no such file"}}) {
            try {
                roofline::inspectGeneratedSourceFile(path);
                QFAIL(path.c_str());
            } catch (const io::TraceFileError& e) {
                QCOMPARE(e.path(), path);
                QVERIFY2(e.problem().find(problem) != std::string::npos, e.what());
            }
        }
    }

    // §6.2 and §7.5: a source corroborates the verdict, picks a custom kernel's tensor roof, and a
    // tensor-core verdict with no MMA call site is flagged.
    void classifyWithSource()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        roofline::ClassifyOptions options;
        options.annotations = {matmulAnnotation(137438953472.0)};
        const auto plain = roofline::classify(*t, options);
        const auto* before = find(plain.kernels, "matmul_kernel");
        QCOMPARE(before->cls, roofline::RooflineClass::TensorCoreBound);
        QCOMPARE(before->roof, std::string("bf16")); // assumed from the rate alone
        QVERIFY(!before->source);
        QCOMPARE(before->tensorCoreEvidence, std::string("none"));

        options.sources = {{"matmul_kernel", roofline::inspectGeneratedSourceFile(fixture("hopper_wgmma_gemm.cu"))}};
        const auto report1 = roofline::classify(*t, options);
        const auto* wgmma = find(report1.kernels, "matmul_kernel");
        QVERIFY(wgmma->source);
        QCOMPARE(wgmma->source->kernel, std::string("main_kernel"));
        QVERIFY(anyContains(wgmma->source->caveats, "not matmul_kernel"));
        QCOMPARE(wgmma->roof, std::string("fp16")); // the wgmma_ss operand type
        QCOMPARE(wgmma->cls, roofline::RooflineClass::TensorCoreBound);
        QCOMPARE(wgmma->tensorCoreEvidence, std::string("generated source"));
        QVERIFY(!wgmma->sourceContradicts);
        QVERIFY(anyContains(wgmma->evidence, "Hopper WGMMA"));
        QVERIFY(anyContains(wgmma->evidence, "Hopper GPU") == false);

        options.sources = {{"re:^matmul", roofline::inspectGeneratedSourceFile(fixture("elementwise_mul2.cu"))}};
        const auto report2 = roofline::classify(*t, options);
        const auto* none = find(report2.kernels, "matmul_kernel");
        QCOMPARE(none->cls, roofline::RooflineClass::TensorCoreBound);
        QVERIFY(none->sourceContradicts);
        QVERIFY(anyContains(none->evidence, "CONFLICT"));
        QCOMPARE(none->tensorCoreEvidence, std::string("none"));
    }

    void sourceChangesTheRoofOfASlowCustomKernel()
    {
        // A twentieth of the GEMM's FLOPs: 33 TFLOP/s, below the FP32 peak, so without a source the
        // custom kernel sits on the FP32 CUDA-core roof; its WGMMA call sites move it to the FP16 roof.
        const auto t = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        roofline::ClassifyOptions options;
        options.annotations = {matmulAnnotation(137438953472.0 / 20)};
        const auto report3 = roofline::classify(*t, options);
        const auto* cudaCore = find(report3.kernels, "matmul_kernel");
        QCOMPARE(cudaCore->roof, std::string("fp32"));
        QCOMPARE(cudaCore->cls, roofline::RooflineClass::CudaCoreBound);
        options.sources = {{"matmul_kernel", roofline::inspectGeneratedSourceFile(fixture("hopper_wgmma_gemm.cu"))}};
        const auto report4 = roofline::classify(*t, options);
        const auto* tensor = find(report4.kernels, "matmul_kernel");
        QCOMPARE(tensor->roof, std::string("fp16"));
        QVERIFY(tensor->cls != roofline::RooflineClass::CudaCoreBound);
        QVERIFY(anyContains(tensor->evidence, "comes from the generated source"));
        // The source attached to the kernel applies to the region that holds only that kernel: same roof, same findings.
        const auto* region = find(report4.regions, "custom_kernel");
        QVERIFY(region);
        QCOMPARE(region->kernels.size(), size_t(1));
        QCOMPARE(region->roof, std::string("fp16"));
        QVERIFY(region->source);
        QCOMPARE(region->source->summary.tensorCore, TensorCorePath::Wgmma);
        QVERIFY(!anyContains(region->evidence, "assumed"));
        QCOMPARE(find(report3.regions, "custom_kernel")->roof, std::string("fp32")); // no source: the FP32 roof
        // A region holding other kernels too does not take it.
        const auto* torchRef = find(report4.regions, "torch_ref");
        QVERIFY(torchRef && !torchRef->source);
        // The user's declaration wins (§6.2), and the disagreement is flagged.
        options.annotations[0].roof = "fp32";
        const auto report5 = roofline::classify(*t, options);
        const auto* declared = find(report5.kernels, "matmul_kernel");
        QCOMPARE(declared->roof, std::string("fp32"));
        QCOMPARE(declared->cls, roofline::RooflineClass::CudaCoreBound);
        QVERIFY(declared->sourceContradicts);
    }

    void annotationSourceRelativeToItsFile()
    {
        QTemporaryDir dir;
        QVERIFY(QFile::copy(QString::fromStdString(fixture("hopper_tma_gemm_ss.cu")), dir.filePath(QStringLiteral("kernel.cu"))));
        const std::string annotations = dir.filePath(QStringLiteral("a.json")).toStdString();
        std::ofstream(annotations) << "{\"annotations\": [{\"kernel\": \"matmul_kernel\", \"flops\": 137438953472, \"bytes\": 100663296, "
                                      "\"source\": \"kernel.cu\"}, {\"region\": \"custom_kernel\", \"source\": \"kernel.cu\"}]}";
        roofline::ClassifyOptions options;
        options.annotations = roofline::loadAnnotations(annotations);
        QCOMPARE(options.annotations.size(), size_t(2));
        QVERIFY(options.annotations[1].source);
        const auto r = roofline::classify(*trace::loadTrace(testutil::workloadTrace("gemm_compare")), options);
        const auto* k = find(r.kernels, "matmul_kernel");
        QVERIFY(k->source);
        QCOMPARE(k->roof, std::string("bf16")); // gemm_ss names no operand type: BF16 assumed, and said so
        QVERIFY(anyContains(k->evidence, "BF16 assumed"));
        QCOMPARE(k->source->summary.tensorCore, TensorCorePath::Wgmma);
        const auto* region = find(r.regions, "custom_kernel");
        QVERIFY(region);
        QVERIFY(region->source);
        QVERIFY(region->source->kernel.empty());
        QCOMPARE(region->source->summary.tensorCore, TensorCorePath::Wgmma);

        std::ofstream(annotations) << "{\"annotations\": [{\"kernel\": \"k\", \"source\": \"missing.cu\"}]}";
        try {
            roofline::loadAnnotations(annotations);
            QFAIL("no error");
        } catch (const io::TraceFileError& e) {
            QVERIFY2(e.path().find("missing.cu") != std::string::npos, e.what());
        }
    }

    void cliInspectAndClassify()
    {
        QProcess p;
        p.start(QStringLiteral(TILESCOPE_CLI), {"inspect", QString::fromStdString(fixture("hopper_wgmma_gemm.cu")), "--format", "json"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const QJsonObject doc = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
        QCOMPARE(doc.value("tensor_core").toString(), QStringLiteral("wgmma"));
        const QJsonObject kernel = doc.value("kernels").toArray()[0].toObject();
        QCOMPARE(kernel.value("name").toString(), QStringLiteral("main_kernel"));
        bool sawWgmma = false;
        for (const auto& f : kernel.value("features").toArray()) {
            const QJsonObject o = f.toObject();
            QVERIFY(o.contains(QLatin1String("call_sites")) && o.contains(QLatin1String("lines")));
            if (o.value("name").toString() == QLatin1String(kWgmmaName)) {
                sawWgmma = true;
                QCOMPARE(o.value("call_sites").toInt(), 1);
                QCOMPARE(o.value("lines").toArray()[0].toInt(), linesWith(fixture("hopper_wgmma_gemm.cu"), "tl::wgmma_ss<")[0]);
            }
        }
        QVERIFY(sawWgmma);

        p.start(QStringLiteral(TILESCOPE_CLI), {"inspect", QString::fromStdString(fixture("elementwise_mul2.cu"))});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(p.readAllStandardOutput().contains("none seen"));

        QTemporaryDir dir;
        const QString empty = dir.filePath(QStringLiteral("empty.cu"));
        QFile(empty).open(QIODevice::WriteOnly);
        p.start(QStringLiteral(TILESCOPE_CLI), {"inspect", empty});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        const QByteArray err = p.readAllStandardError();
        QVERIFY(err.contains(empty.toUtf8()));
        QCOMPARE(err.trimmed().count('\n'), 0); // one line

        const QString annotations = dir.filePath(QStringLiteral("a.json"));
        QFile a(annotations);
        QVERIFY(a.open(QIODevice::WriteOnly));
        a.write("{\"annotations\": [{\"kernel\": \"matmul_kernel\", \"flops\": 137438953472, \"bytes\": 100663296}]}");
        a.close();
        const QString trace = QString::fromStdString(testutil::workloadTrace("gemm_compare"));
        p.start(QStringLiteral(TILESCOPE_CLI),
                {"classify", trace, "--annotations", annotations, "--format", "json", "--source",
                 "matmul_kernel=" + QString::fromStdString(fixture("elementwise_mul2.cu"))});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        const QJsonObject classified = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
        bool sawSource = false;
        for (const auto& k : classified.value("kernels").toArray()) {
            const QJsonObject o = k.toObject();
            if (o.value("name").toString() != QLatin1String("matmul_kernel")) {
                QVERIFY(!o.contains(QLatin1String("source")));
                continue;
            }
            sawSource = true;
            const QJsonObject source = o.value("source").toObject();
            for (const char* field : {"path", "features", "conclusion", "caveats"})
                QVERIFY2(source.contains(QLatin1String(field)), field);
            QCOMPARE(source.value("tensor_core").toString(), QStringLiteral("none"));
            QVERIFY(o.value("source_contradicts").toBool());
        }
        QVERIFY(sawSource);

        p.start(QStringLiteral(TILESCOPE_CLI), {"classify", trace, "--source", "matmul_kernel"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        p.start(QStringLiteral(TILESCOPE_CLI), {"classify", trace, "--source", "matmul_kernel=" + empty});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(p.readAllStandardError().contains(empty.toUtf8()));
    }
};

QTEST_GUILESS_MAIN(TestSourceInspect)
#include "tst_sourceinspect.moc"
