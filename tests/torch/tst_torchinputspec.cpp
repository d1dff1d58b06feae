// SPDX-License-Identifier: MIT
// The --inputs parser of tilescope-torch (docs/sessions.md, "Input spec"): accepted forms and the
// message each mistake gets.
#include "inputspec.h"

#include <QtTest>

using namespace tilescope::torchtool;

class TestTorchInputSpec : public QObject
{
    Q_OBJECT
private slots:
    void parsesTensorsAndAliases()
    {
        const auto tensors = parseInputSpec("float32:4096x4096,bf16:64x128, i64:7 ,bool:2x3x4");
        QCOMPARE(tensors.size(), size_t(4));
        QCOMPARE(tensors[0].dtype, std::string("float32"));
        QCOMPARE(tensors[0].dims, (std::vector<int64_t>{4096, 4096}));
        QCOMPARE(tensors[1].dtype, std::string("bfloat16"));
        QCOMPARE(tensors[1].dims, (std::vector<int64_t>{64, 128}));
        QCOMPARE(tensors[2].dtype, std::string("int64"));
        QCOMPARE(tensors[2].dims, (std::vector<int64_t>{7}));
        QCOMPARE(formatTensorSpec(tensors[3]), std::string("bool:2x3x4"));
    }

    void everyDtypeName()
    {
        const std::pair<const char*, const char*> names[] = {
            {"float32", "float32"}, {"f32", "float32"},     {"float16", "float16"}, {"f16", "float16"}, {"bfloat16", "bfloat16"},
            {"bf16", "bfloat16"},   {"float64", "float64"}, {"f64", "float64"},     {"int32", "int32"}, {"i32", "int32"},
            {"int64", "int64"},     {"i64", "int64"},       {"bool", "bool"}};
        for (const auto& [alias, canonical] : names)
            QCOMPARE(canonicalDtype(alias), std::string(canonical));
        QVERIFY(canonicalDtype("float").empty());
    }

    void scalarsAndEmpty()
    {
        const auto scalar = parseInputSpec("f64:");
        QCOMPARE(scalar.size(), size_t(1));
        QVERIFY(scalar[0].dims.empty());
        QCOMPARE(formatTensorSpec(scalar[0]), std::string("float64:"));
        QVERIFY(parseInputSpec("").empty());
        QVERIFY(parseInputSpec("  ").empty());
        QCOMPARE(parseInputSpec("f32:0x4")[0].dims, (std::vector<int64_t>{0, 4}));
    }

    void badSpecs_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("message");
        QTest::newRow("no colon") << "float32"
                                  << "tensor 1 'float32': no ':' between dtype and dimensions";
        QTest::newRow("unknown dtype") << "f32:2,float8:4"
                                       << "tensor 2 'float8:4': unknown dtype 'float8'";
        QTest::newRow("missing dtype") << ":4x4"
                                       << "tensor 1 ':4x4': missing dtype";
        QTest::newRow("empty dim") << "bf16:64xx128"
                                   << "tensor 1 'bf16:64xx128': dimension 2 is empty";
        QTest::newRow("trailing x") << "f16:4x"
                                    << "dimension 2 is empty";
        QTest::newRow("negative") << "f32:-4"
                                  << "dimension 1 '-4' must be a non-negative integer";
        QTest::newRow("not a number") << "f32:4xk"
                                      << "dimension 2 'k' is not an integer";
        QTest::newRow("comma for x") << "f32:4,4"
                                     << "tensor 2 '4': no ':'";
        QTest::newRow("stray comma") << "f32:4,,f32:2"
                                     << "tensor 2 is empty (a stray ','";
        QTest::newRow("trailing comma") << "f32:4,"
                                        << "tensor 2 is empty";
        QTest::newRow("too large") << "f32:99999999999999999999"
                                   << "is too large";
        QTest::newRow("overflow") << "f32:4294967296x4294967296"
                                  << "the element count overflows 64 bits";
    }

    void badSpecs()
    {
        QFETCH(QString, spec);
        QFETCH(QString, message);
        try {
            parseInputSpec(spec.toStdString());
            QFAIL("accepted a bad spec");
        } catch (const InputSpecError& e) {
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.contains(message), qPrintable(what));
            QVERIFY2(what.contains("expected DTYPE:DIMS such as float32:4096x4096"), qPrintable(what));
        }
    }
};

QTEST_APPLESS_MAIN(TestTorchInputSpec)
#include "tst_torchinputspec.moc"
