// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tilescope::torchtool {

// Prints the `@tilescope {json}` progress lines of docs/sessions.md (core's session::phaseLine and
// friends) to stdout, one per call, flushed at once so the parent sees each phase as it starts.
class Progress
{
public:
    void phase(std::string_view phase, std::string_view message, std::optional<int> step = {}, std::optional<int> of = {});
    void artifact(std::string_view kind, const std::string& absolutePath);
    void result(const std::string& manifestPath, const std::string& calibrationPath = {});
    void error(std::string_view message);

private:
    static void emit(const std::string& line);
};

} // namespace tilescope::torchtool
