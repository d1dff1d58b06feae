// SPDX-License-Identifier: MIT
#include "io/decimal.h"

#include <QtTest>

#include <limits>
#include <random>
#include <string>

using tilescope::io::parseExactInteger;
using tilescope::io::parseMicrosecondsAsNanoseconds;

__extension__ typedef __int128 Wide; // exact arithmetic past int64, for the checks

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
        QTest::newRow("two decimals") << "12.25" << qint64(12250);
        QTest::newRow("15 integer digits") << "999999999999999" << qint64(999999999999999000);
        QTest::newRow("16 integer digits") << "9223372036854775" << qint64(9223372036854775000);
        QTest::newRow("the largest") << "9223372036854775.807" << qint64(9223372036854775807);
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
        QVERIFY(!parseMicrosecondsAsNanoseconds("9223372036854775.808"));
        QVERIFY(!parseMicrosecondsAsNanoseconds("12a"));
        QVERIFY(!parseMicrosecondsAsNanoseconds("1.5x"));
    }

    // Every shape of unsigned number a trace writes, against exact arithmetic: the digits shifted by
    // `shift`, rounded half up on the first dropped digit, nothing when the result leaves int64.
    void agreesWithExactArithmetic()
    {
        std::mt19937_64 random(7);
        for (int shift : {0, 3, 6, 9}) {
            for (int round = 0; round < 100000; ++round) {
                const int intDigits = 1 + int(random() % 19), fracDigits = int(random() % 12);
                std::string digits;
                for (int k = 0; k < intDigits + fracDigits; ++k)
                    digits += char('0' + (k == 0 && intDigits > 1 ? 1 + random() % 9 : random() % 10));
                const std::string text = digits.substr(0, size_t(intDigits)) + (fracDigits ? "." + digits.substr(size_t(intDigits)) : "");
                Wide expected = 0;
                const int kept = intDigits + shift;
                for (int k = 0; k < kept; ++k)
                    expected = expected * 10 + (k < intDigits + fracDigits ? digits[size_t(k)] - '0' : 0);
                if (kept < intDigits + fracDigits && digits[size_t(kept)] >= '5')
                    ++expected;
                const auto v = tilescope::io::parseScaledDecimal(text, shift);
                const std::string what = text + " shift " + std::to_string(shift);
                if (expected > std::numeric_limits<int64_t>::max()) {
                    QVERIFY2(!v, what.c_str());
                } else {
                    QVERIFY2(v, what.c_str());
                    QVERIFY2(*v == int64_t(expected), what.c_str());
                }
            }
        }
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
