// SPDX-License-Identifier: MIT
#include "io/codepoints.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"

#include <QtTest>

#include <cmath>

using namespace tilescope::stats;

class TestTorchTable : public QObject
{
    Q_OBJECT
private slots:
    void timeThresholds()
    {
        QCOMPARE(formatTorchTime(0), std::string("0.000us"));
        QCOMPARE(formatTorchTime(999.9995), std::string("1000.000us")); // threshold tests the unrounded value
        QCOMPARE(formatTorchTime(999.9994), std::string("999.999us"));
        QCOMPARE(formatTorchTime(1000), std::string("1.000ms"));
        QCOMPARE(formatTorchTime(999999.9), std::string("1000.000ms"));
        QCOMPARE(formatTorchTime(1e6), std::string("1.000s"));
        QCOMPARE(formatTorchTime(-2.5), std::string("-2.500us"));
        QCOMPARE(formatTorchTime(1500, std::string("us")), std::string("1500.000us"));
        QCOMPARE(formatTorchTime(1500, std::string("s")), std::string("0.002s"));
    }
    void nanosecondTimeTexts()
    {
        QCOMPARE(formatDuration(812000), std::string("812.000us"));
        QCOMPARE(formatDuration(1250000), std::string("1.250ms"));
        QCOMPARE(formatDuration(2000000000), std::string("2.000s"));
        QCOMPARE(formatMicroseconds(0), std::string("0.000"));
        QCOMPARE(formatMicroseconds(1500), std::string("1.500"));
        QCOMPARE(formatMicroseconds(-7), std::string("-0.007"));
        QCOMPARE(formatMicroseconds(5349368629953311), std::string("5349368629953.311"));
        // Past 2^53 ns a double cannot hold every ns: formatFixed(ns / 1000.0, 3) gave "...740.992" here.
        QCOMPARE(formatMicroseconds(9007199254740993), std::string("9007199254740.993"));
    }
    void roundHalfEven()
    {
        // Python rounds the exact binary value: 0.125 is exact and ties to even; 1.0005 lies just below its tie.
        QCOMPARE(formatFixed(0.125, 2), std::string("0.12"));
        QCOMPARE(formatFixed(0.375, 2), std::string("0.38"));
        QCOMPARE(formatFixed(0.0105, 3), std::string("0.011"));
        QCOMPARE(formatFixed(1.0005, 3), std::string("1.000"));
        QCOMPARE(formatFixed(2.675, 2), std::string("2.67"));
    }
    void percent()
    {
        QCOMPARE(formatTorchPercent(1, 3), std::string("33.33%"));
        QCOMPARE(formatTorchPercent(0, 0), std::string("NaN"));
        QCOMPARE(formatTorchPercent(-1, 8), std::string("-12.50%"));
    }
    void memory()
    {
        QCOMPARE(formatTorchMemory(1023), std::string("1023 B"));
        QCOMPARE(formatTorchMemory(1024), std::string("1.00 KB"));
        QCOMPARE(formatTorchMemory(-1024), std::string("-1.00 KB"));
        QCOMPARE(formatTorchMemory(-201326592), std::string("-192.00 MB"));
        QCOMPARE(formatTorchMemory(int64_t(6.25 * 1024 * 1024 * 1024)), std::string("6.25 GB"));
        QCOMPARE(formatTorchMemory(0), std::string("0 B"));
        QCOMPARE(formatTorchMemory(2048, MemoryUnitStyle::Legacy), std::string("2.00 Kb"));
        QCOMPARE(formatTorchMemory(5, MemoryUnitStyle::Legacy), std::string("5 b"));
    }
    void codePoints()
    {
        QCOMPARE(tilescope::io::codePointCount("abc"), size_t(3));
        QCOMPARE(tilescope::io::codePointCount("\xc3\xa9\xe4\xb8\xad"), size_t(2));
    }

    void flopsScaleAndColumns()
    {
        KeyAverages a;
        a.withFlops = true;
        a.useDevice = true;
        KeyAverage mm;
        mm.key = "aten::mm";
        mm.count = 20;
        mm.cpuTimeTotal = mm.selfCpuTimeTotal = 10;
        mm.deviceTimeTotal = mm.selfDeviceTimeTotal = 0;
        mm.flops = 20ull * 137438953472ull;
        KeyAverage mul = mm;
        mul.key = "aten::mul";
        mul.flops = 25165824; // the smallest positive total picks the unit: MFLOPs
        KeyAverage none = mm;
        none.key = "aten::relu";
        none.flops = 0;
        a.rows = {mm, mul, none};
        TorchTableOptions options;
        options.rowLimit = -1;
        const std::string table = renderTorchTable(a, options);
        QVERIFY(table.find("Total MFLOPs") != std::string::npos);
        QVERIFY(table.find("2748779.069") != std::string::npos);
        QVERIFY(table.find("  25.166  ") != std::string::npos);
        QVERIFY(table.find("          --  ") != std::string::npos);
        QVERIFY(table.find("Self CUDA") == std::string::npos); // no row has device time
        options.rowLimit = 1;
        const std::string limited = renderTorchTable(a, options);
        QVERIFY(limited.find("aten::mul") == std::string::npos);
        QVERIFY(limited.find("Self CPU time total: 30.000us") != std::string::npos); // footers count every row
        // The rule both tables follow: the columns found from the rows, not only the recording's options.
        TorchTableColumns columns = torchTableColumnsOf(a);
        QVERIFY(!columns.deviceTime);
        QCOMPARE(columns.flops.header, std::string("Total MFLOPs"));
        QCOMPARE(formatTorchFlops(mul.flops, columns.flops), std::string("25.166"));
        QCOMPARE(formatTorchFlops(0, columns.flops), std::string("--"));
        for (KeyAverage& row : a.rows)
            row.flops = 0;
        a.profileMemory = true;
        columns = torchTableColumnsOf(a);
        QVERIFY(columns.flops.header.empty()); // with_flops, but no row has any
        QVERIFY(columns.memory);
        QVERIFY(!columns.deviceMemory); // profile_memory, but no row has device memory
        QVERIFY(renderTorchTable(a, options).find("FLOPs") == std::string::npos);
        a.rows[0].selfDeviceMemoryUsage = 512;
        QVERIFY(torchTableColumnsOf(a).deviceMemory);
    }

    void longNamesAreCut()
    {
        KeyAverages a;
        KeyAverage r;
        r.key = std::string(100, 'k');
        r.count = 1;
        a.rows = {r};
        TorchTableOptions options;
        options.maxNameColumnWidth = 80;
        const std::string table = renderTorchTable(a, options);
        QVERIFY(table.find(std::string(77, 'k') + "...  ") != std::string::npos);
        QVERIFY(table.find(std::string(78, 'k')) == std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestTorchTable)
#include "tst_torchtable.moc"
