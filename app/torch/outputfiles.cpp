// SPDX-License-Identifier: MIT
#include "outputfiles.h"

#include "sessionerror.h"

#include "io/textfile.h"
#include "io/tracefileerror.h"

#include <cstring>
#include <fstream>
#include <system_error>

namespace tilescope::torchtool {

namespace fs = std::filesystem;

fs::path prepareOutputDir(const std::string& dir)
{
    if (dir.empty())
        throw SessionError("no output folder: pass --out DIR", kExitUsage);
    std::error_code ec;
    const fs::path absolute = fs::absolute(dir, ec);
    if (ec)
        throw SessionError("output folder " + dir + " is not usable: " + ec.message());
    if (fs::exists(absolute, ec) && !fs::is_directory(absolute, ec))
        throw SessionError("output folder " + absolute.string() + " is not writable: it exists and is not a folder");
    fs::create_directories(absolute, ec);
    if (ec)
        throw SessionError("output folder " + absolute.string() + " is not writable: " + ec.message());
    const fs::path probe = absolute / ".tilescope-write-test";
    {
        std::ofstream out(probe);
        if (!out || !(out << "ok") || !out.flush())
            throw SessionError("output folder " + absolute.string() + " is not writable: " + std::strerror(errno));
    }
    fs::remove(probe, ec);
    return absolute;
}

void writeFileAtomically(const fs::path& file, const std::string& text)
{
    try {
        io::writeTextFileAtomically(file.string(), text, file.filename().string());
    } catch (const io::TraceFileError& e) {
        throw SessionError(e.what());
    }
}

} // namespace tilescope::torchtool
