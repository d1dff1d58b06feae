// SPDX-License-Identifier: MIT
#pragma once

#include "roofline/classify.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace tilescope::trace {
class Trace;
}
namespace tilescope::analysis {
struct RanksReport;
}

namespace tilescope::sqlexport {

// The event model as SQL tables in one SQLite database (issue #14, docs/sqlite-export.md has the schema):
// every trace of a run in one file, each row with its trace_id and rank, times as integer ns. Rows are
// streamed through prepared statements inside a transaction into a fresh file (journal and sync off), so
// the export holds no copy of the model; the derived tables (key averages, launches, steps, findings) are
// computed on a second thread while the events are written.
//
// Lives in its own library (tilescope_sqlite) so core builds without SQLite.

// What the database says about one trace besides its model.
struct TraceInfo
{
    std::string file;
    std::optional<int64_t> rank; // distributedInfo's, when the trace has one
    std::optional<int64_t> worldSize;
    std::string backend;
    roofline::ClassifyOptions classify; // for the findings' roofline class (annotations beside the trace)
};

// Rows written per table for one trace (what the tests compare with the model).
struct TraceCounts
{
    int64_t traceId = 0;
    uint64_t events = 0, tracks = 0, strings = 0, ops = 0, opInputs = 0, launches = 0, flows = 0, memory = 0, counters = 0, keyAverages = 0,
             steps = 0, findings = 0;
};

class SqliteExport
{
public:
    // Creates `path`. An existing file is refused (io::TraceFileError naming it) unless `overwrite`. Rows go to
    // "PATH.partial" first, renamed to `path` by finish(): a failed export leaves no half database behind.
    SqliteExport(std::string path, bool overwrite);
    ~SqliteExport(); // without finish(): removes the partial file
    SqliteExport(const SqliteExport&) = delete;
    SqliteExport& operator=(const SqliteExport&) = delete;

    // Writes one trace's tables. May be called once per rank of a run.
    TraceCounts addTrace(const trace::Trace& trace, const TraceInfo& info);
    // The `ranks` table (analysis/ranks) of a run whose traces were all added, matched by rank.
    void addRanks(const analysis::RanksReport& report);
    // Commits and moves the file into place.
    void finish();

    const std::string& path() const { return m_path; }

private:
    struct Database;
    std::string m_path;
    std::string m_partialPath;
    std::unique_ptr<Database> m_db;
    bool m_finished = false;
};

} // namespace tilescope::sqlexport
