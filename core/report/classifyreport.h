// SPDX-License-Identifier: MIT
#pragma once

#include "roofline/classify.h"

#include <string>

namespace tilescope::report {

// `tilescope-cli classify`: JSON ({"device", "ceilings", "kernels", "regions"}) and text.
std::string classifyJson(const roofline::ClassifyReport& report);
std::string classifyText(const roofline::ClassifyReport& report);

} // namespace tilescope::report
