// SPDX-License-Identifier: MIT
#pragma once

#include "trace/rankset.h"
#include "trace/trace.h"

#include <functional>
#include <memory>
#include <string>

namespace tilescope::cli {

extern const char* const kRanksUsage;

// A note on stderr for each of a folder's files passed over as not traces (trace::RankSet::skipped).
void printPassedOver(const trace::RankSet& set);

// `tilescope-cli ranks DIR|FILES... [--format table|json] [--partial]`; returns the exit status. Throws
// io::TraceFileError (naming the file) and std::invalid_argument for a bad --format.
int runRanksCommand(const std::vector<std::string>& paths, const std::string& format, bool partial);

// Any other command given a folder in TRACE's place (argv[2]): loads the folder as a rank set (in
// parallel), then runs `dispatch` once per rank with argv[2] set to that rank's file, each under a
// "== rank N: FILE ==" header; with --format json the outputs become one document:
// {"world_size", "ranks": [{"rank", "file", "result": <the command's JSON>, or null and "error"}]}. A rank
// the command fails on (io::TraceFileError) is reported and the others run; the exit status is the
// worst of the ranks'.
bool tracePathIsFolder(int argc, char** argv);
int runPerRank(int argc, char** argv, bool partial, const std::function<int()>& dispatch);

// The trace runPerRank loaded for `path`, handed over once (so a command does not load it again);
// nullptr when none is waiting.
std::unique_ptr<trace::Trace> takePreloadedTrace(const std::string& path);

} // namespace tilescope::cli
