// SPDX-License-Identifier: MIT
#pragma once

namespace tilescope::cli {

// tilescope-cli capture ...: runs a profiling session (docs/sessions.md) and prints the trace's path.
int runCaptureCommand(int argc, char** argv);
// tilescope-cli calibrate ...: measures roofline ceilings through tilescope-torch.
int runCalibrateCommand(int argc, char** argv);

extern const char* const kCaptureUsage;
extern const char* const kCalibrateUsage;

} // namespace tilescope::cli
