// SPDX-License-Identifier: MIT
#include "stats/bytestext.h"

#include <QtTest>

#include <cstdint>
#include <limits>

using namespace tilescope;

class TestBytesText : public QObject
{
    Q_OBJECT
private slots:
    void binaryUnits()
    {
        QCOMPARE(stats::formatBytes(0), std::string("0 B"));
        QCOMPARE(stats::formatBytes(1023), std::string("1023 B"));
        QCOMPARE(stats::formatBytes(1024), std::string("1.00 KiB"));
        QCOMPARE(stats::formatBytes(1536), std::string("1.50 KiB"));
        QCOMPARE(stats::formatBytes(905969664), std::string("864.0 MiB")); // memory_churn's peak allocated
        QCOMPARE(stats::formatBytes(2151677952), std::string("2.00 GiB")); // and its peak reserved
        QCOMPARE(stats::formatBytes(int64_t(64) << 20), std::string("64.0 MiB"));
    }
    void roundingNeverPrintsFourDigits()
    {
        QCOMPARE(stats::formatBytes(1024 * 1024 - 1), std::string("1.00 MiB"));
        QCOMPARE(stats::formatBytes(1000 * 1024), std::string("0.98 MiB")); // not "1000.0 KiB"
        QCOMPARE(stats::formatBytes(999 * 1024), std::string("999.0 KiB"));
    }
    void negativeAndExtremes()
    {
        QCOMPARE(stats::formatBytes(-(int64_t(3) << 30)), std::string("-3.00 GiB"));
        QCOMPARE(stats::formatBytes(-5), std::string("-5 B"));
        QCOMPARE(stats::formatBytes(std::numeric_limits<int64_t>::max()), std::string("8.00 EiB"));
        QCOMPARE(stats::formatBytes(std::numeric_limits<int64_t>::min()), std::string("-8.00 EiB"));
    }
};

QTEST_APPLESS_MAIN(TestBytesText)
#include "tst_bytestext.moc"
