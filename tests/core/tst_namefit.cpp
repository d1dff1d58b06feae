// SPDX-License-Identifier: MIT
// trace::fitNamesApart and NameShortener: long kernel names fitted to a width, different kernels never
// reading the same (the CLI's tables and texts, and through a pixel ruler the GUI's name columns).
#include "io/codepoints.h"
#include "trace/namefit.h"

#include <QtTest>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace trace = tilescope::trace;

namespace {

// A parameter list as long as fbgemm's (the names run to 1,500 characters).
std::string longParameters()
{
    std::string p = "(";
    for (int i = 0; i < 20; ++i)
        p += "at::GenericPackedTensorAccessor<float, 1ul, at::RestrictPtrTraits, long>, ";
    return p + "float, long)";
}

// HTA's trace_diff pair: two kernels, each with 2ul and 5ul. Told apart pair by pair, each pair's texts read
// as the other pair's, and the two groups swapped texts at every regrouping.
std::vector<std::string> embeddingKernels()
{
    std::vector<std::string> names;
    for (const char* kind : {"cta", "warp"})
        for (const char* rows : {"2ul", "5ul"})
            names.push_back(std::string("void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_") + kind
                            + "_per_row_1<float, float, float, " + rows + ">" + longParameters());
    return names;
}

// Elementwise kernels that differ in a lambda deep in their arguments, from two ops.
std::vector<std::string> lambdaKernels()
{
    std::vector<std::string> names;
    for (const char* op : {"at::native::neg_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}",
                           "at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
                           "at::native::detail::ClampLimits)::{lambda()#1}"})
        for (const char* inner :
             {"{lambda()#14}::operator()() const::{lambda(float)#1}", "{lambda()#12}::operator()() const::{lambda(double)#1}"}) {
            const std::string functor = std::string(op) + "::operator()() const::" + inner;
            names.push_back("void at::native::vectorized_elementwise_kernel<4, " + functor + ", at::detail::Array<char*, 2> >(int, "
                            + functor + ", at::detail::Array<char*, 2>)");
        }
    return names;
}

size_t points(const std::string& s) { return tilescope::io::codePointCount(s); }

// Every text within the width, and one text per name.
void verifyApart(const std::vector<std::string>& names, const std::vector<std::string>& shown, double width)
{
    QCOMPARE(shown.size(), names.size());
    std::map<std::string, std::string> nameOf;
    for (size_t i = 0; i < names.size(); ++i) {
        QVERIFY2(static_cast<double>(points(shown[i])) <= width, shown[i].c_str());
        const auto [it, added] = nameOf.emplace(shown[i], names[i]);
        QVERIFY2(added || it->second == names[i], ("two names read " + shown[i]).c_str());
    }
}

} // namespace

class TestNameFit : public QObject
{
    Q_OBJECT

private slots:
    void namesThatFitStayWhole()
    {
        const trace::CharacterRuler ruler;
        QCOMPARE(trace::fitName("aten::mm", 80, ruler), std::string("aten::mm"));
        const std::vector<std::string> names{"aten::mm", "aten::add", "aten::mm"};
        QCOMPARE(trace::fitNamesApart(names, 80, ruler), names);
    }

    void cutsStayWithinTheWidth()
    {
        const trace::CharacterRuler ruler;
        const std::string plain(200, 'x');
        QCOMPARE(points(ruler.cutEnd(plain, 20)), size_t(20));
        QCOMPARE(points(ruler.cutMiddle(plain, 20)), size_t(20));
        QCOMPARE(ruler.cutMiddle("abcdefghijklmnopqrstuvwxyz", 11), std::string("abcd...wxyz"));
        // Code points, not bytes: a multi-byte character is never split.
        const std::string accented = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"; // eight U+00E9
        QCOMPARE(ruler.cutEnd(accented, 6), std::string("\xc3\xa9\xc3\xa9\xc3\xa9..."));
        for (const std::string& name : embeddingKernels())
            QVERIFY(points(trace::fitName(name, 60, ruler)) <= 60);
    }

    // The same name on several rows (a CPU op and its CUDA row) keeps one text; it is not a clash.
    void oneNameOnSeveralRowsKeepsOneText()
    {
        const trace::CharacterRuler ruler;
        const std::string name = embeddingKernels().front();
        const std::vector<std::string> shown = trace::fitNamesApart({name, name}, 80, ruler);
        QCOMPARE(shown[0], shown[1]);
        QCOMPARE(shown[0], trace::fitName(name, 80, ruler));
    }

    void kernelsThatDifferInTwoPlaces_data()
    {
        QTest::addColumn<double>("width");
        QTest::addColumn<bool>("clashAlone"); // fitted alone, some read alike
        QTest::newRow("60") << 60.0 << true;
        QTest::newRow("80") << 80.0 << true;
        QTest::newRow("120") << 120.0 << false;
    }
    void kernelsThatDifferInTwoPlaces()
    {
        QFETCH(double, width);
        QFETCH(bool, clashAlone);
        const trace::CharacterRuler ruler;
        const std::vector<std::string> names = embeddingKernels();
        std::set<std::string> alone;
        for (const std::string& name : names)
            alone.insert(trace::fitName(name, width, ruler));
        QCOMPARE(alone.size() < names.size(), clashAlone);
        const std::vector<std::string> shown = trace::fitNamesApart(names, width, ruler);
        verifyApart(names, shown, width);
        // Each names its kind and its argument.
        for (size_t i = 0; i < names.size(); ++i) {
            QVERIFY2(shown[i].find(names[i].find("_cta_") != std::string::npos ? "cta_per" : "warp_per") != std::string::npos,
                     shown[i].c_str());
            QVERIFY2(shown[i].find(names[i].find("2ul>") != std::string::npos ? "2ul>" : "5ul>") != std::string::npos, shown[i].c_str());
        }
    }

    void lambdasDeepInTheArguments()
    {
        const trace::CharacterRuler ruler;
        std::vector<std::string> names = lambdaKernels();
        const std::vector<std::string> embedding = embeddingKernels();
        names.insert(names.end(), embedding.begin(), embedding.end());
        const std::vector<std::string> shown = trace::fitNamesApart(names, 80, ruler);
        verifyApart(names, shown, 80);
        for (size_t i = 0; i < 4; ++i) {
            QVERIFY2(shown[i].find(names[i].find("#14}") != std::string::npos ? "#14}" : "#12}") != std::string::npos, shown[i].c_str());
            QVERIFY2(shown[i].starts_with("vectorized_elementwise_kernel<4, "), shown[i].c_str());
        }
    }

    // Names without templates or parameters to drop (mangled ones) still read apart, from where they differ.
    void namesWithoutStructure()
    {
        const trace::CharacterRuler ruler;
        const std::string start = "_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmMultistageINS_4gemm11threadblock";
        const std::vector<std::string> names{
            start + "ILi128ELi128ELi32EEENS4_52Conv2dWgradOutputGradientTileAccessIterator" + std::string(80, 'E'),
            start + "ILi64ELi128ELi32EEENS4_52Conv2dWgradOutputGradientTileAccessIterator" + std::string(80, 'E')};
        const std::vector<std::string> shown = trace::fitNamesApart(names, 80, ruler);
        verifyApart(names, shown, 80);
        QVERIFY(shown[0].find("128ELi128") != std::string::npos);
        QVERIFY(shown[1].find("64ELi128") != std::string::npos);
    }

    // Names in any UTF-8 (a record_function label): widths and cuts in code points, never inside a character.
    void multiByteNames()
    {
        const trace::CharacterRuler ruler;
        std::string longLabel;
        for (int i = 0; i < 200; ++i)
            longLabel += "\xc3\xa9"; // U+00E9
        const std::string cut = trace::shortenedName(longLabel, 120);
        QVERIFY(points(cut) <= 120);
        QVERIFY(QString::fromUtf8(cut.data(), qsizetype(cut.size())).toUtf8() == QByteArray::fromStdString(cut)); // valid UTF-8
        std::vector<std::string> names;
        for (const char* tail : {"\xce\xb1>(int)", "\xce\xb2>(int)", "\xe2\x82\xac>(int)"}) // alpha, beta, euro sign
            names.push_back("void kernel_" + longLabel.substr(0, 120) + "<float, float, " + tail);
        const std::vector<std::string> shown = trace::fitNamesApart(names, 40, ruler);
        verifyApart(names, shown, 40);
        for (const std::string& text : shown)
            QVERIFY(QString::fromUtf8(text.data(), qsizetype(text.size())).toUtf8() == QByteArray::fromStdString(text));
        // Widths too narrow for the cut mark still hold the width.
        QCOMPARE(ruler.cutEnd("abcdef", 2), std::string("ab"));
        QCOMPARE(ruler.cutMiddle("abcdef", 0), std::string());
    }

    // A NameShortener tells its names apart at its own width: one name whose shortest form is far longer
    // does not widen the others' texts.
    void shortenerKeepsItsWidth()
    {
        trace::NameShortener names(60);
        const std::vector<std::string> kernels = embeddingKernels();
        for (const std::string& name : kernels)
            names.add(name);
        std::string huge = "void huge_kernel_";
        huge += std::string(300, 'x');
        huge += "<int>(int)";
        names.add(huge);
        for (const auto& [full, shown] : names.names())
            if (full != huge)
                QVERIFY2(points(shown) <= 60, shown.c_str());
    }

    // Thousands of kernels that read alike are told apart (and quickly: each form is compared with its sorted
    // neighbours, not with every other; 10,000 took 18 s before).
    void manyNamesAlike()
    {
        std::vector<std::string> names;
        for (int i = 0; i < 3000; ++i)
            names.push_back("void fbgemm_gpu::split_embedding_kernel<float, float, " + std::to_string(i) + ">" + longParameters());
        const std::vector<std::string> shown = trace::fitNamesApart(names, 80, trace::CharacterRuler());
        verifyApart(names, shown, 80);
        QCOMPARE(std::set<std::string>(shown.begin(), shown.end()).size(), names.size());
    }

    // A text naming several kernels (a finding, classify's listing) names each as a different one.
    void nameShortenerTellsKernelsApart()
    {
        trace::NameShortener names(120);
        std::string text;
        for (const std::string& name : lambdaKernels()) {
            names.add(name);
            text += name + "\n";
        }
        const std::string shortened = names.apply(text);
        std::set<std::string> lines;
        size_t count = 0;
        for (size_t from = 0, end; (end = shortened.find('\n', from)) != std::string::npos; from = end + 1, ++count) {
            const std::string line = shortened.substr(from, end - from);
            QVERIFY2(points(line) <= 120, line.c_str());
            lines.insert(line);
        }
        QCOMPARE(count, size_t(4));
        QCOMPARE(lines.size(), size_t(4));
        for (const auto& [full, shown] : names.names())
            QVERIFY(lines.count(shown) == 1);
    }
};

QTEST_GUILESS_MAIN(TestNameFit)
#include "tst_namefit.moc"
