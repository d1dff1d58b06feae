// SPDX-License-Identifier: MIT
// The project version and the commit the binary was built from (--version, the About box, reports).
#pragma once

namespace tilescope {
// project(VERSION) in the top CMakeLists.txt, e.g. "0.1.0".
extern const char* const kVersion;
// The git commit at build time (12 hex digits, "-dirty" when the tree had uncommitted changes), or
// "unknown" outside a git checkout (a source tarball).
extern const char* const kCommit;
} // namespace tilescope
