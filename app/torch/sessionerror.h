// SPDX-License-Identifier: MIT
#pragma once

#include <stdexcept>
#include <string>

namespace tilescope::torchtool {

// Exit statuses of tilescope-torch.
enum ExitCode : int { kExitOk = 0, kExitFailed = 1, kExitUsage = 2 };

// A failure the user can act on. Its message is what goes to the error event and the one stderr line,
// so it names the file or value at fault.
class SessionError : public std::runtime_error
{
public:
    explicit SessionError(const std::string& message, int exitCode = kExitFailed)
        : std::runtime_error(message)
        , m_exitCode(exitCode)
    { }
    int exitCode() const { return m_exitCode; }

private:
    int m_exitCode;
};

} // namespace tilescope::torchtool
