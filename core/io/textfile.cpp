// SPDX-License-Identifier: MIT
#include "io/textfile.h"

#include "io/tracefileerror.h"

#include <cerrno>
#include <cstdio>
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

void writeTextFileAtomically(const std::string& path, const std::string& text, const std::string& what,
                             const std::function<void(const std::string& temporaryPath)>& check)
{
    const std::string temporary = path + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out || !out.write(text.data(), static_cast<std::streamsize>(text.size())) || !out.flush()) {
            const std::string why = std::strerror(errno);
            std::remove(temporary.c_str());
            throw TraceFileError(path, std::nullopt, "cannot write " + what + ": " + why);
        }
    }
    if (check) {
        try {
            check(temporary);
        } catch (...) {
            std::remove(temporary.c_str());
            throw;
        }
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        std::remove(temporary.c_str());
        throw TraceFileError(path, std::nullopt, "cannot replace " + what + ": " + why);
    }
}

} // namespace tilescope::io
