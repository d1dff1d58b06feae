// SPDX-License-Identifier: MIT
#include "io/decimal.h"

#include <QtTest>

using tilescope::io::parseExactInteger;
using tilescope::io::parseMicrosecondsAsNanoseconds;

class TestDecimal : public QObject
{
    Q_OBJECT
private slots:
    void microsecondsToNanoseconds_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("ns");
        QTest::newRow("kineto relative") << "5349368629953.311" << qint64(5349368629953311);
        QTest::newRow("integer epoch us") << "1623142623460111" << qint64(1623142623460111000);
        QTest::newRow("decimal epoch us") << "1712195495519689.047" << qint64(1712195495519689047);
        QTest::newRow("python reserialised") << "1712195495505583.0" << qint64(1712195495505583000);
        QTest::newRow("one decimal") << "12.5" << qint64(12500);
        QTest::newRow("exponent") << "1.5e3" << qint64(1500000);
        QTest::newRow("negative exponent") << "15e-1" << qint64(1500);
        QTest::newRow("round half away") << "0.0005" << qint64(1);
        QTest::newRow("round down") << "0.0004999" << qint64(0);
        QTest::newRow("negative") << "-2.25" << qint64(-2250);
        QTest::newRow("zero") << "0" << qint64(0);
        QTest::newRow("many decimals") << "3.14159265" << qint64(3142);
    }
    void microsecondsToNanoseconds()
    {
        QFETCH(QString, text);
        QFETCH(qint64, ns);
        const auto v = parseMicrosecondsAsNanoseconds(text.toStdString());
        QVERIFY(v.has_value());
        QCOMPARE(qint64(*v), ns);
    }

    void noFloatDrift()
    {
        // A double cannot hold this value to the nanosecond; the text parse must.
        const auto v = parseMicrosecondsAsNanoseconds("1790857026123456.789");
        QVERIFY(v);
        QCOMPARE(qint64(*v), qint64(1790857026123456789));
        QVERIFY(qint64(static_cast<double>(1790857026123456.789) * 1000) != qint64(1790857026123456789));
    }

    void rejects()
    {
        QVERIFY(!parseMicrosecondsAsNanoseconds("1e400"));
        QVERIFY(!parseMicrosecondsAsNanoseconds("99999999999999999999"));
        QVERIFY(!parseMicrosecondsAsNanoseconds("abc"));
        QVERIFY(!parseMicrosecondsAsNanoseconds(""));
        QVERIFY(!parseMicrosecondsAsNanoseconds("1.2.3"));
    }

    void exactIntegers()
    {
        QCOMPARE(qint64(*parseExactInteger("42")), qint64(42));
        QCOMPARE(qint64(*parseExactInteger("-7")), qint64(-7));
        QCOMPARE(qint64(*parseExactInteger("42.0")), qint64(42));
        QCOMPARE(qint64(*parseExactInteger("4.2e1")), qint64(42));
        QCOMPARE(qint64(*parseExactInteger("9223372036854775807")), qint64(9223372036854775807LL));
        QVERIFY(!parseExactInteger("42.5"));
        QVERIFY(!parseExactInteger("9223372036854775808"));
        QVERIFY(!parseExactInteger("1e30"));
    }

    void shortestDoubles()
    {
        QCOMPARE(tilescope::io::formatShortest(2.0), std::string("2"));
        QCOMPARE(tilescope::io::formatShortest(0.1), std::string("0.1"));
        QCOMPARE(tilescope::io::formatShortest(1234.5678), std::string("1234.5678"));
        QCOMPARE(tilescope::io::formatShortest(1e20), std::string("1e+20"));
    }
};

QTEST_APPLESS_MAIN(TestDecimal)
#include "tst_decimal.moc"
