// SPDX-License-Identifier: MIT
#include "exportcommand.h"

#include "rankscommand.h"
#include "analysis/ranks.h"
#include "export/sqliteexport.h"
#include "io/tracefileerror.h"
#include "trace/rankset.h"
#include "trace/traceloader.h"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>
#include <stdexcept>

namespace tilescope::cli {

const char* const kExportUsage = R"(  export TRACE|DIR|FILES... --sqlite FILE.db [--force] [--partial]
      the event model as SQL tables in one SQLite database (schema and example queries: docs/sqlite-export.md
      in the source, /usr/share/doc/tilescope/sqlite-export.md.gz installed): traces, devices, tracks, strings, events (every slice), kernels, ops and their
      inputs, launches (call -> first activity, launch delay), flows, memory records, counters,
      key_averages (summary's rows), steps, findings (diagnose's) and, for a folder or several files
      (one run, loaded as ranks loads them), the ranks table. Every row has its trace_id and rank;
      times are integer nanoseconds (start_ns, dur_ns). An existing FILE.db is refused unless --force;
      the inputs are never written
)";

namespace {

void printWarnings(const std::string& file, const trace::Trace& t)
{
    for (const std::string& w : t.stats.warnings)
        std::cerr << "tilescope-cli: warning: " << file << ": " << w << "\n";
}

// The database must not be one of the traces it is made from (--force would replace the input).
void refuseInputAsOutput(const std::vector<std::string>& inputs, const std::string& database)
{
    std::error_code ec;
    if (!std::filesystem::exists(database, ec))
        return;
    for (const std::string& input : inputs)
        if (std::filesystem::equivalent(input, database, ec))
            throw io::TraceFileError(database, std::nullopt, "is one of the input traces; choose another database file");
}

} // namespace

int runExportCommand(const std::vector<std::string>& paths, const std::string& database, bool force, bool partial,
                     const std::function<roofline::ClassifyOptions(const std::string&)>& classifyOptionsFor)
{
    if (database.empty())
        throw std::invalid_argument("export needs --sqlite FILE.db");
    const auto started = std::chrono::steady_clock::now();
    const bool run = paths.size() > 1 || trace::isFolder(paths.front());
    std::set<std::string> folderFiles;
    const std::vector<std::string> files = run ? trace::expandRankPaths(paths, &folderFiles) : paths;
    refuseInputAsOutput(files, database);
    sqlexport::SqliteExport out(database, force); // refuses an existing file before anything is loaded

    trace::LoadOptions load;
    load.partial = partial;
    load.keepRawArgs = false;
    uint64_t events = 0;
    size_t traces = 0;
    if (!run) {
        const std::unique_ptr<trace::Trace> t = trace::loadTrace(files.front(), load);
        printWarnings(files.front(), *t);
        const trace::DistributedInfo distributed = trace::distributedInfoOf(*t);
        events += out.addTrace(
                         *t,
                         {files.front(), distributed.rank, distributed.worldSize, distributed.backend, classifyOptionsFor(files.front())})
                      .events;
        traces = 1;
    } else {
        trace::RankSetLoadOptions options;
        options.load = load;
        options.folderFiles = folderFiles;
        trace::RankSet set = trace::loadRankSet(files, options);
        printPassedOver(set);
        for (const trace::RankTrace& r : set.ranks)
            printWarnings(r.file, *r.trace);
        const analysis::RanksReport report = analysis::computeRanks(set);
        for (trace::RankTrace& r : set.ranks) {
            events += out.addTrace(*r.trace, {r.file, r.rank, set.worldSize, r.backend, classifyOptionsFor(r.file)}).events;
            r.trace.reset(); // written: its memory goes back before the next rank's rows
            ++traces;
        }
        out.addRanks(report);
    }
    out.finish();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::cout << "wrote " << database << ": " << traces << (traces == 1 ? " trace, " : " traces, ") << events << " events in "
              << static_cast<int64_t>(seconds * 1000.0) << " ms\n";
    return 0;
}

} // namespace tilescope::cli
