// SPDX-License-Identifier: MIT
#include "io/textfile.h"

#include "io/tracefileerror.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tilescope::io {

std::string readTextFile(const std::string& path, const std::string& what)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw TraceFileError(path, std::nullopt, "cannot read " + what + ": " + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void writeTextFile(const std::string& path, const std::string& text, const std::string& what)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(text.data(), static_cast<std::streamsize>(text.size())) || !out.flush())
        throw TraceFileError(path, std::nullopt, "cannot write " + what + ": " + std::strerror(errno));
}

} // namespace tilescope::io
