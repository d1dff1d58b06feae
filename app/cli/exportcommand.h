// SPDX-License-Identifier: MIT
#pragma once

#include "roofline/classify.h"

#include <functional>
#include <string>
#include <vector>

namespace tilescope::cli {

extern const char* const kExportUsage;

// `tilescope-cli export TRACE|DIR|FILES... --sqlite FILE.db [--force] [--partial]`; returns the exit status.
// One trace file is exported alone; a folder or several files are loaded as a rank set (as `ranks` loads
// them) and land in one database with the ranks table. `classifyOptionsFor` gives the roofline options for
// a trace (its annotations sidecar), as diagnose reads them. Throws io::TraceFileError naming the file, and
// std::invalid_argument for a bad command line.
int runExportCommand(const std::vector<std::string>& paths, const std::string& database, bool force, bool partial,
                     const std::function<roofline::ClassifyOptions(const std::string&)>& classifyOptionsFor);

} // namespace tilescope::cli
