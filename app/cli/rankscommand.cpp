// SPDX-License-Identifier: MIT
#include "rankscommand.h"

#include "inputerror.h"

#include "analysis/ranks.h"
#include "io/smalljson.h"
#include "io/tracefileerror.h"
#include "report/ranksreport.h"
#include "trace/rankset.h"

#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace tilescope::cli {

void printPassedOver(const trace::RankSet& set)
{
    for (const std::string& why : set.skipped)
        std::cerr << "tilescope-cli: note: passed over: " << why << "\n";
}

const char* const kRanksUsage = R"(  ranks DIR|FILES... [--format table|json] [--partial]
      per-rank traces of one run (distributedInfo.rank; a folder's *.json and *.json.gz files), loaded
      in parallel: per rank the steps, median step time (of an even count the lower middle step), GPU
      busy over the steps, compute kernels per step, time inside collectives per step (NCCL kernels,
      else gloo:/nccl: host ops), the share of it under compute kernels; and the stragglers: ranks
      whose collective time per step is below 0.6x the other ranks' median and shorter by at least 5%
      of the median step (the others wait for them).
      Every other command (info, summary, steps, overlap, ...) given a folder as TRACE runs per rank
)";

namespace {

trace::RankSetLoadOptions loadOptions(bool partial)
{
    trace::RankSetLoadOptions options;
    options.load.partial = partial;
    options.load.keepRawArgs = false;
    return options;
}

void printWarnings(const trace::RankSet& set)
{
    printPassedOver(set);
    for (const trace::RankTrace& r : set.ranks)
        for (const std::string& w : r.trace->stats.warnings)
            std::cerr << "tilescope-cli: warning: " << r.file << ": " << w << "\n";
}

std::map<std::string, std::unique_ptr<trace::Trace>>& preloaded()
{
    static std::map<std::string, std::unique_ptr<trace::Trace>> traces;
    return traces;
}

// --format's value anywhere on the command line ("--format json" or "--format=json"); "" when absent.
std::string formatArgument(int argc, char** argv)
{
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--format" && i + 1 < argc)
            return argv[i + 1];
        if (arg.starts_with("--format="))
            return arg.substr(9);
    }
    return {};
}

} // namespace

int runRanksCommand(const std::vector<std::string>& paths, const std::string& format, bool partial)
{
    if (format != "table" && format != "json")
        throw std::invalid_argument("--format for ranks is table or json, got '" + format + "'");
    trace::RankSetLoadOptions options = loadOptions(partial);
    const std::vector<std::string> files = trace::expandRankPaths(paths, &options.folderFiles);
    const trace::RankSet set = trace::loadRankSet(files, options);
    printWarnings(set);
    const analysis::RanksReport report = analysis::computeRanks(set);
    std::cout << (format == "json" ? report::ranksJson(report) : report::ranksText(report));
    return 0;
}

bool tracePathIsFolder(int argc, char** argv) { return argc >= 3 && trace::isFolder(argv[2]); }

std::unique_ptr<trace::Trace> takePreloadedTrace(const std::string& path)
{
    const auto it = preloaded().find(path);
    if (it == preloaded().end())
        return nullptr;
    std::unique_ptr<trace::Trace> t = std::move(it->second);
    preloaded().erase(it);
    return t;
}

int runPerRank(int argc, char** argv, bool partial, const std::function<int()>& dispatch)
{
    char* const folderArgument = argv[2];
    const std::string folder = folderArgument;
    trace::RankSetLoadOptions options = loadOptions(partial);
    const std::vector<std::string> files = trace::expandRankPaths({folder}, &options.folderFiles);
    trace::RankSet set = trace::loadRankSet(files, options);
    printPassedOver(set); // each rank's own warnings come with its command's output
    const bool json = formatArgument(argc, argv) == "json";
    io::Json ranks = io::Json::array();
    int status = 0;
    for (trace::RankTrace& r : set.ranks) {
        std::string file = r.file;
        preloaded()[file] = std::move(r.trace);
        argv[2] = file.data();
        // A rank the command cannot take (a trace without memory records for `memory`) is reported and the
        // others still run; bad options fail every rank alike and end the run.
        const auto runRank = [&]() -> std::optional<std::string> {
            try {
                status = std::max(status, dispatch());
            } catch (const io::TraceFileError& e) {
                printInputError(e);
                status = std::max(status, kExitBadInput);
                return std::string(e.what());
            }
            return std::nullopt;
        };
        if (!json) {
            std::cout << "== rank " << r.rank << ": " << file << " ==\n" << std::flush;
            runRank();
            std::cout << "\n";
        } else {
            std::ostringstream captured;
            std::streambuf* const saved = std::cout.rdbuf(captured.rdbuf());
            std::optional<std::string> error;
            try {
                error = runRank();
            } catch (...) {
                std::cout.rdbuf(saved);
                throw;
            }
            std::cout.rdbuf(saved);
            io::Json row = io::Json::object();
            row["rank"] = r.rank;
            row["file"] = file;
            // Keeping the numbers' text: a rank's exact absolute times stay exact in the folder's output.
            row["result"] = error ? io::Json(nullptr) : io::parseSmallJsonKeepingNumberText(captured.str(), file);
            if (error)
                row["error"] = *error;
            ranks.push_back(std::move(row));
        }
        preloaded().erase(file);
        argv[2] = folderArgument;
    }
    if (json) {
        io::Json out = io::Json::object();
        out["world_size"] = set.worldSize;
        out["ranks"] = std::move(ranks);
        std::cout << io::dumpJson(out) << "\n";
    }
    return status;
}

} // namespace tilescope::cli
