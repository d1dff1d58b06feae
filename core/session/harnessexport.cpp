// SPDX-License-Identifier: MIT
#include "session/harnessexport.h"

#include "io/smalljson.h"
#include "io/textfile.h"
#include "io/tracefileerror.h"

#include <filesystem>
#include <stdexcept>

namespace tilescope::session {

std::string exportHarness(const SessionConfig& config, const std::string& harnessText)
{
    if (config.mode != SessionMode::Script && config.mode != SessionMode::Kernel)
        throw std::invalid_argument(std::string("only script and kernel sessions run in the Python harness, not ") + modeName(config.mode));
    const std::string marker = "\nEMBEDDED_CONFIG = None";
    const size_t at = harnessText.find(marker);
    if (at == std::string::npos)
        throw std::invalid_argument("the harness has no 'EMBEDDED_CONFIG = None' line");
    const size_t lineEnd = harnessText.find('\n', at + 1);
    // A JSON string literal is also a valid Python string literal, so the config travels byte for byte.
    const std::string literal = io::dumpJson(toJson(config));
    std::string out = harnessText.substr(0, at + 1);
    out += "EMBEDDED_CONFIG = json.loads(" + literal + ")  # exported by TileScope";
    out += lineEnd == std::string::npos ? std::string("\n") : harnessText.substr(lineEnd);
    return out;
}

void writeExportedHarness(const SessionConfig& config, const std::string& harnessPath, const std::string& outPath)
{
    const std::string harness = io::readTextFile(harnessPath, "the TileScope harness");
    std::string script;
    try {
        script = exportHarness(config, harness);
    } catch (const std::invalid_argument& e) {
        throw io::TraceFileError(harnessPath, std::nullopt, e.what());
    }
    io::writeTextFile(outPath, script, "the exported harness");
    std::error_code ec;
    std::filesystem::permissions(outPath, std::filesystem::perms::owner_exec | std::filesystem::perms::group_exec,
                                 std::filesystem::perm_options::add, ec);
}

} // namespace tilescope::session
