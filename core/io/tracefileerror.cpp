// SPDX-License-Identifier: MIT
#include "io/tracefileerror.h"

namespace tilescope::io {

namespace {
std::string compose(const std::string& path, std::optional<uint64_t> offset, const std::string& problem)
{
    std::string text = path + ": ";
    if (offset)
        text += "byte " + std::to_string(*offset) + ": ";
    return text + problem;
}
} // namespace

TraceFileError::TraceFileError(std::string path, std::optional<uint64_t> offset, std::string problem)
    : std::runtime_error(compose(path, offset, problem))
    , m_path(std::move(path))
    , m_offset(offset)
    , m_problem(std::move(problem))
{ }

} // namespace tilescope::io
