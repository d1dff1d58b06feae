// SPDX-License-Identifier: MIT
// The roofline's device table: matching deviceProperties to a datasheet row, and measured ceilings.
#include "testutil.h"

#include "io/tracefileerror.h"
#include "roofline/ceilings.h"
#include "trace/traceloader.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace tilescope;

namespace {

trace::DeviceProperties device(const char* name, int64_t major, int64_t minor, int64_t sms, double memGiB)
{
    trace::DeviceProperties d;
    d.name = name;
    d.computeMajor = major;
    d.computeMinor = minor;
    d.numSms = sms;
    d.totalGlobalMem = int64_t(memGiB * double(1ull << 30));
    return d;
}

} // namespace

class TestCeilings : public QObject
{
    Q_OBJECT
private slots:
    void builtinTableCoversTheCommonParts()
    {
        const auto db = roofline::builtinDeviceDatabase();
        QVERIFY(db.size() >= 17);
        for (const auto& e : db) {
            QVERIFY2(e.peaks.memoryBytesPerS > 0 && e.peaks.fp32 > 0, e.id.c_str());
            QVERIFY2(!e.source.empty(), e.id.c_str());
        }
    }

    void matching_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("major");
        QTest::addColumn<int>("minor");
        QTest::addColumn<int>("sms");
        QTest::addColumn<double>("memGiB");
        QTest::addColumn<QString>("expected");
        QTest::newRow("H200") << "NVIDIA H200" << 9 << 0 << 132 << 139.8 << "H200 SXM";
        QTest::newRow("H100 SXM") << "NVIDIA H100 80GB HBM3" << 9 << 0 << 132 << 79.2 << "H100 SXM5";
        QTest::newRow("H100 PCIe") << "NVIDIA H100 PCIe" << 9 << 0 << 114 << 79.2 << "H100 PCIe";
        QTest::newRow("H100 NVL") << "NVIDIA H100 NVL" << 9 << 0 << 132 << 93.0 << "H100 NVL";
        QTest::newRow("A100 80GB") << "NVIDIA A100-SXM4-80GB" << 8 << 0 << 108 << 79.2 << "A100 SXM4 80GB";
        QTest::newRow("A100 40GB") << "NVIDIA A100-SXM4-40GB" << 8 << 0 << 108 << 39.4 << "A100 SXM4 40GB";
        QTest::newRow("A100 board name") << "NVIDIA A100-PG509-200" << 8 << 0 << 108 << 79.2 << "A100 SXM4 80GB";
        QTest::newRow("A100 PCIe") << "NVIDIA A100 80GB PCIe" << 8 << 0 << 108 << 79.2 << "A100 PCIe 80GB";
        QTest::newRow("A10 is not A100") << "NVIDIA A10" << 8 << 6 << 72 << 22.0 << "A10";
        QTest::newRow("L4 is not L40S") << "NVIDIA L4" << 8 << 9 << 58 << 22.0 << "L4";
        QTest::newRow("L40S") << "NVIDIA L40S" << 8 << 9 << 142 << 44.5 << "L40S";
        QTest::newRow("RTX 4090") << "NVIDIA GeForce RTX 4090" << 8 << 9 << 128 << 23.6 << "RTX 4090";
        QTest::newRow("RTX 3090") << "NVIDIA GeForce RTX 3090" << 8 << 6 << 82 << 23.6 << "RTX 3090";
        QTest::newRow("V100 DGXS") << "Tesla V100-DGXS-32GB" << 7 << 0 << 80 << 31.7 << "V100 SXM2";
        QTest::newRow("V100 PCIe") << "Tesla V100-PCIE-16GB" << 7 << 0 << 80 << 15.8 << "V100 PCIe";
        QTest::newRow("T4") << "Tesla T4" << 7 << 5 << 40 << 14.7 << "T4";
        QTest::newRow("B200") << "NVIDIA B200" << 10 << 0 << 148 << 178.0 << "B200";
    }
    void matching()
    {
        QFETCH(QString, name);
        QFETCH(int, major);
        QFETCH(int, minor);
        QFETCH(int, sms);
        QFETCH(double, memGiB);
        QFETCH(QString, expected);
        const auto db = roofline::builtinDeviceDatabase();
        const auto d = device(qPrintable(name), major, minor, sms, memGiB);
        const auto m = roofline::matchDevice(db, d);
        QVERIFY2(m.entry, m.notes.empty() ? "" : m.notes.back().c_str());
        QCOMPARE(QString::fromStdString(m.entry->id), expected);
    }

    void doubtsAndUnknownParts()
    {
        const auto db = roofline::builtinDeviceDatabase();
        const auto cut = roofline::matchDevice(db, device("NVIDIA H100 80GB HBM3", 9, 0, 114, 79.2));
        QVERIFY(cut.entry);
        QVERIFY(
            std::any_of(cut.notes.begin(), cut.notes.end(), [](const std::string& n) { return n.find("114 SMs") != std::string::npos; }));
        // A laptop part shares the desktop's number, not its peaks.
        QVERIFY(!roofline::matchDevice(db, device("NVIDIA GeForce RTX 4090 Laptop GPU", 8, 9, 76, 16.0)).entry);
        QVERIFY(!roofline::matchDevice(db, device("NVIDIA GeForce RTX 4090 D", 8, 9, 114, 24.0)).entry);
        QVERIFY(!roofline::matchDevice(db, device("NVIDIA GeForce RTX 3090 Ti", 8, 6, 84, 24.0)).entry);
        // A part the row's figures may not fit is said so, in a note of its own.
        const auto other = roofline::matchDevice(db, device("NVIDIA H200", 9, 1, 132, 139.8));
        QCOMPARE(other.notes.at(1), std::string("compute capability 9.1 differs from the row's 9.0: a different part?"));
        QCOMPARE(roofline::matchDevice(db, device("NVIDIA GeForce RTX 4090", 8, 9, 128, 24.0)).entry->id, std::string("RTX 4090"));
        const auto unknown = roofline::matchDevice(db, device("AMD Instinct MI300X", 9, 4, 304, 191.0));
        QVERIFY(!unknown.entry);
        QVERIFY(unknown.notes.back().find("unknown device") != std::string::npos);
        QVERIFY(unknown.notes.back().find("--ceilings") != std::string::npos);
    }

    // A GPU a user names: a row's id in any case and spacing, a name as deviceProperties gives it, or a shorter one;
    // a name several rows fit is ambiguous and they are all given.
    void rowsNamedByAUser_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("row id") << "A100 SXM4 40GB" << QStringList{"A100 SXM4 40GB"};
        QTest::newRow("id, other spelling") << "a100-sxm4-40gb" << QStringList{"A100 SXM4 40GB"};
        QTest::newRow("device name, 40 GB") << "NVIDIA A100-SXM4-40GB" << QStringList{"A100 SXM4 40GB"};
        QTest::newRow("device name, 80 GB") << "NVIDIA A100-SXM4-80GB" << QStringList{"A100 SXM4 80GB"};
        QTest::newRow("size apart") << "a100 sxm4 40 GB" << QStringList{"A100 SXM4 40GB"};
        QTest::newRow("size as G") << "A100 SXM4 40G" << QStringList{"A100 SXM4 40GB"};
        QTest::newRow("size as GiB") << "a100 pcie 80GiB" << QStringList{"A100 PCIe 80GB"};
        QTest::newRow("A100 alone") << "A100" << QStringList{"A100 PCIe 80GB", "A100 PCIe 40GB", "A100 SXM4 80GB", "A100 SXM4 40GB"};
        QTest::newRow("A100 by size") << "A100 40 GB" << QStringList{"A100 PCIe 40GB", "A100 SXM4 40GB"};
        QTest::newRow("board name, no size") << "NVIDIA A100-PG509-200" << QStringList{"A100 SXM4 80GB", "A100 SXM4 40GB"};
        QTest::newRow("H100 alone") << "h100" << QStringList{"H100 NVL", "H100 PCIe", "H100 SXM5"};
        QTest::newRow("H100 SXM") << "H100 SXM" << QStringList{"H100 SXM5"};
        QTest::newRow("H100 device name") << "NVIDIA H100 80GB HBM3" << QStringList{"H100 SXM5"};
        QTest::newRow("H100 PCIe") << "H100 PCIe" << QStringList{"H100 PCIe"};
        QTest::newRow("H200") << "NVIDIA H200" << QStringList{"H200 SXM"};
        QTest::newRow("number alone") << "4090" << QStringList{"RTX 4090"};
        QTest::newRow("A10 is not A100") << "a10" << QStringList{"A10"};
        QTest::newRow("L40 is not L40S") << "L40" << QStringList{};
        QTest::newRow("V100 by size") << "V100 16GB" << QStringList{"V100 PCIe", "V100 SXM2"};
        QTest::newRow("laptop part") << "RTX 4090 Laptop GPU" << QStringList{};
        QTest::newRow("Ti part") << "NVIDIA GeForce RTX 3090 Ti" << QStringList{};
        QTest::newRow("DGXS, a V100 SXM2") << "Tesla V100-DGXS-32GB" << QStringList{"V100 SXM2"};
        QTest::newRow("a MIG slice's name") << "NVIDIA A100-SXM4-40GB MIG 1g.5gb" << QStringList{"A100 SXM4 40GB"};
        QTest::newRow("laptop without rtx") << "4090 laptop" << QStringList{};
        QTest::newRow("one letter") << "t" << QStringList{};
        QTest::newRow("H200 NVL") << "NVIDIA H200 NVL" << QStringList{};
        QTest::newRow("unknown") << "MI300X" << QStringList{};
        QTest::newRow("empty") << " - " << QStringList{};
    }
    void rowsNamedByAUser()
    {
        QFETCH(QString, name);
        QFETCH(QStringList, expected);
        const auto db = roofline::builtinDeviceDatabase();
        QStringList rows;
        for (const roofline::DeviceEntry* row : roofline::deviceRowsNamed(db, name.toStdString()))
            rows << QString::fromStdString(row->id);
        QCOMPARE(rows, expected);
        const std::string problem = roofline::gpuNameProblem(db, name.toStdString());
        if (expected.isEmpty())
            QVERIFY(problem.find("no datasheet row for the GPU") != std::string::npos
                    && problem.find("H100 NVL, H100 PCIe") != std::string::npos);
        if (name == "RTX 4090 Laptop GPU" || name == "4090 laptop")
            QVERIFY2(problem.find("(not the RTX 4090 row: 'laptop' names another part)") != std::string::npos, problem.c_str());
        if (name == "NVIDIA H200 NVL")
            QVERIFY2(problem.find("(not the H200 SXM row: 'nvl' names another part)") != std::string::npos, problem.c_str());
        if (expected.size() > 1)
            QVERIFY(problem.find("fits several datasheet rows (" + expected.join(QStringLiteral(", ")).toStdString() + ")")
                    != std::string::npos);
        else if (expected.size() == 1)
            QVERIFY(problem.empty());
    }

    // The trace's own GPU stands against a choice that names it; a choice of another, or an ambiguous one for a trace
    // that names none, is an error; measured ceilings follow the trace's name, else the chosen row.
    void choiceAgainstTheTrace()
    {
        const auto db = roofline::builtinDeviceDatabase();
        const auto a100 = device("NVIDIA A100-PG509-200", 8, 0, 108, 39.4);
        const auto own = roofline::resolveGpu(db, &a100, "NVIDIA A100-PG509-200"); // fits two rows, the trace's among them
        QVERIFY(own.error.empty() && !own.chosen);
        QCOMPARE(own.entry->id, std::string("A100 SXM4 40GB"));
        QVERIFY(roofline::resolveGpu(db, &a100, "A100").error.empty());
        QVERIFY(roofline::resolveGpu(db, &a100, "H100 SXM").error.find("which 'H100 SXM' does not name") != std::string::npos);
        QVERIFY(roofline::resolveGpu(db, nullptr, "A100").error.find("fits several datasheet rows") != std::string::npos);
        const auto gh200 = device("NVIDIA GH200 480GB", 9, 0, 132, 95.0);
        const auto chosen = roofline::resolveGpu(db, &gh200, "H200");
        QVERIFY(chosen.chosen);
        QCOMPARE(chosen.notes,
                 std::vector<std::string>{"'NVIDIA GH200 480GB' has no datasheet row; the GPU chosen for it: the H200 SXM datasheet row "
                                          "(from 'H200')"});
        // What the trace says of its GPU against the chosen row: differences are doubts about the choice.
        const auto doubted = roofline::resolveGpu(db, &gh200, "A100 SXM4 80GB");
        QVERIFY(doubted.chosen);
        QCOMPARE(doubted.notes.back(),
                 std::string("the trace's GPU has compute capability 9.0 against the row's 8.0 and 132 SMs against the "
                             "row's 108: did it run on the A100 SXM4 80GB?"));
        roofline::MeasuredCeilings m;
        m.gpu = "NVIDIA GH200 480GB";
        QVERIFY(roofline::measuredApplies(m, gh200.name, chosen.entry, db)); // the trace's name decides
        m.gpu = "NVIDIA H200";
        QVERIFY(!roofline::measuredApplies(m, gh200.name, chosen.entry, db));
        QVERIFY(roofline::measuredApplies(m, "", chosen.entry, db)); // no name in the trace: the chosen row decides
        m.gpu = "NVIDIA A100-SXM4-40GB";
        QVERIFY(!roofline::measuredApplies(m, "", chosen.entry, db));
        m.gpu.clear();
        QVERIFY(roofline::measuredApplies(m, "", chosen.entry, db));
    }

    void traceDevices()
    {
        const auto db = roofline::builtinDeviceDatabase();
        const auto h200 = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        const auto m = roofline::matchDevice(db, h200->meta.devices.at(0));
        QCOMPARE(m.entry->id, std::string("H200 SXM"));
        QCOMPARE(m.entry->peaks.memoryBytesPerS, 4.8e12);
        QCOMPARE(m.entry->peaks.bf16, 989.4e12);
        QCOMPARE(m.notes.size(), size_t(1)); // CC 9.0 and 132 SMs agree
        const auto v100 = trace::loadTrace(testutil::dataPath("external/tb_plugin/resnet50_v100_worker0.pt.trace.json.gz"));
        QCOMPARE(roofline::matchDevice(db, v100->meta.devices.at(0)).entry->id, std::string("V100 SXM2"));
    }

    void measuredCeilingsOverride()
    {
        const auto measured = roofline::loadMeasuredCeilings(testutil::dataPath("h200/calibration/calibration.json"));
        QCOMPARE(measured.gpu, std::string("NVIDIA H200"));
        QVERIFY(measured.memoryBytesPerS && std::abs(*measured.memoryBytesPerS - 4.2173679e12) < 1e6);
        QVERIFY(!measured.fp16);
        const auto db = roofline::builtinDeviceDatabase();
        const auto h200 = std::find_if(db.begin(), db.end(), [](const auto& e) { return e.id == "H200 SXM"; });
        const auto c = roofline::applyMeasured(h200->peaks, measured);
        QVERIFY(std::abs(c.bf16 - 775.142456986898e12) < 1e3);
        QVERIFY(std::abs(c.fp32 - 50.6751641739578e12) < 1e3);
        QCOMPARE(c.fp16, 989.4e12); // not measured: the datasheet stays
    }

    void badCeilingFiles()
    {
        QTemporaryDir dir;
        auto write = [&](const char* name, const char* text) {
            const std::string path = dir.path().toStdString() + "/" + name;
            std::ofstream(path) << text;
            return path;
        };
        for (const auto& [file, text, problem] : {std::tuple{"notjson.json", "copy = 4", "expected a JSON value"},
                                                  {"array.json", "[1, 2]", "expected a JSON object"},
                                                  {"negative.json", "{\"copy_bytes_per_s\": -1}", "must be a positive number"},
                                                  {"nokeys.json", "{\"gpu\": \"x\"}", "no known ceiling keys"}}) {
            const std::string path = write(file, text);
            try {
                roofline::loadMeasuredCeilings(path);
                QFAIL("no error");
            } catch (const io::TraceFileError& e) {
                QVERIFY2(std::string(e.what()).find(path) == 0, e.what());
                QVERIFY2(std::string(e.what()).find(problem) != std::string::npos, e.what());
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestCeilings)
#include "tst_ceilings.moc"
