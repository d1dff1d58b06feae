// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace tilescope::cli {

// `tilescope-cli memory FILE` when FILE is not a trace but memory data the loader recognised (an allocator
// snapshot pickle, an export_memory_timeline file): `format` is "table" or "json"; returns the exit status.
int runMemoryOnOtherFile(const std::string& path, const std::string& format);

} // namespace tilescope::cli
