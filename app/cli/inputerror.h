// SPDX-License-Identifier: MIT
#pragma once

#include "io/tracefileerror.h"

#include <iostream>

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

} // namespace tilescope::cli
