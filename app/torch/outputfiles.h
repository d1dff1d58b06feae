// SPDX-License-Identifier: MIT
#pragma once

#include <filesystem>
#include <string>

namespace tilescope::torchtool {

// Creates DIR if needed and proves it writable by writing a scratch file; throws SessionError otherwise.
// Returns DIR made absolute (progress lines carry absolute paths).
std::filesystem::path prepareOutputDir(const std::string& dir);

// io::writeTextFileAtomically, failing with a SessionError (the error event's one line).
void writeFileAtomically(const std::filesystem::path& file, const std::string& text);

} // namespace tilescope::torchtool
