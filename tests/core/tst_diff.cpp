// SPDX-License-Identifier: MIT
// `tilescope-cli diff` against the two `summary` outputs it must equal: every row's before and after are the
// summary rows, every delta their difference, added/removed the keys on one side only.
#include "testutil.h"

#include "analysis/steps.h"
#include "io/smalljson.h"
#include "io/textfile.h"
#include "report/diffreport.h"
#include "stats/keyaverages.h"
#include "stats/keyaveragesdiff.h"
#include "trace/traceloader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

namespace {

using Run = testutil::ProcessRun;

Run cli(const QStringList& arguments) { return testutil::runProcess(QStringLiteral(TILESCOPE_CLI), arguments); }

QString data(const char* relative) { return QString::fromStdString(testutil::dataPath(relative)); }

// HTA's trace_diff pair is over 1 MB a file; two small H200 traces of tests/data instead: 200 tiny negations
// a step (before) against one large GEMM beside two elementwise kernels (after). Both have ops and kernels
// the other lacks, and ops in common that got faster and slower.
QString beforeTrace() { return data("findings/tiny_kernels.json.gz"); }

// The name cells of a diff table, in row order: the first column, as wide as the header's "Name" cell.
QStringList nameCells(const QByteArray& out)
{
    const QStringList lines = QString::fromUtf8(out).split('\n');
    qsizetype header = 0;
    while (header < lines.size() && !lines[header].startsWith("Name "))
        ++header;
    QStringList cells;
    if (header == lines.size())
        return cells;
    const qsizetype width = lines[header].indexOf("Device") - 2; // the name column, padded, then two spaces
    for (qsizetype i = header + 1; i < lines.size() && !lines[i].isEmpty(); ++i)
        cells.append(lines[i].left(width).trimmed());
    return cells;
}

// Every cell at most `width` code points, a key that fits shown whole, and different keys read apart.
void verifyNameCells(const QStringList& cells, const QStringList& keys, qsizetype width)
{
    QCOMPARE(cells.size(), keys.size());
    QMap<QString, QString> keyShownAs;
    for (qsizetype i = 0; i < keys.size(); ++i) {
        QVERIFY2(cells[i].toUcs4().size() <= width, qPrintable(cells[i]));
        if (keys[i].toUcs4().size() <= width)
            QCOMPARE(cells[i], keys[i]);
        const auto seen = keyShownAs.constFind(cells[i]);
        QVERIFY2(seen == keyShownAs.cend() || *seen == keys[i], qPrintable(cells[i] + " reads as two keys"));
        keyShownAs.insert(cells[i], keys[i]);
    }
}
QString afterTrace() { return data("findings/dominant_kernel.json.gz"); }

// A row's identity as diff prints it: key, device type, input shapes ("" when not grouped by shape).
using Identity = std::tuple<QString, QString, QString>;

// RFC 4180 fields of a whole CSV text, line by line.
QList<QStringList> parseCsv(const QString& text)
{
    QList<QStringList> lines;
    QStringList fields;
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == u'"' && i + 1 < text.size() && text[i + 1] == u'"')
                field += text[++i];
            else if (c == u'"')
                quoted = false;
            else
                field += c;
        } else if (c == u'"') {
            quoted = true;
        } else if (c == u',') {
            fields << field;
            field.clear();
        } else if (c == u'\n') {
            lines << (fields << field);
            fields.clear();
            field.clear();
        } else {
            field += c;
        }
    }
    return lines;
}

// `summary --format json` rows by identity. The JSON row has no device type: it comes from the CSV row at
// the same index (both with --sort none, torch's group order).
std::map<Identity, QJsonObject> summaryRows(const QString& trace, bool byShape)
{
    QStringList arguments{"summary", trace, "--sort", "none"};
    if (byShape)
        arguments << "--group-by-input-shape";
    const Run json = cli(arguments + QStringList{"--format", "json"});
    const Run csv = cli(arguments + QStringList{"--format", "csv"});
    if (json.exitCode != 0 || csv.exitCode != 0)
        throw std::runtime_error("summary failed on " + trace.toStdString());
    const QJsonArray rows = QJsonDocument::fromJson(json.out).object().value("rows").toArray();
    const QList<QStringList> lines = parseCsv(QString::fromUtf8(csv.out));
    if (lines.size() != rows.size() + 1 || lines[0][2] != QStringLiteral("device_type"))
        throw std::runtime_error("summary CSV and JSON disagree on " + trace.toStdString());
    std::map<Identity, QJsonObject> out;
    for (qsizetype i = 0; i < rows.size(); ++i) {
        const QJsonObject row = rows[i].toObject();
        if (lines[i + 1][0] != row.value("key").toString())
            throw std::runtime_error("summary CSV and JSON rows out of step");
        const Identity id{row.value("key").toString(), lines[i + 1][2], byShape ? row.value("input_shapes").toString() : QString()};
        // The fixtures must name each row unambiguously (no key that is both an annotation and an op on one device).
        if (!out.emplace(id, row).second)
            throw std::runtime_error("two summary rows share key, device and shapes");
    }
    return out;
}

QJsonObject diffJson(const QString& before, const QString& after, bool byShape)
{
    QStringList arguments{"diff", before, after, "--format", "json"};
    if (byShape)
        arguments << "--by-shape";
    const Run r = cli(arguments);
    if (r.exitCode != 0)
        throw std::runtime_error("diff failed: " + r.err.toStdString());
    return QJsonDocument::fromJson(r.out).object();
}

double number(const QJsonValue& row, const char* field) { return row.isNull() ? 0.0 : row.toObject().value(field).toDouble(); }

} // namespace

class TestDiff : public QObject
{
    Q_OBJECT
private slots:
    void rowsAreTheDifferenceOfTheSummaries_data()
    {
        QTest::addColumn<bool>("byShape");
        QTest::newRow("by key") << false;
        QTest::newRow("by key and input shapes") << true;
    }

    void rowsAreTheDifferenceOfTheSummaries()
    {
        QFETCH(bool, byShape);
        const auto before = summaryRows(beforeTrace(), byShape);
        const auto after = summaryRows(afterTrace(), byShape);
        const QJsonObject doc = diffJson(beforeTrace(), afterTrace(), byShape);
        QCOMPARE(doc.keys(), (QStringList{"after", "before", "overlap", "rows", "setup_differences", "totals"}));
        QCOMPARE(doc.value("before").toString(), beforeTrace());
        QCOMPARE(doc.value("after").toString(), afterTrace());

        const QStringList fields{"after",
                                 "before",
                                 "delta_count",
                                 "delta_device_time_total_us",
                                 "delta_self_cpu_time_total_us",
                                 "delta_self_device_time_total_us",
                                 "device_type",
                                 "input_shapes",
                                 "key"};
        std::set<Identity> seen, added, removed;
        const QJsonArray rows = doc.value("rows").toArray();
        for (const QJsonValue& value : rows) {
            const QJsonObject row = value.toObject();
            QCOMPARE(row.keys(), fields);
            QCOMPARE(row.value("input_shapes").isNull(), !byShape);
            const Identity id{row.value("key").toString(), row.value("device_type").toString(),
                              byShape ? row.value("input_shapes").toString() : QString()};
            QVERIFY2(seen.insert(id).second, qPrintable("twice: " + std::get<0>(id)));
            const auto b = before.find(id);
            const auto a = after.find(id);
            QVERIFY(b != before.end() || a != after.end());
            // Each side is the summary's row, field for field, or null.
            QCOMPARE(row.value("before"), b == before.end() ? QJsonValue(QJsonValue::Null) : QJsonValue(b->second));
            QCOMPARE(row.value("after"), a == after.end() ? QJsonValue(QJsonValue::Null) : QJsonValue(a->second));
            if (b == before.end())
                added.insert(id);
            if (a == after.end())
                removed.insert(id);
            // Deltas: after - before from the summaries' numbers, exactly (both sides print shortest round-trip doubles).
            const QJsonValue bv = row.value("before"), av = row.value("after");
            QCOMPARE(row.value("delta_count").toInteger(),
                     av.toObject().value("count").toInteger() - bv.toObject().value("count").toInteger());
            for (const char* field : {"self_cpu_time_total_us", "self_device_time_total_us", "device_time_total_us"}) {
                const double expected = number(av, field) - number(bv, field);
                const double got = row.value(QStringLiteral("delta_") + QString::fromUtf8(field)).toDouble();
                QVERIFY2(got == expected,
                         qPrintable(std::get<0>(id) + " " + field + ": " + QString::number(got, 'g', 17) + " vs "
                                    + QString::number(expected, 'g', 17)));
            }
        }
        // Every summary row of either side is in the diff once; added and removed are the symmetric difference.
        std::set<Identity> all, expectedAdded, expectedRemoved;
        for (const auto& [id, row] : before) {
            all.insert(id);
            if (!after.contains(id))
                expectedRemoved.insert(id);
        }
        for (const auto& [id, row] : after) {
            all.insert(id);
            if (!before.contains(id))
                expectedAdded.insert(id);
        }
        QCOMPARE(seen, all);
        QCOMPARE(added, expectedAdded);
        QCOMPARE(removed, expectedRemoved);
        QVERIFY(!added.empty());                             // the pair has kernels on one side only,
        QVERIFY(!removed.empty());                           // both ways,
        QVERIFY(added.size() + removed.size() < all.size()); // and rows on both sides

        // Largest |device-time delta| first; ties by |self CPU delta|, then key.
        for (qsizetype i = 1; i < rows.size(); ++i) {
            const QJsonObject p = rows[i - 1].toObject(), r = rows[i].toObject();
            const double dp = std::abs(p.value("delta_device_time_total_us").toDouble());
            const double dr = std::abs(r.value("delta_device_time_total_us").toDouble());
            QVERIFY(dp >= dr);
            if (dp != dr)
                continue;
            const double cp = std::abs(p.value("delta_self_cpu_time_total_us").toDouble());
            const double cr = std::abs(r.value("delta_self_cpu_time_total_us").toDouble());
            QVERIFY(cp >= cr);
            if (cp == cr)
                QVERIFY(p.value("key").toString().toStdString() <= r.value("key").toString().toStdString());
        }
        QVERIFY(std::abs(rows[0].toObject().value("delta_device_time_total_us").toDouble()) > 0);
    }

    // `diff --format csv`: the JSON's rows, in its order, each side's figures and the deltas as the JSON has them.
    void csvIsTheJsonsRows()
    {
        for (const bool byShape : {false, true}) {
            QStringList arguments{"diff", beforeTrace(), afterTrace(), "--format", "csv"};
            if (byShape)
                arguments << "--by-shape";
            const Run csv = cli(arguments);
            QCOMPARE(csv.exitCode, 0);
            const QList<QStringList> lines = parseCsv(QString::fromUtf8(csv.out));
            const QJsonArray rows = diffJson(beforeTrace(), afterTrace(), byShape).value("rows").toArray();
            QCOMPARE(lines.size(), rows.size() + 1);
            QCOMPARE(lines[0].join(u','),
                     QStringLiteral("key,input_shapes,device_type,is_user_annotation,change,count_before,count_after,"
                                    "delta_count,self_cpu_time_total_us_before,self_cpu_time_total_us_after,"
                                    "delta_self_cpu_time_total_us,self_device_time_total_us_before,"
                                    "self_device_time_total_us_after,delta_self_device_time_total_us,"
                                    "device_time_total_us_before,device_time_total_us_after,delta_device_time_total_us"));
            int added = 0, removed = 0;
            for (qsizetype i = 0; i < rows.size(); ++i) {
                const QJsonObject row = rows[i].toObject();
                const QStringList& line = lines[i + 1];
                QCOMPARE(line.size(), 17);
                QCOMPARE(line[0], row.value("key").toString());
                QCOMPARE(line[1], byShape ? row.value("input_shapes").toString() : QString());
                QCOMPARE(line[2], row.value("device_type").toString());
                const QJsonValue before = row.value("before"), after = row.value("after");
                added += before.isNull();
                removed += after.isNull();
                QCOMPARE(line[4] == QStringLiteral("added"), before.isNull());
                QCOMPARE(line[4] == QStringLiteral("removed"), after.isNull());
                const auto sideText = [](const QJsonValue& side, const char* field) {
                    return side.isNull() ? QString() : QString::number(side.toObject().value(field).toDouble(), 'g', 17);
                };
                const auto csvNumber = [](const QString& text) {
                    return text.isEmpty() ? QString() : QString::number(text.toDouble(), 'g', 17);
                };
                int column = 5;
                for (const char* field : {"count", "self_cpu_time_total_us", "self_device_time_total_us", "device_time_total_us"}) {
                    QCOMPARE(csvNumber(line[column]), sideText(before, field));
                    QCOMPARE(csvNumber(line[column + 1]), sideText(after, field));
                    QCOMPARE(line[column + 2].toDouble(), row.value(QStringLiteral("delta_") + QString::fromUtf8(field)).toDouble());
                    column += 3;
                }
            }
            QVERIFY(added > 0 && removed > 0);
        }
    }

    void overlapIsWhatOverlapPrints()
    {
        const QJsonObject doc = diffJson(beforeTrace(), afterTrace(), false);
        const QJsonObject overlap = doc.value("overlap").toObject();
        QCOMPARE(overlap.keys(), (QStringList{"after", "before"}));
        for (const auto& [side, trace] : {std::pair{"before", beforeTrace()}, std::pair{"after", afterTrace()}}) {
            const Run r = cli({"overlap", trace, "--format", "json"});
            QCOMPARE(r.exitCode, 0);
            QCOMPARE(overlap.value(side).toObject(), QJsonDocument::fromJson(r.out).object());
        }
    }

    // Each side's totals are what summary prints as its footers (JSON keys and table lines), to the last digit.
    void totalsAreTheSummaryFooters()
    {
        const QJsonObject totals = diffJson(beforeTrace(), afterTrace(), false).value("totals").toObject();
        QCOMPARE(totals.keys(), (QStringList{"after", "before"}));
        const Run table = cli({"diff", beforeTrace(), afterTrace()});
        QCOMPARE(table.exitCode, 0);
        QByteArray cpuLine = "Self CPU time total:  ", deviceLine = "Self CUDA time total: ";
        for (const auto& [side, trace] : {std::pair{"before", beforeTrace()}, std::pair{"after", afterTrace()}}) {
            const Run json = cli({"summary", trace, "--format", "json"});
            const Run text = cli({"summary", trace});
            QCOMPARE(json.exitCode, 0);
            QCOMPARE(text.exitCode, 0);
            const QJsonObject summary = QJsonDocument::fromJson(json.out).object();
            const QJsonObject mine = totals.value(side).toObject();
            QCOMPARE(mine.keys(), (QStringList{"self_cpu_time_total_us", "self_device_time_total_us"}));
            for (const char* key : {"self_cpu_time_total_us", "self_device_time_total_us"}) // exactly: QCOMPARE allows a tolerance
                QVERIFY2(mine.value(key).toDouble() == summary.value(key).toDouble(), key);
            // summary's footers: "Self CPU time total: 8.827ms" and "Self CUDA time total: 8.748ms".
            const QRegularExpression footer("Self (CPU|CUDA) time total: (\\S+)");
            QRegularExpressionMatchIterator it = footer.globalMatch(QString::fromUtf8(text.out));
            QMap<QString, QString> footers;
            while (it.hasNext()) {
                const QRegularExpressionMatch m = it.next();
                footers[m.captured(1)] = m.captured(2);
            }
            QCOMPARE(footers.size(), 2);
            cpuLine += footers["CPU"].toUtf8() + " " + side + (QByteArray(side) == "before" ? ", " : " (");
            deviceLine += footers["CUDA"].toUtf8() + " " + side + (QByteArray(side) == "before" ? ", " : " (");
        }
        const QList<QByteArray> lines = table.out.split('\n');
        QVERIFY2(lines.size() > 4 && lines[3].startsWith(cpuLine), lines.value(3).constData());
        QVERIFY2(lines[4].startsWith(deviceLine), lines[4].constData());
        // The delta is after - before, signed as the rows' deltas.
        const double cpuDelta = totals.value("after").toObject().value("self_cpu_time_total_us").toDouble()
            - totals.value("before").toObject().value("self_cpu_time_total_us").toDouble();
        QVERIFY(cpuDelta != 0);
        QVERIFY2(lines[3].endsWith(")") && lines[3].contains(cpuDelta > 0 ? "(+" : "(-"), lines[3].constData());

        // Traces without GPU activity: summary prints no CUDA footer, and neither does the diff.
        const QString cpuOnly = QString::fromStdString(
            testutil::dataPath("external/hta/cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"));
        QVERIFY(!cli({"summary", cpuOnly}).out.contains("Self CUDA time total"));
        const Run same = cli({"diff", cpuOnly, cpuOnly});
        QCOMPARE(same.exitCode, 0);
        QVERIFY2(same.out.contains("\nSelf CPU time total:  "), same.out.left(400).constData());
        QVERIFY(same.out.contains(" after (0.000us)\n"));
        QVERIFY(!same.out.contains("Self CUDA time total"));
    }

    void traceAgainstItselfChangesNothing_data()
    {
        QTest::addColumn<bool>("byShape");
        QTest::newRow("by key") << false;
        QTest::newRow("by key and input shapes") << true;
    }

    void traceAgainstItselfChangesNothing()
    {
        QFETCH(bool, byShape);
        const QString trace = QString::fromStdString(testutil::workloadTrace("train_scheduled"));
        const auto summary = summaryRows(trace, byShape);
        const QJsonArray rows = diffJson(trace, trace, byShape).value("rows").toArray();
        QCOMPARE(size_t(rows.size()), summary.size());
        for (const QJsonValue& value : rows) {
            const QJsonObject row = value.toObject();
            QVERIFY(row.value("before").isObject());
            QCOMPARE(row.value("after"), row.value("before"));
            for (const char* field :
                 {"delta_count", "delta_self_cpu_time_total_us", "delta_self_device_time_total_us", "delta_device_time_total_us"})
                QCOMPARE(row.value(field).toDouble(), 0.0);
        }
        QCOMPARE(diffJson(trace, trace, byShape).value("setup_differences").toArray(), QJsonArray());
        const Run table = cli(byShape ? QStringList{"diff", trace, trace, "--by-shape"} : QStringList{"diff", trace, trace});
        QCOMPARE(table.exitCode, 0);
        QVERIFY(!table.out.contains("note: "));
        QVERIFY(table.out.contains("0 added, 0 removed, 0 increased, 0 decreased, " + QByteArray::number(rows.size()) + " unchanged"));
        // --max-name-width: every name fitted to that many code points, different names still apart.
        if (!byShape) {
            const Run narrow = cli({"diff", trace, trace, "--max-name-width", "30"});
            QCOMPARE(narrow.exitCode, 0);
            QStringList keys;
            for (const QJsonValue& value : rows)
                keys.append(value.toObject().value("key").toString());
            verifyNameCells(nameCells(narrow.out), keys, 30);
        }
    }

    // Traces of another GPU or another run size (HTA's trace_diff pair: an A100 rank 3 of 8 against a V100 rank 1 of
    // 2) are said before the rows, in the table and the JSON: the kernels added and removed are the hardware's.
    // A side that names no GPU says nothing of it.
    void setupDifferencesAreSaid()
    {
        QTemporaryDir dir;
        // GPUs by name as deviceProperties lists them (no activity: every one counts); world size 0: no distributedInfo.
        const auto write = [&](const QString& name, const std::vector<std::string>& gpus, int rank, int worldSize) {
            tilescope::io::Json doc = tilescope::io::Json{
                {"traceEvents",
                 tilescope::io::Json::array({tilescope::io::Json{
                     {"ph", "X"}, {"cat", "cpu_op"}, {"name", "aten::mm"}, {"pid", 1}, {"tid", 1}, {"ts", 10}, {"dur", 5}}})}};
            for (size_t k = 0; k < gpus.size(); ++k)
                doc["deviceProperties"].push_back(
                    tilescope::io::Json{{"id", k}, {"name", gpus[k]}, {"totalGlobalMem", 1}, {"computeMajor", 8}, {"computeMinor", 0}});
            if (worldSize > 0)
                doc["distributedInfo"] = tilescope::io::Json{{"backend", "nccl"}, {"rank", rank}, {"world_size", worldSize}};
            const QString path = dir.filePath(name);
            tilescope::io::writeTextFile(path.toStdString(), tilescope::io::dumpJson(doc), "the test's trace");
            return path;
        };
        const QString a100 = write("a100.json", {"NVIDIA A100-SXM4-80GB"}, 3, 8);
        const QString v100 = write("v100.json", {"Tesla V100-SXM2-16GB"}, 1, 2);
        const QString unnamed = write("unnamed.json", {}, 0, 8);
        const QStringList expected{
            "before ran on NVIDIA A100-SXM4-80GB, after on Tesla V100-SXM2-16GB: libraries pick kernels per GPU, so rows added and "
            "removed may be the hardware's change, not the code's",
            "before is rank 3 of 8, after rank 1 of 2: runs of different sizes split the work differently (collectives and per-rank "
            "shares change)"};
        QCOMPARE(diffJson(a100, v100, false).value("setup_differences").toArray(), QJsonArray::fromStringList(expected));
        const Run table = cli({"diff", a100, v100});
        QCOMPARE(table.exitCode, 0);
        QVERIFY2(table.out.startsWith(
                     ("before: " + a100 + "\nafter:  " + v100 + "\nnote: " + expected[0] + "\nnote: " + expected[1] + "\n").toUtf8()),
                 table.out.constData());
        QCOMPARE(diffJson(a100, unnamed, false).value("setup_differences").toArray(), QJsonArray()); // same size, one GPU unknown
        // The same GPUs listed in another order: none; one side a rank of a run, the other no run's: said.
        const QString twoGpus = write("two.json", {"NVIDIA A100-SXM4-80GB", "Tesla T4"}, 0, 0);
        const QString swapped = write("swapped.json", {"Tesla T4", "NVIDIA A100-SXM4-80GB"}, 0, 0);
        QCOMPARE(diffJson(twoGpus, swapped, false).value("setup_differences").toArray(), QJsonArray());
        const QString single = write("single.json", {"NVIDIA A100-SXM4-80GB"}, 0, 0);
        QCOMPARE(diffJson(a100, single, false).value("setup_differences").toArray(),
                 QJsonArray({QStringLiteral("before is rank 3 of 8, after no distributed run's: one rank's share of a run against a whole "
                                            "run (collectives and per-rank shares change)")}));
    }

    // --step N: each side is the ops and kernels that start in that step: the rows are key_averages over the
    // step's window (computed here through the core), the overlap is the step's, and a missing step exits 2.
    void selectedStep()
    {
        const std::string path = testutil::workloadTrace("train_scheduled");
        const QString file = QString::fromStdString(path);
        const auto t = tilescope::trace::loadTrace(path);
        const tilescope::analysis::StepTable table = tilescope::analysis::computeStepTable(*t);
        QVERIFY(table.steps.size() >= 2);
        const tilescope::analysis::StepRow& step = table.steps[1];
        const Run r = cli({"diff", file, file, "--format", "json", "--step", QString::number(step.number)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        tilescope::stats::KeyAveragesOptions options;
        options.window = std::pair{step.start, step.end};
        const tilescope::stats::KeyAverages inStep = tilescope::stats::computeKeyAverages(*t, options);
        const QJsonArray rows = doc.value("rows").toArray();
        QCOMPARE(size_t(rows.size()), inStep.rows.size());
        double calls = 0, expectedCalls = 0;
        for (const QJsonValue& row : rows) {
            calls += number(row.toObject().value("before"), "count");
            QCOMPARE(row.toObject().value("delta_count").toDouble(), 0.0);
        }
        for (const tilescope::stats::KeyAverage& row : inStep.rows)
            expectedCalls += double(row.count);
        QCOMPARE(calls, expectedCalls);
        double wholeCalls = 0; // a part, not the whole trace
        for (const tilescope::stats::KeyAverage& row : tilescope::stats::computeKeyAverages(*t).rows)
            wholeCalls += double(row.count);
        QVERIFY(expectedCalls > 0 && expectedCalls < wholeCalls);
        const QJsonObject overlap = doc.value("overlap").toObject().value("before").toObject();
        QCOMPARE(overlap.value("window_start_us").toDouble(), double(step.start) / 1000.0);
        QCOMPARE(overlap.value("window_end_us").toDouble(), double(step.end) / 1000.0);
        const Run missing = cli({"diff", file, file, "--step", "999"});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY(missing.err.contains(file.toUtf8()));
        QCOMPARE(cli({"diff", file, file, "--step", "1", "--steps", "1-2"}).exitCode, 2);
    }

    // The table lists the JSON's rows in its order, each marked by its change.
    void tableMarksEachRow()
    {
        const QJsonArray rows = diffJson(beforeTrace(), afterTrace(), false).value("rows").toArray();
        const Run table = cli({"diff", beforeTrace(), afterTrace(), "--format", "table"});
        QCOMPARE(table.exitCode, 0);
        const QList<QByteArray> lines = table.out.split('\n');
        qsizetype header = 0;
        while (header < lines.size() && !lines[header].startsWith("Name "))
            ++header;
        QVERIFY(header < lines.size());
        QVERIFY(lines[header].contains("Self device delta"));
        QVERIFY(lines.size() > header + rows.size());
        QMap<QString, int> tally;
        for (qsizetype i = 0; i < rows.size(); ++i) {
            const QJsonObject row = rows[i].toObject();
            QString expected;
            if (row.value("before").isNull())
                expected = "added";
            else if (row.value("after").isNull())
                expected = "removed";
            else {
                const double device = row.value("delta_device_time_total_us").toDouble();
                const double cpu = row.value("delta_self_cpu_time_total_us").toDouble();
                const double delta = device != 0 ? device : cpu != 0 ? cpu : row.value("delta_count").toDouble();
                expected = delta > 0 ? "increased" : delta < 0 ? "decreased" : "unchanged";
            }
            ++tally[expected];
            const QByteArray line = lines[header + 1 + i];
            QVERIFY2(line.endsWith("  " + expected.toUtf8()), line.constData());
        }
        QVERIFY(tally["added"] > 0 && tally["removed"] > 0 && tally["increased"] > 0 && tally["decreased"] > 0);
        // Long names fitted to 80 columns (the default width), every kernel told from the others.
        QStringList keys;
        for (const QJsonValue& value : rows)
            keys.append(value.toObject().value("key").toString());
        verifyNameCells(nameCells(table.out), keys, 80);
        QVERIFY(table.out.contains(QByteArray::number(tally["added"]) + " added, " + QByteArray::number(tally["removed"]) + " removed"));
    }

    // Two kernels alike for their first 110 characters read the same when cut at 80, one added and one removed:
    // the table shows where they differ; a key unlike the others stays whole.
    void namesCutAlikeShowWhereTheyDiffer()
    {
        namespace stats = tilescope::stats;
        namespace report = tilescope::report;
        const std::string common
            = "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1<float, float, float, ";
        stats::KeyAverage a, b, other;
        a.key = common + "5ul>(at::GenericPackedTensorAccessor<float, 2ul>)";
        b.key = common + "2ul>(at::GenericPackedTensorAccessor<float, 2ul>)";
        other.key = "aten::mm";
        for (stats::KeyAverage* k : {&a, &b})
            k->deviceType = stats::DeviceType::CUDA;
        stats::KeyAverages before, after;
        before.rows = {b, other};
        after.rows = {a, other};
        const stats::KeyAveragesDiff diff = stats::diffKeyAverages(before, after);
        const std::string text = report::diffText({"before.json", nullptr, nullptr}, {"after.json", nullptr, nullptr}, diff);
        QStringList keys;
        for (const stats::KeyAverageDiffRow& r : diff.rows)
            keys.append(QString::fromStdString(r.key));
        const QStringList cells = nameCells(QByteArray::fromStdString(text));
        verifyNameCells(cells, keys, 80);
        // Each kernel's cell names the kernel and the argument that tells it from the other.
        for (qsizetype i = 0; i < keys.size(); ++i) {
            if (keys[i] == "aten::mm")
                continue;
            QVERIFY2(cells[i].contains("cta_per_row_1<"), qPrintable(cells[i]));
            QVERIFY2(cells[i].contains(keys[i].contains("5ul>") ? "5ul>" : "2ul>"), qPrintable(cells[i]));
        }
    }

    void diffKeyAveragesRefusesMixedGrouping()
    {
        tilescope::stats::KeyAverages byKey, byShape;
        byShape.groupedByInputShape = true;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, tilescope::stats::diffKeyAverages(byKey, byShape));
        QCOMPARE(tilescope::stats::diffKeyAverages(byKey, byKey).rows.size(), size_t(0));
    }

    void badInputExitsWithTwo()
    {
        const QString missing = data("diff-no-such-trace.json");
        for (const QStringList& arguments : {QStringList{"diff", missing, afterTrace()}, QStringList{"diff", beforeTrace(), missing}}) {
            const Run r = cli(arguments);
            QCOMPARE(r.exitCode, 2);
            QVERIFY(r.out.isEmpty());
            QCOMPARE(r.err.trimmed().count('\n'), 0); // one line
            QVERIFY(r.err.contains(missing.toUtf8()));
        }
        const Run one = cli({"diff", beforeTrace()});
        QCOMPARE(one.exitCode, 2);
        QVERIFY(one.err.contains("'diff' needs 2 TRACE files"));
        QCOMPARE(cli({"diff"}).exitCode, 2);
        QCOMPARE(cli({"diff", beforeTrace(), afterTrace(), afterTrace()}).exitCode, 2);
        QCOMPARE(cli({"diff", beforeTrace(), afterTrace(), "--format", "xml"}).exitCode, 2);
        QCOMPARE(cli({"diff", beforeTrace(), afterTrace(), "--group-by-input-shape"}).exitCode, 2);
        const Run help = cli({"diff", "--help"});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.startsWith("usage:\n  diff BEFORE AFTER "));
        QCOMPARE(cli({"help", "diff"}).out, help.out);
        QVERIFY(cli({"--help"}).out.contains("\n  diff BEFORE AFTER "));
    }
};

QTEST_GUILESS_MAIN(TestDiff)
#include "tst_diff.moc"
