// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace tilescope::trace {
class Trace;
}

namespace tilescope::report {

// `tilescope-cli info`: format, versions, devices, tracks, events per category, time span.
std::string traceInfoText(const std::string& path, const trace::Trace& trace);
std::string traceInfoJson(const std::string& path, const trace::Trace& trace);

} // namespace tilescope::report
