// SPDX-License-Identifier: MIT
#pragma once

#include "trace/trace.h"

#include <string_view>

namespace tilescope::trace {

// "cpu-thread", "gpu-stream", "overhead", "spans", "other": a track's type in the reports and the SQL export.
std::string_view trackTypeName(Track::Type type);

} // namespace tilescope::trace
