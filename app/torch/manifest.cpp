// SPDX-License-Identifier: MIT
#include "manifest.h"

#include "io/tracefileerror.h"
#include "sessionerror.h"

namespace tilescope::torchtool {

std::filesystem::path writeManifest(const std::filesystem::path& dir, const Manifest& manifest)
{
    try {
        return session::writeSessionManifest(dir.string(), manifest);
    } catch (const io::TraceFileError& e) {
        throw SessionError(e.what());
    }
}

} // namespace tilescope::torchtool
