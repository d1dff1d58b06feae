// SPDX-License-Identifier: MIT
#include "export/sqliteexport.h"

#include "analysis/launchstats.h"
#include "analysis/overlap.h"
#include "analysis/ranks.h"
#include "analysis/steps.h"
#include "findings/diagnose.h"
#include "io/tracefileerror.h"
#include "memory/memoryanalysis.h"
#include "stats/keyaverages.h"
#include "trace/trace.h"
#include "trace/tracktypename.h"

#include <sqlite3.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <future>
#include <map>
#include <string_view>
#include <system_error>
#include <vector>

namespace tilescope::sqlexport {

namespace {

using trace::EventKind;
using trace::kNoId;
using trace::kNoIndex;

// The schema docs/sqlite-export.md documents. Ids (events, tracks, strings, op input lists) are unique across
// the database: a trace's local index plus the count of the traces before it, so every join is a rowid lookup.
// @KERNEL@ is EventKind::Kernel's number.
constexpr std::string_view kSchema = R"SQL(
CREATE TABLE traces (trace_id INTEGER PRIMARY KEY, rank INTEGER, world_size INTEGER, backend TEXT, file TEXT NOT NULL,
    format TEXT, base_time_ns INTEGER, first_ns INTEGER, last_ns INTEGER, first_event_id INTEGER, events INTEGER);
CREATE TABLE kinds (kind INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE strings (id INTEGER PRIMARY KEY, trace_id INTEGER NOT NULL, value TEXT NOT NULL);
CREATE TABLE tracks (id INTEGER PRIMARY KEY, trace_id INTEGER NOT NULL, rank INTEGER, type TEXT, pid TEXT,
    process_name TEXT, tid TEXT, name TEXT, device INTEGER, stream INTEGER, events INTEGER, max_depth INTEGER);
CREATE TABLE event_rows (id INTEGER PRIMARY KEY, trace_id INTEGER NOT NULL, rank INTEGER, name_id INTEGER,
    cat_id INTEGER, kind INTEGER, track_id INTEGER, start_ns INTEGER, dur_ns INTEGER, parent INTEGER, depth INTEGER,
    external_id INTEGER, correlation INTEGER);
CREATE VIEW events AS SELECT e.id, e.trace_id, e.rank, n.value AS name, c.value AS cat, k.name AS kind, e.track_id,
    e.start_ns, e.dur_ns, e.start_ns + e.dur_ns AS end_ns, e.parent, e.depth, e.external_id, e.correlation
    FROM event_rows e JOIN strings n ON n.id = e.name_id JOIN strings c ON c.id = e.cat_id JOIN kinds k ON k.kind = e.kind;
CREATE VIEW kernels AS SELECT e.id, e.trace_id, e.rank, n.value AS name, e.start_ns, e.dur_ns, t.device, t.stream,
    e.correlation, e.external_id FROM event_rows e JOIN strings n ON n.id = e.name_id JOIN tracks t ON t.id = e.track_id
    WHERE e.kind = @KERNEL@;
CREATE TABLE ops (event_id INTEGER PRIMARY KEY, trace_id INTEGER NOT NULL, rank INTEGER, input_shapes TEXT,
    input_types TEXT, flops INTEGER, sequence INTEGER, input_list_id INTEGER);
CREATE TABLE op_inputs (input_list_id INTEGER NOT NULL, trace_id INTEGER NOT NULL, rank INTEGER, position INTEGER NOT NULL,
    type TEXT, sizes TEXT, strides TEXT, concrete TEXT, is_list INTEGER, PRIMARY KEY (input_list_id, position));
CREATE TABLE launches (launch_id INTEGER PRIMARY KEY, trace_id INTEGER NOT NULL, rank INTEGER, activity_id INTEGER,
    activities INTEGER, device INTEGER, stream INTEGER, cpu_ns INTEGER, gpu_ns INTEGER, delay_ns INTEGER);
CREATE TABLE flows (trace_id INTEGER NOT NULL, rank INTEGER, flow_id, phase TEXT, time_ns INTEGER, track_id INTEGER,
    cat TEXT, binds_enclosing INTEGER);
CREATE TABLE memory (trace_id INTEGER NOT NULL, rank INTEGER, time_ns INTEGER, bytes INTEGER, total_allocated INTEGER,
    total_reserved INTEGER, address INTEGER, track_id INTEGER, device_type INTEGER, device_id INTEGER,
    out_of_memory INTEGER);
CREATE TABLE counters (trace_id INTEGER NOT NULL, rank INTEGER, time_ns INTEGER, track_id INTEGER, series TEXT,
    value REAL);
CREATE TABLE key_averages (trace_id INTEGER NOT NULL, rank INTEGER, position INTEGER, name TEXT, device_type TEXT,
    is_user_annotation INTEGER, count INTEGER, cpu_time_total_ns INTEGER, self_cpu_time_total_ns INTEGER,
    device_time_total_ns INTEGER, self_device_time_total_ns INTEGER, cpu_memory_usage INTEGER,
    self_cpu_memory_usage INTEGER, device_memory_usage INTEGER, self_device_memory_usage INTEGER, flops INTEGER);
CREATE TABLE steps (trace_id INTEGER NOT NULL, rank INTEGER, position INTEGER, number INTEGER, event_id INTEGER,
    name TEXT, start_ns INTEGER, dur_ns INTEGER, gpu_busy_ns INTEGER, kernels INTEGER, cpu_busy_ns INTEGER);
CREATE TABLE findings (trace_id INTEGER NOT NULL, rank INTEGER, position INTEGER, rule TEXT, title TEXT,
    strength TEXT, impact_ns INTEGER, evidence TEXT, columns TEXT, next_step TEXT);
CREATE TABLE finding_ranges (trace_id INTEGER NOT NULL, rank INTEGER, finding INTEGER, start_ns INTEGER,
    end_ns INTEGER, event_id INTEGER);
CREATE TABLE ranks (trace_id INTEGER, rank INTEGER NOT NULL, world_size INTEGER, steps INTEGER, has_steps INTEGER,
    step_median_ns INTEGER, gpu_busy_ns INTEGER, compute_ns_per_step INTEGER, collective_ns_per_step INTEGER,
    collective_median_ns INTEGER, comm_comp_overlap REAL, collective_source TEXT, others_median_ns INTEGER,
    wait_ratio REAL, gap_of_step REAL, straggler INTEGER);
)SQL";

std::string schemaSql()
{
    std::string sql(kSchema);
    const std::string_view marker = "@KERNEL@";
    sql.replace(sql.find(marker), marker.size(), std::to_string(static_cast<int>(EventKind::Kernel)));
    return sql;
}

// SQL NULL for "not recorded".
struct Null
{ };
constexpr Null null{};

class Statement
{
public:
    Statement(sqlite3* db, const std::string& path, std::string_view sql)
        : m_db(db)
        , m_path(&path)
    {
        if (sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &m_stmt, nullptr) != SQLITE_OK)
            fail("preparing '" + std::string(sql) + "'");
    }
    ~Statement() { sqlite3_finalize(m_stmt); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    // One row: each argument bound in order, then stepped and reset.
    template <typename... Values> void insert(const Values&... values)
    {
        int index = 0;
        (bind(++index, values), ...);
        if (sqlite3_step(m_stmt) != SQLITE_DONE)
            fail("writing a row");
        sqlite3_reset(m_stmt);
    }

private:
    [[noreturn]] void fail(const std::string& what) const
    {
        throw io::TraceFileError(*m_path, std::nullopt, "SQLite error " + what + ": " + sqlite3_errmsg(m_db));
    }
    void bind(int i, Null) { sqlite3_bind_null(m_stmt, i); }
    void bind(int i, int64_t v) { sqlite3_bind_int64(m_stmt, i, v); }
    void bind(int i, uint64_t v) { sqlite3_bind_int64(m_stmt, i, static_cast<int64_t>(v)); }
    void bind(int i, int v) { sqlite3_bind_int64(m_stmt, i, v); }
    void bind(int i, uint32_t v) { sqlite3_bind_int64(m_stmt, i, v); }
    void bind(int i, uint16_t v) { sqlite3_bind_int64(m_stmt, i, v); }
    void bind(int i, int16_t v) { sqlite3_bind_int64(m_stmt, i, v); }
    void bind(int i, bool v) { sqlite3_bind_int64(m_stmt, i, v ? 1 : 0); }
    void bind(int i, double v) { sqlite3_bind_double(m_stmt, i, v); }
    // The text must live until the row is stepped (it does: bound and stepped in one insert()).
    void bind(int i, std::string_view v)
    {
        // An empty view may have no data pointer, which SQLite would take for NULL.
        sqlite3_bind_text64(m_stmt, i, v.empty() ? "" : v.data(), v.size(), SQLITE_STATIC, SQLITE_UTF8);
    }
    void bind(int i, const std::string& v) { bind(i, std::string_view(v)); }
    void bind(int i, const char* v) { bind(i, std::string_view(v)); }
    template <typename T> void bind(int i, const std::optional<T>& v)
    {
        if (v)
            bind(i, *v);
        else
            bind(i, null);
    }

    sqlite3* m_db;
    const std::string* m_path;
    sqlite3_stmt* m_stmt = nullptr;
};

// kNoId -> NULL.
std::optional<int64_t> recorded(int64_t id) { return id == kNoId ? std::nullopt : std::optional<int64_t>(id); }

// A local index -> its database id (base + index), kNoIndex -> NULL.
std::optional<int64_t> globalId(int64_t base, uint32_t index)
{
    return index == kNoIndex ? std::nullopt : std::optional<int64_t>(base + index);
}

// torch's microseconds (sums of ns / 1000) as integer ns.
int64_t usToNs(double us) { return std::llround(us * 1000.0); }

// "[8, 512]", as torch prints a shape.
void appendInts(std::string& out, std::span<const int64_t> values)
{
    out += '[';
    char buffer[24];
    for (size_t i = 0; i < values.size(); ++i) {
        if (i > 0)
            out += ", ";
        const auto end = std::to_chars(buffer, buffer + sizeof buffer, values[i]).ptr;
        out.append(buffer, end);
    }
    out += ']';
}

std::string joined(const std::vector<std::string>& parts, std::string_view separator)
{
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i)
        out += (i > 0 ? std::string(separator) : std::string()) + parts[i];
    return out;
}

// What the derived tables hold, computed by the analyses the CLI commands use (summary, launches, steps,
// diagnose), once each.
struct Derived
{
    stats::KeyAverages averages;
    analysis::LaunchStats launches;
    analysis::StepTable steps;
    std::vector<findings::Finding> findings;
};

Derived computeDerived(const trace::Trace& t, const roofline::ClassifyOptions& classify)
{
    Derived d;
    d.averages = stats::computeKeyAverages(t);
    // Every launch: the window is the whole trace, not launches' default (CPU work and GPU activity).
    d.launches = analysis::computeLaunchStats(t, analysis::Interval{t.firstTime(), t.lastTime() + 1});
    d.steps = analysis::computeStepTable(t);
    // As `diagnose` computes them.
    const analysis::OverlapReport overlap = analysis::computeOverlap(t);
    const memory::MemoryAnalysis memory = memory::analyzeMemory(t);
    const roofline::ClassifyReport classification = roofline::classify(t, classify);
    const findings::DiagnoseInputs inputs{&d.averages, &overlap, &memory, &classification, nullptr, std::nullopt};
    d.findings = findings::diagnose(t, inputs);
    return d;
}

} // namespace

struct SqliteExport::Database
{
    sqlite3* db = nullptr;
    const std::string* path = nullptr;
    // Ids handed out so far (the next trace's bases).
    int64_t traces = 0, events = 0, tracks = 0, strings = 0, inputLists = 0;
    // rank -> trace_id, for the ranks table.
    std::map<int64_t, int64_t> traceOfRank;
    std::map<int64_t, int64_t> worldSizeOfRank;

    void exec(const std::string& sql) const
    {
        char* error = nullptr;
        if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
            const std::string message = error ? error : sqlite3_errmsg(db);
            sqlite3_free(error);
            throw io::TraceFileError(*path, std::nullopt, "SQLite error: " + message);
        }
    }
    ~Database() { sqlite3_close(db); }
};

SqliteExport::SqliteExport(std::string path, bool overwrite)
    : m_path(std::move(path))
    , m_partialPath(m_path + ".partial")
{
    std::error_code ec;
    if (std::filesystem::exists(m_path, ec) && !overwrite)
        throw io::TraceFileError(m_path, std::nullopt, "already exists; pass --force to replace it");
    if (std::filesystem::is_directory(m_path, ec))
        throw io::TraceFileError(m_path, std::nullopt, "is a folder, not a database file");
    std::filesystem::remove(m_partialPath, ec); // a crashed earlier export's
    // SQLite's allocation statistics take a global mutex on every malloc (a tenth of the export's time); they
    // can only be turned off before SQLite initialises, so the first export does it (a later call is refused,
    // harmlessly, with SQLITE_MISUSE).
    static const bool statisticsOff = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK;
    (void)statisticsOff;
    m_db = std::make_unique<Database>();
    m_db->path = &m_path;
    if (sqlite3_open_v2(m_partialPath.c_str(), &m_db->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXCLUSIVE | SQLITE_OPEN_NOMUTEX, // one thread uses it
                        nullptr)
        != SQLITE_OK)
        throw io::TraceFileError(m_path, std::nullopt,
                                 std::string("cannot create the database: ") + (m_db->db ? sqlite3_errmsg(m_db->db) : "out of memory"));
    // A fresh file nobody else reads until it is renamed into place: no journal, no fsync; a failure
    // discards the file. The page cache is bounded (16 MiB): rows spill to the file as they come.
    m_db->exec("PRAGMA page_size = 65536; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; "
               "PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -16384; PRAGMA temp_store = MEMORY;");
    m_db->exec(schemaSql());
    m_db->exec("BEGIN");
    Statement kind(m_db->db, m_path, "INSERT INTO kinds VALUES (?, ?)");
    for (int k = 0; k < static_cast<int>(EventKind::Count); ++k)
        kind.insert(k, trace::eventKindName(static_cast<EventKind>(k)));
}

SqliteExport::~SqliteExport()
{
    if (m_finished)
        return;
    m_db.reset();
    std::error_code ec;
    std::filesystem::remove(m_partialPath, ec);
}

TraceCounts SqliteExport::addTrace(const trace::Trace& t, const TraceInfo& info)
{
    // The analyses run on a second thread while this one writes the model (the trace is read-only).
    auto derived = std::async(std::launch::async, [&] { return computeDerived(t, info.classify); });

    Database& d = *m_db;
    sqlite3* db = d.db;
    TraceCounts counts;
    const int64_t traceId = d.traces++;
    counts.traceId = traceId;
    const std::optional<int64_t> rank = info.rank;
    if (rank) {
        d.traceOfRank[*rank] = traceId;
        if (info.worldSize)
            d.worldSizeOfRank[*rank] = *info.worldSize;
    }
    const int64_t eventBase = d.events, trackBase = d.tracks, stringBase = d.strings, listBase = d.inputLists;

    Statement(db, m_path, "INSERT INTO traces VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .insert(traceId, rank, info.worldSize, info.backend.empty() ? std::optional<std::string>() : info.backend, info.file,
                trace::traceFormatName(t.meta.format), t.meta.baseTimeNs, t.firstTime(), t.lastTime(), eventBase,
                static_cast<uint64_t>(t.events.size()));

    {
        Statement insert(db, m_path, "INSERT INTO strings VALUES (?, ?, ?)");
        for (size_t i = 0; i < t.strings.size(); ++i)
            insert.insert(stringBase + static_cast<int64_t>(i), traceId, t.strings.view(static_cast<trace::StringId>(i)));
        counts.strings = t.strings.size();
    }
    {
        Statement insert(db, m_path, "INSERT INTO tracks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        for (size_t i = 0; i < t.tracks.size(); ++i) {
            const trace::Track& track = t.tracks[i];
            const trace::Process* process = track.process == kNoIndex ? nullptr : &t.processes[track.process];
            const auto text = [&](trace::StringId id) {
                return id == 0 ? std::optional<std::string_view>() : std::optional<std::string_view>(t.strings.view(id));
            };
            insert.insert(trackBase + static_cast<int64_t>(i), traceId, rank, trace::trackTypeName(track.type),
                          process ? text(process->pidText) : std::nullopt, process ? text(process->name) : std::nullopt,
                          text(track.tidText), text(track.name), track.device < 0 ? std::optional<int>() : std::optional<int>(track.device),
                          track.stream, static_cast<uint64_t>(track.events.size()), track.maxDepth);
        }
        counts.tracks = t.tracks.size();
    }
    {
        Statement insert(db, m_path, "INSERT INTO event_rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        for (size_t i = 0; i < t.events.size(); ++i) {
            const trace::Event& e = t.events[i];
            insert.insert(eventBase + static_cast<int64_t>(i), traceId, rank, stringBase + e.name, stringBase + e.category,
                          static_cast<int>(e.kind), trackBase + e.track, e.start, e.duration, globalId(eventBase, e.parent), e.depth,
                          recorded(e.externalId), recorded(e.correlation));
        }
        counts.events = t.events.size();
    }
    {
        Statement insert(db, m_path, "INSERT INTO ops VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
        for (size_t i = 0; i < t.events.size(); ++i) {
            const trace::Event& e = t.events[i];
            if (e.op == kNoIndex)
                continue;
            const trace::OpInfo& op = t.ops[e.op];
            insert.insert(eventBase + static_cast<int64_t>(i), traceId, rank, t.strings.view(op.inputShapes), t.strings.view(op.inputTypes),
                          op.flops, recorded(op.sequence), op.inputs < t.opInputs.size() ? globalId(listBase, op.inputs) : std::nullopt);
            ++counts.ops;
        }
    }
    {
        Statement insert(db, m_path, "INSERT INTO op_inputs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
        trace::OpInputList list;
        std::string sizes, strides;
        for (uint32_t id = 0; id < t.opInputs.size(); ++id) {
            t.opInputs.get(id, t.strings, list);
            for (size_t p = 0; p < list.inputs.size(); ++p) {
                const trace::OpInput& in = list.inputs[p];
                sizes.clear();
                strides.clear();
                appendInts(sizes, in.sizes);
                appendInts(strides, in.strides);
                insert.insert(listBase + id, traceId, rank, static_cast<uint64_t>(p), in.type, sizes,
                              list.hasStrides ? std::optional<std::string>(strides) : std::nullopt,
                              list.hasConcrete ? std::optional<std::string_view>(in.concrete) : std::nullopt, in.isList);
                ++counts.opInputs;
            }
        }
    }
    {
        Statement insert(db, m_path, "INSERT INTO flows VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
        for (const trace::Flow& f : t.flows) {
            const char phase[2] = {f.phase, 0};
            if (f.idIsString)
                insert.insert(traceId, rank, t.strings.view(static_cast<trace::StringId>(f.id)), std::string_view(phase, 1), f.time,
                              trackBase + f.track, t.strings.view(f.category), f.bindsEnclosing);
            else
                insert.insert(traceId, rank, f.id, std::string_view(phase, 1), f.time, trackBase + f.track, t.strings.view(f.category),
                              f.bindsEnclosing);
        }
        counts.flows = t.flows.size();
    }
    {
        Statement insert(db, m_path, "INSERT INTO memory VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        for (const trace::MemoryRecord& m : t.memory)
            insert.insert(traceId, rank, m.time, m.bytes, recorded(m.totalAllocated), recorded(m.totalReserved), recorded(m.address),
                          trackBase + m.track, m.deviceType, m.deviceId, m.outOfMemory);
        counts.memory = t.memory.size();
    }
    {
        Statement insert(db, m_path, "INSERT INTO counters VALUES (?, ?, ?, ?, ?, ?)");
        for (const trace::CounterSample& c : t.counters)
            insert.insert(traceId, rank, c.time, trackBase + c.track, t.strings.view(c.series), c.value);
        counts.counters = t.counters.size();
    }

    const Derived r = derived.get();
    {
        Statement insert(db, m_path, "INSERT INTO key_averages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        for (size_t i = 0; i < r.averages.rows.size(); ++i) {
            const stats::KeyAverage& a = r.averages.rows[i];
            insert.insert(traceId, rank, static_cast<uint64_t>(i), a.key, a.deviceType == stats::DeviceType::CUDA ? "CUDA" : "CPU",
                          a.isUserAnnotation, a.count, usToNs(a.cpuTimeTotal), usToNs(a.selfCpuTimeTotal), usToNs(a.deviceTimeTotal),
                          usToNs(a.selfDeviceTimeTotal), a.cpuMemoryUsage, a.selfCpuMemoryUsage, a.deviceMemoryUsage,
                          a.selfDeviceMemoryUsage, a.flops);
        }
        counts.keyAverages = r.averages.rows.size();
    }
    {
        Statement insert(db, m_path, "INSERT INTO launches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        for (const analysis::LaunchRecord& l : r.launches.launches) {
            const analysis::StreamLaunchStats& s = r.launches.streams[l.stream];
            insert.insert(eventBase + l.launch, traceId, rank, globalId(eventBase, l.activity), l.activities,
                          s.device < 0 ? std::optional<int>() : std::optional<int>(s.device), s.stream, l.cpuNs, l.gpuNs, l.delayNs);
        }
        counts.launches = r.launches.launches.size();
    }
    {
        Statement insert(db, m_path, "INSERT INTO steps VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        for (const analysis::StepRow& s : r.steps.steps)
            insert.insert(traceId, rank, s.index, s.number, globalId(eventBase, s.event),
                          s.name == kNoIndex ? std::string_view() : t.strings.view(s.name), s.start, s.durationNs, s.gpuBusyNs, s.kernels,
                          s.cpuBusyNs);
        counts.steps = r.steps.steps.size();
    }
    {
        Statement insert(db, m_path, "INSERT INTO findings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        Statement range(db, m_path, "INSERT INTO finding_ranges VALUES (?, ?, ?, ?, ?, ?)");
        for (size_t i = 0; i < r.findings.size(); ++i) {
            const findings::Finding& f = r.findings[i];
            insert.insert(traceId, rank, static_cast<uint64_t>(i), f.id, f.title, findings::strengthName(f.strength), f.impactNs,
                          joined(f.evidence, "\n"), joined(f.columns, ", "), f.nextStep);
            for (const findings::Where& w : f.where)
                range.insert(traceId, rank, static_cast<uint64_t>(i), w.start, w.end, globalId(eventBase, w.event));
        }
        counts.findings = r.findings.size();
    }

    d.events += static_cast<int64_t>(t.events.size());
    d.tracks += static_cast<int64_t>(t.tracks.size());
    d.strings += static_cast<int64_t>(t.strings.size());
    d.inputLists += static_cast<int64_t>(t.opInputs.size());
    return counts;
}

void SqliteExport::addRanks(const analysis::RanksReport& report)
{
    Statement insert(m_db->db, m_path, "INSERT INTO ranks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (size_t i = 0; i < report.ranks.size(); ++i) {
        const analysis::RankFigures& f = report.ranks[i];
        const auto trace = m_db->traceOfRank.find(f.rank);
        const analysis::StragglerEvidence* evidence = i < report.verdict.evidence.size() ? &report.verdict.evidence[i] : nullptr;
        const auto ifApplicable = [&](auto value) {
            return report.verdict.applicable && evidence ? std::optional<decltype(value)>(value) : std::nullopt;
        };
        insert.insert(trace == m_db->traceOfRank.end() ? std::optional<int64_t>() : std::optional<int64_t>(trace->second), f.rank,
                      report.worldSize, f.steps, f.hasSteps, f.stepMedianNs, f.gpuBusyNs, f.computeNsPerStep, f.collectiveNsPerStep,
                      f.collectiveMedianNs, f.commCompOverlap, analysis::collectiveSourceText(f.collectiveSource),
                      ifApplicable(evidence ? evidence->othersMedianNs : 0), ifApplicable(evidence ? evidence->waitRatio : 0.0),
                      ifApplicable(evidence ? evidence->gapOfStep : 0.0), evidence && evidence->straggler);
    }
}

void SqliteExport::finish()
{
    m_db->exec("COMMIT");
    m_db.reset(); // closes the file
    std::error_code ec;
    std::filesystem::rename(m_partialPath, m_path, ec);
    if (ec)
        throw io::TraceFileError(m_path, std::nullopt, "cannot move the finished database into place: " + ec.message());
    m_finished = true;
}

} // namespace tilescope::sqlexport
