// SPDX-License-Identifier: MIT
#include "io/bytesource.h"
#include "io/jsonreader.h"
#include "io/tracefileerror.h"

#include <QtTest>

using namespace tilescope::io;

namespace {

// Tokens of a document as "kind:text" lines, read with a given buffer size.
QStringList tokens(const std::string& json, size_t bufferSize = 1 << 16)
{
    auto source = memorySource(json, "doc.json");
    JsonReader reader(*source, bufferSize);
    QStringList out;
    for (;;) {
        const JsonToken t = reader.next();
        if (t == JsonToken::End)
            break;
        QString entry = QString::fromUtf8(jsonTokenName(t));
        if (t == JsonToken::Key || t == JsonToken::String || t == JsonToken::Number)
            entry += QLatin1Char(':') + QString::fromUtf8(reader.text().data(), qsizetype(reader.text().size()));
        out << entry;
    }
    return out;
}

// The error a malformed document produces.
std::string errorOf(const std::string& json, uint64_t* offset = nullptr)
{
    try {
        tokens(json);
    } catch (const TraceFileError& e) {
        if (offset)
            *offset = e.offset().value_or(UINT64_MAX);
        return e.what();
    }
    return {};
}

} // namespace

class TestJsonReader : public QObject
{
    Q_OBJECT
private slots:
    void tokenStream()
    {
        const QStringList got = tokens("{\"a\": [1, -2.5e3, \"x\", true, false, null], \"b\": {}}");
        const QStringList want{"'{'",
                               "an object key:a",
                               "'['",
                               "a number:1",
                               "a number:-2.5e3",
                               "a string:x",
                               "a boolean",
                               "a boolean",
                               "null",
                               "']'",
                               "an object key:b",
                               "'{'",
                               "'}'",
                               "'}'"};
        QCOMPARE(got, want);
    }

    void escapesAndUnicode()
    {
        const QStringList got = tokens("[\"a\\\"b\\\\c\\/d\\n\", \"\\u00e9\\u4e2d\", \"\\ud83d\\ude00\", \"caf\\u00E9 ok\", \"é直接\"]");
        QCOMPARE(got.size(), 7);
        QCOMPARE(got[1], QStringLiteral("a string:a\"b\\c/d\n"));
        QCOMPARE(got[2], QString::fromUtf8("a string:\xc3\xa9\xe4\xb8\xad"));
        QCOMPARE(got[3], QString::fromUtf8("a string:\xf0\x9f\x98\x80"));
        QCOMPARE(got[5], QString::fromUtf8("a string:é直接"));
    }

    // Every buffer size must give the same tokens: tokens straddle chunk boundaries.
    void chunkBoundaries()
    {
        std::string doc = "{\"traceEvents\": [";
        for (int i = 0; i < 200; ++i) {
            if (i)
                doc += ",";
            doc += "{\"name\": \"kernel_\\u00e9_" + std::to_string(i) + "_é直\", \"ts\": 5349368629953." + std::to_string(100 + i)
                + ", \"args\": {\"Input Dims\": [[4096, 4096], []], \"s\": \"x\\\"y\"}}";
        }
        doc += "]}";
        const QStringList reference = tokens(doc);
        for (size_t size : {64, 65, 67, 100, 127, 255, 1000, 4096})
            QCOMPARE(tokens(doc, size), reference);
    }

    // Strings are scanned many bytes at a time: a byte that needs a look (quote, escape, control byte,
    // UTF-8) must be found at every position of a long string, in every buffer size.
    void longStringsAtEveryOffset()
    {
        const std::string filler(47, 'x');
        for (size_t at = 0; at <= filler.size(); ++at) {
            const std::string head = filler.substr(0, at);
            const std::string tail = filler.substr(at);
            for (size_t size : {64, 71, 4096}) {
                QCOMPARE(tokens("[\"" + head + "\\n" + tail + "\"]", size).value(1),
                         QString::fromStdString("a string:" + head + "\n" + tail));
                QCOMPARE(tokens("[\"" + head + "é" + tail + "\"]", size).value(1), QString::fromUtf8("a string:" + head + "é" + tail));
                QCOMPARE(tokens("[\"" + head + "\", \"" + tail + "\"]", size).value(1), QString::fromStdString("a string:" + head));
            }
            uint64_t offset = 0;
            QVERIFY(errorOf("[\"" + head + "\t" + tail + "\"]", &offset).find("control character") != std::string::npos);
            QCOMPARE(offset, uint64_t(2 + at));
            QVERIFY(errorOf("[\"" + head + "\xff" + tail + "\"]", &offset).find("invalid UTF-8") != std::string::npos);
            QCOMPARE(offset, uint64_t(2 + at));
            QVERIFY(errorOf("[\"" + head + std::string(1, '\0') + tail + "\"]", &offset).find("control character") != std::string::npos);
            QCOMPARE(offset, uint64_t(2 + at));
        }
    }

    // Whitespace runs of every length at every offset, across buffer refills: the same tokens, and an
    // error after them at the right offset.
    void whitespaceRunsAtEveryOffset()
    {
        for (size_t lead = 0; lead < 20; ++lead) {
            for (size_t run = 0; run < 40; ++run) {
                std::string gap;
                for (size_t k = 0; k < run; ++k)
                    gap += " \n\t\r"[(k * 7 + lead) % 4];
                const std::string doc = "[" + std::string(lead, ' ') + "1," + gap + "\"a\"" + gap + "]";
                for (size_t size : {64, 71, 4096}) {
                    const QStringList got = tokens(doc, size);
                    QCOMPARE(got.size(), 4);
                    QCOMPARE(got.value(2), QStringLiteral("a string:a"));
                }
                uint64_t offset = 0;
                QVERIFY(errorOf("[1," + gap + "\x01]", &offset).find("expected a JSON value") != std::string::npos);
                QCOMPARE(offset, uint64_t(3 + run));
            }
        }
    }

    // Numbers of every length at every offset (the digits are read 8 at a time), across buffer refills, each
    // byte after them tried: the same number, or the error the grammar asks for.
    void numbersAtEveryOffset()
    {
        const std::string digits = "12345678901234567890123";
        // Leads past 40 put the number across the 64- and 71-byte buffers' refills.
        for (size_t lead : {0, 1, 2, 3, 4, 5, 6, 7, 8, 41, 44, 47, 50, 53, 56, 59, 62, 63, 64, 65, 68, 70}) {
            for (size_t len = 1; len <= digits.size(); ++len) {
                const std::string number = digits.substr(0, len);
                for (const std::string& form : {number, number + ".5", "-" + number, number + "e7", "0." + number}) {
                    for (size_t size : {64, 71, 4096})
                        QCOMPARE(tokens("[" + std::string(lead, ' ') + form + "]", size).value(1),
                                 QString::fromStdString("a number:" + form));
                }
                for (int byte = 0; byte < 256; ++byte) {
                    const char c = char(byte);
                    if ((c >= '0' && c <= '9') || c == ']' || c == ',' || c == ' ' || c == '\n' || c == '\r' || c == '\t')
                        continue;
                    QVERIFY2(!errorOf("[" + std::string(lead, ' ') + number + c + "]").empty(), (number + c).c_str());
                }
            }
        }
    }

    void capture()
    {
        const std::string doc = "{\"args\": {\"External id\": 4, \"x\": [1, {\"y\": \"z\"}]}, \"after\": 1}";
        for (size_t size : {64, 70, 4096}) {
            auto source = memorySource(doc);
            JsonReader reader(*source, size);
            QCOMPARE(reader.next(), JsonToken::ObjectBegin);
            QCOMPARE(reader.next(), JsonToken::Key);
            const JsonToken first = reader.next();
            reader.beginCapture();
            reader.skipValue(first);
            QCOMPARE(std::string(reader.endCapture()), std::string("{\"External id\": 4, \"x\": [1, {\"y\": \"z\"}]}"));
            QCOMPARE(reader.next(), JsonToken::Key);
            QCOMPARE(std::string(reader.text()), std::string("after"));
        }
    }

    void errors_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<qint64>("offset");
        QTest::newRow("empty") << QByteArray() << QString("empty document") << qint64(0);
        QTest::newRow("not json") << QByteArray("hello") << QString("expected a JSON value") << qint64(0);
        QTest::newRow("truncated object") << QByteArray("{\"a\": [1, 2") << QString("truncated") << qint64(11);
        QTest::newRow("truncated string") << QByteArray("{\"a\": \"abc") << QString("inside a string") << qint64(6);
        QTest::newRow("missing colon") << QByteArray("{\"a\" 1}") << QString("expected ':'") << qint64(5);
        QTest::newRow("trailing comma") << QByteArray("[1, 2,]") << QString("expected a JSON value") << qint64(6);
        QTest::newRow("bad separator") << QByteArray("[1 2]") << QString("expected ',' or ']'") << qint64(3);
        QTest::newRow("nan") << QByteArray("{\"ts\": NaN}") << QString("NaN and Infinity") << qint64(7);
        QTest::newRow("leading zero") << QByteArray("[01]") << QString("leading zero") << qint64(1);
        QTest::newRow("bare minus") << QByteArray("[-]") << QString("expected a digit") << qint64(1);
        QTest::newRow("bad escape") << QByteArray("[\"\\q\"]") << QString("invalid escape") << qint64(3);
        QTest::newRow("lone surrogate") << QByteArray("[\"\\ud800\"]") << QString("surrogate") << qint64(7);
        QTest::newRow("control char") << QByteArray("[\"a\tb\"]") << QString("control character") << qint64(3);
        QTest::newRow("invalid utf8") << QByteArray("[\"a\xff\"]") << QString("invalid UTF-8") << qint64(3);
        QTest::newRow("overlong utf8") << QByteArray("[\"\xc0\xaf\"]") << QString("invalid UTF-8") << qint64(2);
        QTest::newRow("trailing data") << QByteArray("{} x") << QString("after the end") << qint64(3);
        QTest::newRow("key not string") << QByteArray("{1: 2}") << QString("object key") << qint64(1);
        QTest::newRow("bad literal") << QByteArray("[tru]") << QString("expected a JSON value") << qint64(1);
    }
    void errors()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, expected);
        QFETCH(qint64, offset);
        uint64_t at = 0;
        const std::string message = errorOf(std::string(json.constData(), size_t(json.size())), &at);
        QVERIFY2(!message.empty(), "no error raised");
        QVERIFY2(message.find("doc.json") != std::string::npos, message.c_str());
        QVERIFY2(message.find(expected.toStdString()) != std::string::npos, message.c_str());
        QCOMPARE(qint64(at), offset);
    }

    void deepNestingIsRefusedNotCrashing()
    {
        const std::string deep(100000, '[');
        QVERIFY(errorOf(deep).find("nesting deeper") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestJsonReader)
#include "tst_jsonreader.moc"
