// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tilescope::session {

struct ChildSpec
{
    std::vector<std::string> argv;                                // argv[0] is searched on PATH
    std::string workingDirectory;                                 // empty: inherit
    std::vector<std::pair<std::string, std::string>> environment; // added to (or replacing in) ours
};

struct ChildOutcome
{
    bool started = false;
    std::string startError; // why it could not start (no such program, bad working directory, ...)
    bool exited = false;    // exited by itself (exitCode valid) rather than by a signal
    int exitCode = -1;
    int signal = 0;         // the signal that ended it, 0 if none
    bool cancelled = false; // we ended it because cancel was asked
    bool timedOut = false;  // we ended it because the timeout passed
    double seconds = 0;     // wall time from start to end
};

// Runs a program in its own process group and streams its stdout and stderr line by line.
// Cancel and timeout end the whole group (SIGTERM, then SIGKILL after a grace period); when the main
// process ends, whatever it left running in its group is killed too, so no orphans survive a session.
// onLine runs on the calling thread; isStderr tells the stream.
ChildOutcome runChild(const ChildSpec& spec, const std::function<void(const std::string& line, bool isStderr)>& onLine,
                      const std::atomic<bool>* cancel = nullptr, double timeoutSeconds = 0, double graceSeconds = 3);

} // namespace tilescope::session
