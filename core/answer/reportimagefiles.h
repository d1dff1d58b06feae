// SPDX-License-Identifier: MIT
#pragma once

#include "answer/answerreport.h"

#include <string>
#include <vector>

// The report's pictures as files in a folder: how `tilescope --report-images DIR TRACE` (the app, which has
// the widgets that draw them) hands them to `tilescope-cli report` (which stays free of Qt, so it starts in
// milliseconds and runs on a GPU box without Qt). DIR holds KEY.png for each picture and images.json:
//   {"images": [{"key": "timeline", "caption": "..."}, ...]}   (the key names the file: timeline.png)
namespace tilescope::answer {

inline constexpr const char* kReportImagesManifest = "images.json";

// Writes each image's PNG and the manifest into DIR (which exists); throws TraceFileError naming the file.
void writeReportImageFiles(const std::string& dir, const std::vector<ReportImage>& images);

// Reads what writeReportImageFiles wrote; throws TraceFileError naming the file that is missing or wrong
// (a key other than the report's three, a file outside DIR, a PNG that is not one).
std::vector<ReportImage> readReportImageFiles(const std::string& dir);

} // namespace tilescope::answer
