// SPDX-License-Identifier: MIT
#pragma once

#include "trace/trace.h"
#include "trace/traceloader.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tilescope::trace {

// What a trace says about the distributed run it belongs to: Kineto's top-level `distributedInfo`
// ({"backend": "nccl", "rank": 3, "world_size": 8, ...}). Empty fields when the key or member is absent.
struct DistributedInfo
{
    std::optional<int64_t> rank;
    std::optional<int64_t> worldSize;
    std::string backend;
};
DistributedInfo distributedInfoOf(const Trace& trace);

// One rank of a run: its trace and the file it came from.
struct RankTrace
{
    int64_t rank = 0;
    std::string file;
    std::string backend;
    std::unique_ptr<Trace> trace;
};

// Per-rank traces of one run (issue #13), by rank. `worldSize` is the run's (every file agrees); a set may
// hold fewer ranks than that (e.g. two sampled ranks of 128).
struct RankSet
{
    int64_t worldSize = 0;
    std::vector<RankTrace> ranks;
    std::vector<std::string> skipped; // "FILE: why" for each of RankSetLoadOptions::folderFiles passed over
};

// The trace files (*.json, *.json.gz, *.pt.trace.json...) directly in `folder`, sorted by name.
// io::TraceFileError naming the folder when it cannot be read or holds no trace file.
std::vector<std::string> traceFilesInFolder(const std::string& folder);

// Each argument a folder (its trace files) or a file, in order; the rank files of a `ranks` command line.
// `fromFolders`, when given, gets the files found in a folder (RankSetLoadOptions::folderFiles).
std::vector<std::string> expandRankPaths(const std::vector<std::string>& paths, std::set<std::string>* fromFolders = nullptr);

struct RankSetLoadOptions
{
    LoadOptions load;     // its progress is called, under a lock, with the sums over all files
    unsigned threads = 0; // 0: one per hardware thread (at most one per file)
    // The files that came from a folder: where one is not a trace (a run's meta.json, torch's key averages,
    // a memory timeline beside the traces) it is passed over and named in RankSet::skipped. A file named on
    // its own must be a trace, and a damaged trace is an error wherever it came from.
    std::set<std::string> folderFiles;
};

// Loads `files` in parallel (std::thread, one file per thread at a time) and checks they form one run:
// every file has distributedInfo.rank and world_size, the world sizes agree, no rank appears twice, and
// every rank is below the world size. Throws io::TraceFileError naming the file (the first in `files`
// order when several fail) and what is wrong; io::LoadCancelled when cancelled.
RankSet loadRankSet(const std::vector<std::string>& files, const RankSetLoadOptions& options = {});

// True when `path` names a folder (what a command given a folder instead of a trace does per rank).
bool isFolder(const std::string& path);

} // namespace tilescope::trace
