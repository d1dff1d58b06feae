// SPDX-License-Identifier: MIT
#include "reportcommand.h"

#include <iostream>

namespace tilescope::cli {

const char* const kReportUsage = R"(  report TRACE --out FILE.html|FILE.md [--partial]
      the answer as a file to share: what was profiled (the session manifest and config beside the
      trace when there are any), the devices, the findings with strength, evidence and next step, the
      top 10 rows of the key-averages table with its sort key, the overlap figures, the roofline's
      classified kernels and regions, the memory peak, and the kernel-vs-reference compare when the trace
      has tilelang_kernel (or custom_kernel) and torch_ref regions; each as the command that prints it
      does (diagnose, summary, overlap, classify, memory, compare, info). HTML is one self-contained file with the
      pictures (timeline, roofline, memory) embedded; Markdown writes them beside it as
      FILE.timeline.png etc. Pictures are drawn with the app's widgets and need a Qt build
)";

int writeReport(const std::string& tracePath, const ReportFigures& f, const std::vector<answer::ReportImage>& images,
                const std::string& out)
{
    answer::AnswerInputs inputs;
    inputs.tracePath = tracePath;
    inputs.trace = f.trace;
    inputs.averages = f.averages;
    inputs.overlap = f.overlap;
    inputs.classification = f.classification;
    inputs.memory = f.memory;
    const answer::AnswerExtras extras = answer::computeAnswerExtras(inputs);
    inputs.findings = &extras.findings;
    inputs.compareLines = extras.compareLines;
    for (const std::string& file : answer::writeAnswerReport(out, answer::gatherAnswerReport(inputs), images))
        std::cout << "wrote " << file << "\n";
    return 0;
}

} // namespace tilescope::cli
