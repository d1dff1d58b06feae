// SPDX-License-Identifier: MIT
#include "reportcommand.h"

#include "answer/reportimagefiles.h"
#include "io/tracefileerror.h"
#include "session/childprocess.h"
#include "session/sessionrunner.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace tilescope::cli {

const char* const kReportUsage = R"(  report TRACE --out FILE.html|FILE.md [--force] [--gpu NAME] [--partial]
      the answer as a file to share: what was profiled (the session manifest and config beside the
      trace when there are any), the devices, the findings with strength, evidence and next step, the
      top 10 rows of the key-averages table with its sort key, the overlap figures, the roofline's
      classified kernels and regions, the memory peak, and the kernel-vs-reference compare when the trace
      has tilelang_kernel (or custom_kernel) and torch_ref regions; each as the command that prints it
      does (diagnose, summary, overlap, classify, memory, compare, info). HTML is one self-contained file with the
      pictures (timeline, roofline, memory) embedded; Markdown writes them beside it as
      FILE.timeline.png etc. The pictures are drawn by the desktop app (`tilescope --report-images`),
      found beside tilescope-cli or named by TILESCOPE_APP; without it the report has none. An existing
      FILE is refused unless --force
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

std::vector<answer::ReportImage> drawReportPictures(const std::string& tracePath, bool partial, const std::string& gpu, std::string& why)
{
    namespace fs = std::filesystem;
    const session::SessionTools tools = session::locateSessionTools(session::currentExecutablePath("tilescope-cli"));
    if (tools.app.empty()) {
        why = "they are drawn by the desktop app (tilescope), which was not found beside tilescope-cli (a build without "
              "Qt has none; TILESCOPE_APP names another)";
        return {};
    }
    std::error_code ec;
    std::string pattern = (fs::temp_directory_path(ec) / "tilescope-report-XXXXXX").string();
    if (ec || !mkdtemp(pattern.data())) {
        why = "no temporary folder for them (" + (fs::temp_directory_path(ec) / "").string() + ")";
        return {};
    }
    struct RemovedAtEnd // whatever happens below
    {
        std::string dir;
        ~RemovedAtEnd()
        {
            std::error_code ignored;
            fs::remove_all(dir, ignored);
        }
    } folder{pattern};
    // "--": a trace path that starts with '-' is still the trace.
    std::vector<std::string> argv = {tools.app, "--report-images", folder.dir};
    if (partial)
        argv.push_back("--partial");
    if (!gpu.empty())
        argv.insert(argv.end(), {"--gpu", gpu});
    argv.insert(argv.end(), {"--", tracePath});
    std::string lastError;
    const session::ChildOutcome outcome = session::runChild({argv, {}, {}}, [&](const std::string& line, bool isStderr) {
        if (isStderr && !line.empty())
            lastError = line;
    });
    if (!outcome.started) {
        why = tools.app + " did not start: " + outcome.startError;
        return {};
    }
    if (!outcome.exited || outcome.exitCode != 0) {
        why = tools.app + " failed ("
            + (outcome.exited ? "exit code " + std::to_string(outcome.exitCode) : "signal " + std::to_string(outcome.signal))
            + (lastError.empty() ? std::string(")") : "): " + lastError);
        return {};
    }
    try {
        return answer::readReportImageFiles(folder.dir);
    } catch (const io::TraceFileError& e) {
        why = e.what();
    }
    return {};
}

} // namespace tilescope::cli
