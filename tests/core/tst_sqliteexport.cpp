// SPDX-License-Identifier: MIT
// The SQL export (issue #14): `tilescope-cli export --sqlite` on a single trace and on a four-rank run. Row
// counts are checked against the loaded Trace and against the raw JSON (read here with nlohmann); every query
// of docs/sqlite-export.md is taken from the markdown and run on both databases; the doc's launch delay
// percentiles are checked against the launches analysis, its top key-averages row against `summary`; the
// CLI's refusals (existing file, bad trace) leave no database behind.
#include "testutil.h"

#include "analysis/launchstats.h"
#include "io/bytesource.h"
#include "io/smalljson.h"
#include "trace/traceloader.h"

#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <optional>
#include <regex>

using namespace tilescope;

namespace {

// A row as text (NULL as nullopt).
using Row = std::vector<std::optional<std::string>>;

class Database
{
public:
    explicit Database(const std::string& path)
    {
        if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
            m_error = "cannot open " + path;
    }
    ~Database() { sqlite3_close(m_db); }
    // The rows of `sql`; nullopt and error() when it fails.
    std::optional<std::vector<Row>> query(const std::string& sql)
    {
        sqlite3_stmt* stmt = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
            m_error = sqlite3_errmsg(m_db);
            return std::nullopt;
        }
        std::vector<Row> rows;
        int rc;
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
            Row row;
            for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
                const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
                row.push_back(text ? std::optional<std::string>(text) : std::nullopt);
            }
            rows.push_back(std::move(row));
        }
        if (rc != SQLITE_DONE)
            m_error = sqlite3_errmsg(m_db);
        sqlite3_finalize(stmt);
        return rc == SQLITE_DONE ? std::optional(std::move(rows)) : std::nullopt;
    }
    int64_t count(const std::string& sql)
    {
        const auto rows = query(sql);
        return rows && rows->size() == 1 && (*rows)[0][0] ? std::stoll(*(*rows)[0][0]) : -1;
    }
    const std::string& error() const { return m_error; }

private:
    sqlite3* m_db = nullptr;
    std::string m_error;
};

struct DocQuery
{
    std::string name; // its first line, "-- name"
    std::string sql;
};

// The ```sql blocks of the doc that start with a "-- name" line: the example queries.
std::vector<DocQuery> docQueries()
{
    const std::string doc = testutil::readFile(std::string(TILESCOPE_DOCS) + "/sqlite-export.md");
    std::vector<DocQuery> queries;
    const std::regex block("```sql\n-- ([a-z0-9-]+)\n([^`]*)```");
    for (auto it = std::sregex_iterator(doc.begin(), doc.end(), block); it != std::sregex_iterator(); ++it)
        queries.push_back({(*it)[1].str(), (*it)[2].str()});
    return queries;
}

std::optional<std::vector<Row>> runDocQuery(Database& db, const std::string& name)
{
    for (const DocQuery& q : docQueries())
        if (q.name == name)
            return db.query(q.sql);
    return std::nullopt;
}

testutil::ProcessRun cli(const QStringList& arguments) { return testutil::runProcess(QStringLiteral(TILESCOPE_CLI), arguments); }

QString q(const std::string& s) { return QString::fromStdString(s); }

// What the raw JSON holds, counted here.
struct RawCounts
{
    int64_t kernels = 0, memory = 0, flows = 0, withInputDims = 0, completeSlices = 0, devices = 0;
};

RawCounts rawCounts(const std::string& path)
{
    io::Json doc;
    {
        auto source = io::openTraceFile(path);
        std::string text;
        std::vector<char> buffer(1 << 16);
        while (size_t n = source->read(buffer.data(), buffer.size()))
            text.append(buffer.data(), n);
        doc = io::parseSmallJson(text, path);
    }
    RawCounts c;
    c.devices = doc.contains("deviceProperties") ? static_cast<int64_t>(doc["deviceProperties"].size()) : 0;
    for (const io::Json& e : doc["traceEvents"]) {
        const std::string ph = e.value("ph", "");
        const std::string name = e.value("name", "");
        const std::string cat = e.value("cat", "");
        c.kernels += ph == "X" && cat == "kernel";
        c.memory += name == "[memory]" || name == "[OutOfMemory]";
        c.flows += ph == "s" || ph == "t" || ph == "f";
        c.completeSlices += ph == "X";
        c.withInputDims += ph == "X" && e.contains("args") && e["args"].contains("Input Dims");
    }
    return c;
}

} // namespace

class TestSqliteExport : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string m_single, m_run;
    const std::string m_trace = testutil::workloadTrace("train_scheduled");
    const std::string m_rankFolder = testutil::dataPath("ranks/gloo/slow");

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_single = m_dir.filePath(QStringLiteral("single.db")).toStdString();
        m_run = m_dir.filePath(QStringLiteral("run.db")).toStdString();
        const auto single = cli({"export", q(m_trace), "--sqlite", q(m_single)});
        QVERIFY2(single.exitCode == 0, single.err.constData());
        QVERIFY(single.out.contains("wrote"));
        const auto run = cli({"export", q(m_rankFolder), "--sqlite", q(m_run)});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY(run.out.contains("4 traces"));
        QVERIFY(!std::filesystem::exists(m_single + ".partial"));
    }

    // Every table's rows against the model, and the main ones against the raw JSON.
    void singleTraceCountsEqualTheModel()
    {
        trace::LoadOptions options;
        options.keepRawArgs = false;
        const auto t = trace::loadTrace(m_trace, options);
        Database db(m_single);
        QCOMPARE(db.count("SELECT COUNT(*) FROM traces"), 1);
        QCOMPARE(db.count("SELECT COUNT(*) FROM event_rows"), static_cast<int64_t>(t->events.size()));
        QCOMPARE(db.count("SELECT COUNT(*) FROM events"), static_cast<int64_t>(t->events.size())); // the view loses no row
        QCOMPARE(db.count("SELECT COUNT(*) FROM tracks"), static_cast<int64_t>(t->tracks.size()));
        QCOMPARE(db.count("SELECT COUNT(*) FROM strings"), static_cast<int64_t>(t->strings.size()));
        QCOMPARE(db.count("SELECT COUNT(*) FROM flows"), static_cast<int64_t>(t->flows.size()));
        QCOMPARE(db.count("SELECT COUNT(*) FROM memory"), static_cast<int64_t>(t->memory.size()));
        QCOMPARE(db.count("SELECT COUNT(*) FROM counters"), static_cast<int64_t>(t->counters.size()));
        QCOMPARE(db.count("SELECT COUNT(*) FROM devices"), static_cast<int64_t>(t->meta.devices.size()));
        int64_t kernels = 0, ops = 0, depthSum = 0, durSum = 0;
        for (const trace::Event& e : t->events) {
            kernels += e.kind == trace::EventKind::Kernel;
            ops += e.op != trace::kNoIndex;
            depthSum += e.depth;
            durSum += e.duration;
        }
        QCOMPARE(db.count("SELECT COUNT(*) FROM kernels"), kernels);
        QCOMPARE(db.count("SELECT COUNT(*) FROM ops"), ops);
        QCOMPARE(db.count("SELECT SUM(depth) FROM events"), depthSum);
        QCOMPARE(db.count("SELECT SUM(dur_ns) FROM events"), durSum);
        // Parents point at the enclosing event: same track, starts no later, drawn above (one row above where no
        // slice of the track overlaps another without nesting).
        QCOMPARE(db.count("SELECT COUNT(*) FROM event_rows c JOIN event_rows p ON p.id = c.parent WHERE p.track_id != c.track_id "
                          "OR p.start_ns > c.start_ns OR p.depth >= c.depth"),
                 0);

        const RawCounts raw = rawCounts(m_trace);
        QVERIFY(raw.kernels > 0 && raw.memory > 0 && raw.flows > 0 && raw.withInputDims > 0);
        QCOMPARE(db.count("SELECT COUNT(*) FROM kernels"), raw.kernels);
        QCOMPARE(db.count("SELECT COUNT(*) FROM memory"), raw.memory);
        QCOMPARE(db.count("SELECT COUNT(*) FROM flows"), raw.flows);
        QCOMPARE(db.count("SELECT COUNT(*) FROM devices"), raw.devices);
        QCOMPARE(db.count("SELECT COUNT(*) FROM ops"), raw.withInputDims);
        QVERIFY(db.count("SELECT COUNT(*) FROM events") >= raw.completeSlices);
        QCOMPARE(db.count("SELECT COUNT(*) FROM event_rows WHERE rank IS NOT NULL"), 0); // no distributedInfo

        // Every launch's first activity is a GPU activity with the launch's correlation.
        QVERIFY(db.count("SELECT COUNT(*) FROM launches") > 0);
        QCOMPARE(db.count("SELECT COUNT(*) FROM launches l JOIN events a ON a.id = l.activity_id JOIN events c ON c.id = l.launch_id "
                          "WHERE a.correlation != c.correlation OR a.kind NOT IN ('kernel', 'gpu_memcpy', 'gpu_memset') "
                          "OR l.delay_ns != a.start_ns - c.start_ns"),
                 0);
        QCOMPARE(db.count("SELECT COUNT(*) FROM steps"), 3);
        QVERIFY(db.count("SELECT COUNT(*) FROM key_averages") > 0);
    }

    void runCountsEqualTheModel()
    {
        Database db(m_run);
        QCOMPARE(db.count("SELECT COUNT(*) FROM traces"), 4);
        QCOMPARE(db.count("SELECT COUNT(DISTINCT rank) FROM event_rows"), 4);
        QCOMPARE(db.count("SELECT COUNT(*) FROM ranks"), 4);
        QCOMPARE(db.count("SELECT COUNT(*) FROM ranks r JOIN traces t ON t.trace_id = r.trace_id AND t.rank = r.rank"), 4);
        // The slow run's straggler is rank 2 (tst_ranks).
        const auto stragglers = db.query("SELECT rank FROM ranks WHERE straggler = 1");
        QVERIFY(stragglers && stragglers->size() == 1);
        QCOMPARE(*(*stragglers)[0][0], std::string("2"));
        trace::LoadOptions options;
        options.keepRawArgs = false;
        for (int rank = 0; rank < 4; ++rank) {
            const std::string file = m_rankFolder + "/rank-" + std::to_string(rank) + ".json.gz";
            const auto t = trace::loadTrace(file, options);
            const std::string where = " WHERE rank = " + std::to_string(rank);
            QCOMPARE(db.count("SELECT COUNT(*) FROM event_rows" + where), static_cast<int64_t>(t->events.size()));
            QCOMPARE(db.count("SELECT COUNT(*) FROM events" + where), static_cast<int64_t>(t->events.size()));
            QCOMPARE(db.count("SELECT COUNT(*) FROM tracks" + where), static_cast<int64_t>(t->tracks.size()));
            QCOMPARE(db.count("SELECT COUNT(*) FROM flows" + where), static_cast<int64_t>(t->flows.size()));
            QCOMPARE(db.count("SELECT COUNT(*) FROM kernels" + where), rawCounts(file).kernels);
            QCOMPARE(db.count("SELECT COUNT(*) FROM traces WHERE file = '" + file + "'" + " AND rank = " + std::to_string(rank)), 1);
        }
    }

    // Several files are one run too, as `ranks` takes them; files that are no run are refused with the file named.
    void filesAsRun()
    {
        const std::string db = m_dir.filePath(QStringLiteral("files.db")).toStdString();
        QStringList arguments{"export"};
        for (int rank = 3; rank >= 0; --rank)
            arguments << q(m_rankFolder + "/rank-" + std::to_string(rank) + ".json.gz");
        const auto run = cli(arguments << "--sqlite" << q(db));
        QVERIFY2(run.exitCode == 0, run.err.constData());
        Database files(db), folder(m_run);
        QCOMPARE(files.count("SELECT COUNT(*) FROM traces"), 4);
        QCOMPARE(files.count("SELECT rank FROM traces WHERE trace_id = 0"), 0); // by rank, not argument order
        QCOMPARE(files.count("SELECT COUNT(*) FROM event_rows"), folder.count("SELECT COUNT(*) FROM event_rows"));
        const std::string notRun = m_dir.filePath(QStringLiteral("notrun.db")).toStdString();
        const auto refused = cli({"export", q(m_trace), q(testutil::workloadTrace("jit_cold")), "--sqlite", q(notRun)});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY(refused.err.contains("distributedInfo"));
        QVERIFY(!std::filesystem::exists(notRun));
    }

    // Each query of the doc runs on both databases; each returns rows on at least one.
    void docQueriesRun()
    {
        const std::vector<DocQuery> queries = docQueries();
        QVERIFY(queries.size() >= 10);
        Database single(m_single), run(m_run);
        for (const DocQuery& query : queries) {
            const auto a = single.query(query.sql);
            QVERIFY2(a, (query.name + ": " + single.error()).c_str());
            const auto b = run.query(query.sql);
            QVERIFY2(b, (query.name + ": " + run.error()).c_str());
            QVERIFY2(!a->empty() || !b->empty(), query.name.c_str());
        }
    }

    // Every table and view of the database is documented, and each but the kinds lookup has trace_id and rank.
    void schemaIsDocumented()
    {
        const std::string doc = testutil::readFile(std::string(TILESCOPE_DOCS) + "/sqlite-export.md");
        Database db(m_single);
        const auto names = db.query("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'");
        QVERIFY(names && names->size() >= 18);
        for (const Row& row : *names) {
            QVERIFY2(testutil::contains(doc, "| `" + *row[0] + "` "), row[0]->c_str());
            if (*row[0] == "kinds")
                continue;
            QVERIFY2(db.count("SELECT COUNT(*) FROM pragma_table_info('" + *row[0] + "') WHERE name IN ('trace_id', 'rank')") == 2,
                     row[0]->c_str());
        }
    }

    // The doc's top key-averages row is summary's top row; its top kernel is the top CUDA row.
    void topRowsMatchSummary()
    {
        const auto summary = cli({"summary", q(m_trace), "--format", "json"});
        QCOMPARE(summary.exitCode, 0);
        const io::Json json = io::parseSmallJson(summary.out.toStdString(), "summary");
        const std::string top = json["rows"][0]["key"].get<std::string>();
        Database db(m_single);
        const auto rows = runDocQuery(db, "key-averages");
        QVERIFY(rows && !rows->empty());
        QCOMPARE(*(*rows)[0][1], top);
        // The top kernel by GPU time is the top CUDA row of key_averages whose name is a kernel's.
        const auto kernels = runDocQuery(db, "top-kernels");
        QVERIFY(kernels && !kernels->empty());
        const auto topKernelRow = db.query("SELECT name, self_device_time_total_ns FROM key_averages WHERE device_type = 'CUDA' "
                                           "AND name IN (SELECT name FROM kernels) ORDER BY self_device_time_total_ns DESC LIMIT 1");
        QVERIFY(topKernelRow && topKernelRow->size() == 1);
        QCOMPARE(*(*kernels)[0][0], *(*topKernelRow)[0][0]);
        QCOMPARE(*(*kernels)[0][2], *(*topKernelRow)[0][1]);
    }

    // The doc's nearest-rank percentiles in SQL equal the launches analysis per stream.
    void launchDelayPercentilesMatchLaunches()
    {
        trace::LoadOptions options;
        options.keepRawArgs = false;
        const auto t = trace::loadTrace(m_trace, options);
        const analysis::LaunchStats stats = analysis::computeLaunchStats(*t, analysis::Interval{t->firstTime(), t->lastTime() + 1});
        Database db(m_single);
        const auto rows = runDocQuery(db, "launch-delay-percentiles");
        QVERIFY(rows);
        QCOMPARE(rows->size(), stats.streams.size());
        for (size_t i = 0; i < rows->size(); ++i) {
            const Row& row = (*rows)[i];
            const analysis::StreamLaunchStats& s = stats.streams[i];
            QCOMPARE(std::stoll(*row[1]), static_cast<long long>(s.device));
            QCOMPARE(std::stoull(*row[3]), s.delay.count);
            QCOMPARE(std::stoll(*row[4]), s.delay.p50);
            QCOMPARE(std::stoll(*row[5]), s.delay.p90);
            QCOMPARE(std::stoll(*row[6]), s.delay.p99);
            QCOMPARE(std::stoll(*row[7]), s.delay.max);
        }
    }

    void refusesAnExistingFile()
    {
        const auto sizeBefore = std::filesystem::file_size(m_single);
        const auto again = cli({"export", q(m_trace), "--sqlite", q(m_single)});
        QCOMPARE(again.exitCode, 2);
        QVERIFY(again.err.contains("already exists"));
        QVERIFY(again.err.contains("--force"));
        QVERIFY(again.err.contains(q(m_single).toUtf8()));
        QCOMPARE(std::filesystem::file_size(m_single), sizeBefore);
        // The input is never the output, even with --force.
        const std::string copy = m_dir.filePath(QStringLiteral("copy.json.gz")).toStdString();
        std::filesystem::copy_file(m_trace, copy);
        const auto input = cli({"export", q(copy), "--sqlite", q(copy), "--force"});
        QCOMPARE(input.exitCode, 2);
        QVERIFY(input.err.contains("input"));
        QCOMPARE(std::filesystem::file_size(copy), std::filesystem::file_size(m_trace));
        // --force replaces.
        const std::string other = m_dir.filePath(QStringLiteral("other.db")).toStdString();
        testutil::runProcess(QStringLiteral("cp"), {q(m_run), q(other)});
        const auto forced = cli({"export", q(m_trace), "--sqlite", q(other), "--force"});
        QCOMPARE(forced.exitCode, 0);
        Database db(other);
        QCOMPARE(db.count("SELECT COUNT(*) FROM traces"), 1);
    }

    void badInputLeavesNoDatabase()
    {
        const std::string db = m_dir.filePath(QStringLiteral("bad.db")).toStdString();
        const std::string bad = m_dir.filePath(QStringLiteral("bad.json")).toStdString();
        std::ofstream(bad) << R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": )";
        const auto run = cli({"export", q(bad), "--sqlite", q(db)});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains(q(bad).toUtf8()));
        QVERIFY(!std::filesystem::exists(db));
        QVERIFY(!std::filesystem::exists(db + ".partial"));
        const auto missing = cli({"export", q(m_trace), "--sqlite"});
        QCOMPARE(missing.exitCode, 2);
        const auto noDb = cli({"export", q(m_trace)});
        QCOMPARE(noDb.exitCode, 2);
        QVERIFY(noDb.err.contains("--sqlite"));
        const auto help = cli({"export", "--help"});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.startsWith("usage:\n  export "));
        QVERIFY(cli({"--help"}).out.contains("\n  export "));
    }
};

QTEST_GUILESS_MAIN(TestSqliteExport)
#include "tst_sqliteexport.moc"
