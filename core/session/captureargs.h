// SPDX-License-Identifier: MIT
#pragma once

#include "session/sessionconfig.h"

#include <string>
#include <vector>

namespace tilescope::session {

// The `tilescope-cli capture` command line that runs CONFIG (the Profile dialog shows it, to re-run the
// session from a terminal or a job script): "tilescope-cli", "capture", then the options that differ from
// SessionConfig's defaults, script arguments after "--". app/cli/capturecommand.cpp parses it back into the
// same config (tst_session checks the round trip through the real CLI). Calibrate: `tilescope-cli calibrate`.
std::vector<std::string> captureArguments(const SessionConfig& config);

} // namespace tilescope::session
