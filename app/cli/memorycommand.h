// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace tilescope::cli {

// `tilescope-cli memory FILE` when FILE is not a trace but memory data the loader recognised (an allocator
// snapshot pickle, an export_memory_timeline file): `format` is "table" or "json"; returns the exit status.
// PLACEHOLDER for the snapshot branch (issue #11), which reads those files here; until then it says the
// file is not a trace and returns 2.
int runMemoryOnOtherFile(const std::string& path, const std::string& format);

} // namespace tilescope::cli
