// SPDX-License-Identifier: MIT
#pragma once

#include "answer/answerreport.h"

#include <string>
#include <vector>

namespace tilescope::trace {
class Trace;
}
namespace tilescope::stats {
struct KeyAverages;
}
namespace tilescope::analysis {
struct OverlapReport;
}
namespace tilescope::memory {
struct MemoryAnalysis;
}
namespace tilescope::roofline {
struct ClassifyReport;
}

namespace tilescope::cli {

extern const char* const kReportUsage;

// What `report` computed, each once, as `diagnose` computes it.
struct ReportFigures
{
    const trace::Trace* trace = nullptr;
    const stats::KeyAverages* averages = nullptr;
    const analysis::OverlapReport* overlap = nullptr;
    const roofline::ClassifyReport* classification = nullptr;
    const memory::MemoryAnalysis* memory = nullptr;
};

// Diagnoses, gathers and writes OUT (by its suffix), then names the files written on stdout.
int writeReport(const std::string& tracePath, const ReportFigures& figures, const std::vector<answer::ReportImage>& images,
                const std::string& out);

// The report's pictures, drawn by the desktop app (`tilescope --report-images DIR TRACE`, located as the
// session tools are) into a temporary folder that is removed again. None, and the reason in `why`, when there
// is no app (a build without Qt) or it failed; the report is written without them then. `gpu`: --gpu, for the
// roofline's roofs of a trace without deviceProperties (empty: the trace's GPU).
std::vector<answer::ReportImage> drawReportPictures(const std::string& tracePath, bool partial, const std::string& gpu, std::string& why);

} // namespace tilescope::cli
