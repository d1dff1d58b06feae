// SPDX-License-Identifier: MIT
#include "memorycommand.h"

#include <iostream>

namespace tilescope::cli {

int runMemoryOnOtherFile(const std::string& path, const std::string& format)
{
    (void)format; // the snapshot and timeline reports will be rendered in it
    std::cerr << "tilescope-cli: not a trace: " << path
              << " is an allocator snapshot or a memory timeline export, which this build cannot read yet\n";
    return 2;
}

} // namespace tilescope::cli
