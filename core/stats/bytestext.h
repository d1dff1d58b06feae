// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>

namespace tilescope::stats {

// Bytes as text for people, in binary units as torch's memory_viz and nvidia-smi print them: "512 B",
// "1.50 KiB", "86.4 MiB", "864.0 MiB", "2.00 GiB". Negative sizes keep their sign.
// The one home for it: the memory graph, its tables, the CLI's memory tables and the snapshot view.
std::string formatBytes(int64_t bytes);

} // namespace tilescope::stats
