// SPDX-License-Identifier: MIT
#pragma once

#include "trace/ids.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope::findings {

// How sure a finding is (issue #12): strong, the numbers leave no other reading; weak, likely, one
// alternative remains; provisional, a hint that names the measurement that would settle it.
enum class Strength : uint8_t { Strong, Weak, Provisional };
std::string_view strengthName(Strength strength);

// A place a finding is about, for the app to jump to: trace ns on the file's clock, and the event when
// there is one.
struct Where
{
    int64_t start = 0;
    int64_t end = 0;
    uint32_t event = trace::kNoIndex;
};

struct Finding
{
    std::string id; // one of the ids of issue #12 (gpu-idle, launch-bound, ...)
    std::string title;
    Strength strength = Strength::Provisional;
    std::vector<std::string> evidence; // sentences with the numbers
    std::vector<std::string> columns;  // the exact profiler columns or event fields the numbers come from
    std::string nextStep;
    std::vector<Where> where;
    // The time at stake, for ordering (diagnose lists the largest first): the idle, waiting, launch or kernel
    // time the finding is about; 0 for findings that are not about time (memory growth, CUDA graphs).
    int64_t impactNs = 0;
};

} // namespace tilescope::findings
