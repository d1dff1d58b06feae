// SPDX-License-Identifier: MIT
#pragma once

#include "inputspec.h"

#include <string>
#include <string_view>
#include <vector>

namespace tilescope::torchtool {

class Progress;

// Reports a failed session: the error event on stdout and one "tilescope-torch: ..." line on stderr.
// Returns exitCode for `return reportFailure(...)`.
int reportFailure(Progress& progress, const std::string& message, int exitCode);

// The first line of a (torch) error message: c10::Error texts run on with context lines.
std::string firstLine(std::string_view text);

// parseInputSpec with its InputSpecError turned into a usage SessionError.
std::vector<TensorSpec> parseSpecOrThrow(const std::string& spec);

} // namespace tilescope::torchtool
