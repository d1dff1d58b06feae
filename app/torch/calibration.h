// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>

namespace tilescope::torchtool {

class Progress;

// `tilescope-torch calibrate`: measures the roofline's ceilings on one device and writes them in the
// format of calibration.json (roofline.md §4), which roofline::loadMeasuredCeilings reads.
struct CalibrationOptions
{
    std::string device = "cpu";
    std::string out;         // FILE, or an existing folder / a path ending in '/': DIR/calibration.json + manifest
    bool quick = false;      // small sizes and 3 runs: for tests, not for real ceilings
    std::optional<int> runs; // timed runs per measurement (the median is kept); default 10, quick 3
};

int runCalibration(const CalibrationOptions& options, Progress& progress);

} // namespace tilescope::torchtool
