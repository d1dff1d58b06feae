// SPDX-License-Identifier: MIT
// prof.export_memory_timeline's two forms: the [times, sizes] JSON (train_scheduled) and the raw records
// (HTA's sample), each checked row by row against the file read independently with Qt's JSON parser, the
// documented figures of trace-format.md §11.2, and wrong shapes.
#include "io/tracefileerror.h"
#include "memory/epochtime.h"
#include "memory/memorytimeline.h"
#include "report/snapshotreport.h"
#include "testutil.h"
#include "trace/traceloader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <map>
#include <variant>
#include <zlib.h>

using namespace tilescope;

namespace {

const std::string kSizes = "h200/train_scheduled/memory_timeline.json.gz";
const std::string kRaw = "memory/hta_memory_timeline.raw.json.gz";

// The file's JSON through Qt (gzip inflated by zlib here): the independent reading the tests compare with.
QJsonArray readWithQt(const std::string& path)
{
    gzFile f = gzopen(path.c_str(), "rb");
    QByteArray data;
    char buffer[1 << 16];
    for (int n; (n = gzread(f, buffer, sizeof buffer)) > 0;)
        data.append(buffer, n);
    gzclose(f);
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(data, &error);
    if (error.error != QJsonParseError::NoError)
        qFatal("%s: %s", path.c_str(), qPrintable(error.errorString()));
    return doc.array();
}

std::string timelineError(const std::string& json)
{
    try {
        memory::memoryTimelineFromBytes(json, "t.json");
    } catch (const io::TraceFileError& e) {
        return e.what();
    }
    return "(no error)";
}

using testutil::contains;
QJsonValue at(const QJsonValue& v, std::initializer_list<std::variant<const char*, int>> path) { return testutil::jsonAt(v, path); }

} // namespace

class TestMemoryTimeline : public QObject
{
    Q_OBJECT
private slots:
    void categoriesAndColours()
    {
        const std::vector<std::tuple<std::string, std::string, std::string>> expected{{"PARAMETER", "darkgreen", "#006400"},
                                                                                      {"OPTIMIZER_STATE", "goldenrod", "#daa520"},
                                                                                      {"INPUT", "black", "#000000"},
                                                                                      {"TEMPORARY", "mediumpurple", "#9370db"},
                                                                                      {"ACTIVATION", "red", "#ff0000"},
                                                                                      {"GRADIENT", "mediumblue", "#0000cd"},
                                                                                      {"AUTOGRAD_DETAIL", "royalblue", "#4169e1"},
                                                                                      {"unknown", "grey", "#808080"}};
        QCOMPARE(expected.size(), memory::kMemoryCategoryCount);
        for (size_t c = 0; c < expected.size(); ++c) {
            const auto& info = memory::memoryCategoryInfo(c);
            QCOMPARE(std::string(info.name), std::get<0>(expected[c]));
            QCOMPARE(std::string(info.colourName), std::get<1>(expected[c]));
            QCOMPARE(std::string(info.colour), std::get<2>(expected[c]));
        }
    }

    void sizesForm()
    {
        const std::string path = testutil::dataPath(kSizes);
        const auto t = memory::loadMemoryTimeline(path);
        QCOMPARE(t.form, memory::MemoryTimelineForm::Sizes);
        QCOMPARE(t.size(), size_t(1590));
        // §11.2: parameters 96.1 MiB, AdamW state twice that, the 8 MiB input, 512 B unknown.
        QCOMPARE(t.rows[0], (memory::CategoryBytes{100769792, 201539584, 8388608, 0, 0, 0, 0, 512}));
        const auto qt = readWithQt(path);
        const QJsonArray times = qt[0].toArray(), sizes = qt[1].toArray();
        QCOMPARE(size_t(times.size()), t.size());
        int64_t peak = 0;
        for (size_t i = 0; i < t.size(); ++i) {
            QCOMPARE(t.timesUs[i], times[qsizetype(i)].toInteger());
            const QJsonArray row = sizes[qsizetype(i)].toArray();
            QCOMPARE(row.size(), 9);
            QCOMPARE(row[0].toInteger(), qint64(0));
            int64_t sum = 0;
            for (size_t c = 0; c < 8; ++c) {
                QCOMPARE(t.rows[i][c], row[qsizetype(c + 1)].toInteger());
                sum += row[qsizetype(c + 1)].toInteger();
            }
            QCOMPARE(t.totalBytes(i), sum);
            peak = std::max(peak, sum);
        }
        const auto p = memory::peakTotal(t);
        QCOMPARE(p.bytes, peak);
        QCOMPARE(p.bytes, int64_t(974724608)); // §11.2
        QCOMPARE(p.timeUs, t.timesUs[p.row]);
        QVERIFY(p.row == 0 || t.totalBytes(p.row - 1) < p.bytes || t.timesUs[p.row - 1] == p.timeUs);
        for (size_t i = 0; i < p.row; ++i)
            QVERIFY(t.totalBytes(i) < p.bytes); // the first row that reaches the peak
        QCOMPARE(memory::peakOfCategory(t, 0).bytes, int64_t(100769792));

        // On the trace's clock (§3.4): relative 5 349 375 863 789 µs, inside the trace's window.
        const auto trace = trace::loadTrace(testutil::workloadTrace("train_scheduled"));
        QVERIFY(trace->meta.baseTimeNs);
        QCOMPARE(memory::epochMicrosecondsToTraceNs(t.timesUs.front(), trace->meta.baseTimeNs), int64_t(5349375863789000));
        const int64_t last = memory::epochMicrosecondsToTraceNs(t.timesUs.back(), trace->meta.baseTimeNs);
        QVERIFY(last > trace->firstTime() && last <= trace->lastTime());
    }

    void rawForm()
    {
        const std::string path = testutil::dataPath(kRaw);
        const auto t = memory::loadMemoryTimeline(path);
        QCOMPARE(t.form, memory::MemoryTimelineForm::Raw);
        QCOMPARE(t.rawRecordCount, uint64_t(16845)); // §11.2
        QCOMPARE(t.rawActionCounts, (std::array<uint64_t, 4>{645, 3345, 9510, 3345}));
        QVERIFY(t.rawTimesWereNanoseconds);

        // Independently: Qt reads the records; sorted by time, floored to µs, one row per distinct time, each
        // the running sum per category (torch's _coalesce_timeline).
        const QJsonArray records = readWithQt(path);
        QCOMPARE(records.size(), 16845);
        std::vector<std::array<qint64, 4>> sorted;
        for (const auto& r : records) {
            const QJsonArray a = r.toArray();
            sorted.push_back({a[0].toInteger(), a[1].toInteger(), a[2].toInteger(), a[3].toInteger()});
        }
        std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a[0] < b[0]; });
        std::vector<qint64> times;
        std::vector<memory::CategoryBytes> rows;
        std::map<int64_t, int64_t> finalPerCategory;
        for (const auto& r : sorted) {
            const qint64 time = r[0] < 0 ? r[0] : r[0] / 1000;
            if (times.empty() || times.back() != time) {
                times.push_back(time);
                rows.push_back(rows.empty() ? memory::CategoryBytes{} : rows.back());
            }
            rows.back()[size_t(r[3])] += r[2];
            finalPerCategory[r[3]] += r[2];
        }
        const qint64 smallest = *std::find_if(times.begin(), times.end(), [](qint64 x) { return x >= 0; });
        std::replace(times.begin(), times.end(), qint64(-1), smallest);
        QCOMPARE(t.size(), times.size());
        QCOMPARE(t.size(), size_t(7717)); // what torch's own algorithm gives in Python for this file
        for (size_t i = 0; i < t.size(); ++i) {
            QCOMPARE(t.timesUs[i], times[i]);
            QCOMPARE(t.rows[i], rows[i]);
        }
        for (const auto& [category, bytes] : finalPerCategory)
            QCOMPARE(t.rows.back()[size_t(category)], bytes);
        QCOMPARE(memory::peakTotal(t).bytes, int64_t(3082832104));
        QCOMPARE(memory::peakTotal(t).row, size_t(762));
    }

    void smallFixtures()
    {
        const auto sizes = memory::loadMemoryTimeline(testutil::dataPath("memory/memory_timeline.json"));
        QCOMPARE(sizes.form, memory::MemoryTimelineForm::Sizes);
        QCOMPARE(sizes.size(), size_t(40));
        const auto full = memory::loadMemoryTimeline(testutil::dataPath(kSizes));
        for (size_t i = 0; i < 40; ++i) { // the first 40 samples of train_scheduled's
            QCOMPARE(sizes.timesUs[i], full.timesUs[i]);
            QCOMPARE(sizes.rows[i], full.rows[i]);
        }
        const auto raw = memory::loadMemoryTimeline(testutil::dataPath("memory/memory_timeline.raw.json.gz"));
        QCOMPARE(raw.form, memory::MemoryTimelineForm::Raw);
        QCOMPARE(raw.rawRecordCount, uint64_t(80));
        const QJsonArray records = readWithQt(testutil::dataPath("memory/memory_timeline.raw.json.gz"));
        int64_t total = 0;
        for (const auto& r : records)
            total += r.toArray()[2].toInteger();
        QCOMPARE(raw.totalBytes(raw.size() - 1), total);
        // Pre-existing records (-1) sit at the smallest real time.
        QVERIFY(std::all_of(raw.timesUs.begin(), raw.timesUs.end(), [](int64_t x) { return x > 0; }));
    }

    // train_scheduled's own timeline reaches into its trace; HTA's, from another run, does not and is said so.
    void timelineOfAnotherRunIsRefused()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("train_scheduled"));
        const auto own = memory::loadMemoryTimeline(testutil::dataPath(kSizes));
        QVERIFY(memory::timelineOutsideTraceText(own, t->firstTime(), t->lastTime(), t->meta.baseTimeNs).empty());
        const auto other = memory::loadMemoryTimeline(testutil::dataPath(kRaw));
        const std::string why = memory::timelineOutsideTraceText(other, t->firstTime(), t->lastTime(), t->meta.baseTimeNs);
        QVERIFY2(why.find("does not reach into the trace's time span") != std::string::npos, why.c_str());
        QVERIFY(why.starts_with(testutil::dataPath(kRaw)));
        // One microsecond of overlap at either end is enough.
        memory::MemoryTimeline edge;
        edge.timesUs = {1, 5};
        QVERIFY(memory::timelineOutsideTraceText(edge, 5000, 9000, std::nullopt).empty());
        QVERIFY(memory::timelineOutsideTraceText(edge, -3000, 1000, std::nullopt).empty());
        QVERIFY(!memory::timelineOutsideTraceText(edge, 5001, 9000, std::nullopt).empty());
        QVERIFY(!memory::timelineOutsideTraceText(edge, 5000, 9000, int64_t(1)).empty()); // 4999 ns on that clock
        QVERIFY(!memory::timelineOutsideTraceText(memory::MemoryTimeline{}, 0, 1, std::nullopt).empty());
    }

    void edgeShapesThatAreValid()
    {
        QCOMPARE(memory::memoryTimelineFromBytes("[]", "t").form, memory::MemoryTimelineForm::Raw);
        QCOMPARE(memory::memoryTimelineFromBytes("[]", "t").size(), size_t(0));
        const auto empty = memory::memoryTimelineFromBytes("[[], []]", "t");
        QCOMPARE(empty.form, memory::MemoryTimelineForm::Sizes);
        QCOMPARE(memory::peakTotal(empty).row, SIZE_MAX);
        const auto one = memory::memoryTimelineFromBytes("[[5, 1, 100, 0]]", "t");
        QCOMPARE(one.form, memory::MemoryTimelineForm::Raw);
        QCOMPARE(one.rows[0][0], int64_t(100));
        QVERIFY(!one.rawTimesWereNanoseconds); // small times are µs already
        const auto preexisting = memory::memoryTimelineFromBytes("[[-1, 1, 10, 7], [20, 2, 5, 3], [20, 4, -10, 7]]", "t");
        QCOMPARE(preexisting.timesUs, (std::vector<int64_t>{20, 20}));
        QCOMPARE(preexisting.rows[1], (memory::CategoryBytes{0, 0, 0, 5, 0, 0, 0, 0}));
        const auto sizes = memory::memoryTimelineFromBytes("[[1, 2], [[0, 1, 0, 0, 0, 0, 0, 0, 0], [0, 2, 0, 0, 0, 0, 0, 0, 3]]]", "t");
        QCOMPARE(sizes.form, memory::MemoryTimelineForm::Sizes);
        QCOMPARE(sizes.totalBytes(1), int64_t(5));
    }

    void wrongShapes_data()
    {
        QTest::addColumn<std::string>("json");
        QTest::addColumn<std::string>("message");
        QTest::newRow("object") << std::string("{\"traceEvents\": []}") << std::string("not a memory timeline: expected a JSON array");
        QTest::newRow("array of objects") << std::string("[{\"ph\": \"X\"}]")
                                          << std::string("not a memory timeline: expected an array as the first element");
        QTest::newRow("text times") << std::string("[[\"a\"], []]") << std::string("expected an integer for the first element's values");
        QTest::newRow("fraction") << std::string("[[1.5], []]")
                                  << std::string("expected an integer for the first element's values, found 1.5");
        QTest::newRow("short row") << std::string("[[1], [[0, 1, 2, 3, 4, 5, 6, 7]]]")
                                   << std::string("row 0 of sizes has 8 values, expected 9");
        QTest::newRow("row not array") << std::string("[[1], [5, [0]]]") << std::string("record 1");
        QTest::newRow("row of objects") << std::string("[[1], [{}]]") << std::string("expected '[' for row 0 of sizes, found '{'");
        QTest::newRow("count mismatch") << std::string("[[1, 2], [[0, 0, 0, 0, 0, 0, 0, 0, 0]]]")
                                        << std::string("2 times but 1 rows of sizes");
        QTest::newRow("third element") << std::string("[[1], [[0, 0, 0, 0, 0, 0, 0, 0, 0]], []]")
                                       << std::string("it has more than two elements");
        QTest::newRow("decreasing") << std::string("[[2, 1], [[0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0]]]")
                                    << std::string("times[1] = 1 is before times[0] = 2");
        QTest::newRow("record of 3") << std::string("[[1, 2, 3], [1, 2, 3, 4]]") << std::string("record 0 has 3 values, expected 4");
        QTest::newRow("action 5") << std::string("[[1, 5, 3, 4]]") << std::string("record 0: action 5 is not 1..4");
        QTest::newRow("category 8") << std::string("[[1, 2, 3, 4], [1, 2, 3, 8]]") << std::string("record 1: category 8 is not 0..7");
        QTest::newRow("timestamp -2") << std::string("[[-2, 2, 3, 4]]") << std::string("timestamp -2");
        QTest::newRow("record of objects") << std::string("[[1, 2, 3, 4], {}]")
                                           << std::string("expected '[' for the second element, found '{'");
        QTest::newRow("third record object") << std::string("[[1, 2, 3, 4], [1, 2, 3, 4], {}]")
                                             << std::string("expected '[' for record 2, found '{'");
        QTest::newRow("truncated") << std::string("[[1, 2], [[0, 0, 0") << std::string("t.json: byte ");
        QTest::newRow("trailing") << std::string("[[1, 1, 1, 1]] x") << std::string("t.json: byte ");
        QTest::newRow("huge int") << std::string("[[1, 1, 99999999999999999999, 1]]")
                                  << std::string("expected an integer for the first element's values, found 99999999999999999999");
    }
    void wrongShapes()
    {
        QFETCH(std::string, json);
        QFETCH(std::string, message);
        const std::string e = timelineError(json);
        QVERIFY2(e.starts_with("t.json: "), e.c_str());
        QVERIFY2(contains(e, message), e.c_str());
        QVERIFY(e.find('\n') == std::string::npos);
    }

    void report()
    {
        const std::string path = testutil::dataPath(kSizes);
        QCOMPARE(report::detectMemoryFile(path), report::MemoryFileKind::MemoryTimeline);
        QCOMPARE(report::detectMemoryFile(testutil::dataPath(kRaw)), report::MemoryFileKind::MemoryTimeline);
        const auto t = memory::loadMemoryTimeline(path);
        const QJsonObject j = QJsonDocument::fromJson(QByteArray::fromStdString(report::memoryFileReport(path, "json"))).object();
        QCOMPARE(j["form"].toString(), QStringLiteral("sizes"));
        QCOMPARE(j["rows"].toInt(), 1590);
        QCOMPARE(j["first_time_us"].toInteger(), t.timesUs.front());
        QCOMPARE(j["last_time_us"].toInteger(), t.timesUs.back());
        QCOMPARE(j["peak_total_bytes"].toInteger(), qint64(974724608));
        QCOMPARE(j["peak_total_time_us"].toInteger(), memory::peakTotal(t).timeUs);
        QCOMPARE(j["final_total_bytes"].toInteger(), t.totalBytes(t.size() - 1));
        const QJsonArray categories = j["categories"].toArray();
        QCOMPARE(categories.size(), 8);
        QCOMPARE(at(categories, {1, "name"}).toString(), QStringLiteral("OPTIMIZER_STATE"));
        QCOMPARE(at(categories, {1, "color"}).toString(), QStringLiteral("#daa520"));
        QCOMPARE(at(categories, {1, "torch_color"}).toString(), QStringLiteral("goldenrod"));
        for (int c = 0; c < 8; ++c) {
            QCOMPARE(at(categories, {c, "peak_bytes"}).toInteger(), memory::peakOfCategory(t, size_t(c)).bytes);
            QCOMPARE(at(categories, {c, "final_bytes"}).toInteger(), t.rows.back()[size_t(c)]);
        }
        QVERIFY(!j.contains("raw_records"));
        const QJsonObject raw
            = QJsonDocument::fromJson(QByteArray::fromStdString(report::memoryFileReport(testutil::dataPath(kRaw), "json"))).object();
        QCOMPARE(at(raw, {"form"}).toString(), QStringLiteral("raw"));
        QCOMPARE(at(raw, {"raw_records"}).toInt(), 16845);
        QCOMPARE(at(raw, {"raw_actions", "INCREMENT_VERSION"}).toInt(), 9510);
        const std::string text = report::memoryFileReport(path, "table");
        for (const char* part : {"rows:       1,590", "peak total: ", "(974,724,608 B)", "OPTIMIZER_STATE  goldenrod"})
            QVERIFY2(contains(text, part), text.c_str());
        const std::string rawText = report::memoryFileReport(testutil::dataPath(kRaw), "table");
        QVERIFY2(contains(rawText, "records:    16,845 (PREEXISTING 645, CREATE 3,345, INCREMENT_VERSION 9,510, DESTROY 3,345)"),
                 rawText.c_str());
    }
};

QTEST_GUILESS_MAIN(TestMemoryTimeline)
#include "tst_memorytimeline.moc"
