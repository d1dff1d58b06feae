// SPDX-License-Identifier: MIT
#pragma once

#include "io/tracefileerror.h"

#include <iostream>
#include <string>
#include <string_view>

namespace tilescope::cli {

// The exit status of a run that met bad input (a file that is not a trace, a damaged one).
inline constexpr int kExitBadInput = 2;

// Prints bad input's one line on stderr. Memory data given as a trace (an allocator snapshot, a memory
// timeline) is named by the loader; the way to read it is the CLI's own, so it is added here (the app
// offers its own instead).
inline void printInputError(const io::TraceFileError& e)
{
    std::cerr << "tilescope-cli: error: " << e.what() << (e.isMemoryData() ? "; open it with `tilescope-cli memory`" : "") << "\n";
}

// A mistake in the command line, on stderr with where the usage is: the command's own (empty: one it does not
// know) or the full list. Exit status 2, as bad input.
inline int printUsageError(std::string_view command, const std::string& message)
{
    std::cerr << "tilescope-cli: " << message << "\n(run 'tilescope-cli " << command << (command.empty() ? "" : " ") << "--help' for "
              << (command.empty() ? "usage" : "its usage") << ")\n";
    return kExitBadInput;
}

} // namespace tilescope::cli
