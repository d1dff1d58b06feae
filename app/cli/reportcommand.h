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

// A Qt build (TILESCOPE_CLI_PICTURES): loads the trace as the app does, draws the pictures with the app's
// widgets on the offscreen platform and writes the report. Throws TraceFileError as loading does.
int runReportWithPictures(const std::string& tracePath, const std::string& out, bool partial);

} // namespace tilescope::cli
