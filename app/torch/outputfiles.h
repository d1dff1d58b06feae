// SPDX-License-Identifier: MIT
#pragma once

#include <filesystem>
#include <string>

namespace tilescope::torchtool {

// Creates DIR if needed and proves it writable by writing a scratch file; throws SessionError otherwise.
// Returns DIR made absolute (progress lines carry absolute paths).
std::filesystem::path prepareOutputDir(const std::string& dir);

// Writes FILE through FILE.tmp and a rename, so a reader never sees half a file.
void writeFileAtomically(const std::filesystem::path& file, const std::string& text);

} // namespace tilescope::torchtool
