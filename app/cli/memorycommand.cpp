// SPDX-License-Identifier: MIT
#include "memorycommand.h"

#include "report/snapshotreport.h"

#include <iostream>

namespace tilescope::cli {

int runMemoryOnOtherFile(const std::string& path, const std::string& format)
{
    // Detected by content; a malformed file throws io::TraceFileError, which main turns into exit 2.
    std::cout << report::memoryFileReport(path, format);
    return 0;
}

} // namespace tilescope::cli
