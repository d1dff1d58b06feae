// SPDX-License-Identifier: MIT
#include "failure.h"

#include "progress.h"
#include "sessionerror.h"

#include <cstdio>

namespace tilescope::torchtool {

int reportFailure(Progress& progress, const std::string& message, int exitCode)
{
    progress.error(message);
    std::fprintf(stderr, "tilescope-torch: %s\n", message.c_str());
    std::fflush(stderr);
    return exitCode;
}

std::string firstLine(std::string_view text)
{
    while (!text.empty() && (text.front() == '\n' || text.front() == ' '))
        text.remove_prefix(1);
    return std::string(text.substr(0, text.find('\n')));
}

std::vector<TensorSpec> parseSpecOrThrow(const std::string& spec)
{
    try {
        return parseInputSpec(spec);
    } catch (const InputSpecError& e) {
        throw SessionError(e.what(), kExitUsage);
    }
}

} // namespace tilescope::torchtool
