// SPDX-License-Identifier: MIT
#pragma once

#include "findings/finding.h"

#include <optional>
#include <string_view>
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

// The answer as a file to share (issue #12, "Report"): `tilescope-cli report` and the app's File > Export
// Report gather it from what they already computed and render it as Markdown or self-contained HTML. Every
// figure is the text of the CLI command that prints it (summary, overlap, classify, memory, diagnose, info):
// this room arranges those renderers' output, it formats no number of its own.
namespace tilescope::answer {

// A picture the caller rendered with the app's widgets (core has no Qt), as PNG bytes.
struct ReportImage
{
    std::string key;     // kTimelineImage, kRooflineImage or kMemoryImage: where it goes and FILE.<key>.png
    std::string caption; // shown under it
    std::string png;
};
inline constexpr const char* kTimelineImage = "timeline";
inline constexpr const char* kRooflineImage = "roofline";
inline constexpr const char* kMemoryImage = "memory";

// What the caller computed for the trace, each once (the CLI and TraceDocument compute the same set); a
// section whose input is missing (nullptr) says it was not computed.
struct AnswerInputs
{
    std::string tracePath;
    const trace::Trace* trace = nullptr; // required
    const stats::KeyAverages* averages = nullptr;
    const analysis::OverlapReport* overlap = nullptr; // computeOverlap with the default window
    const roofline::ClassifyReport* classification = nullptr;
    const memory::MemoryAnalysis* memory = nullptr;
    const std::vector<findings::Finding>* findings = nullptr; // findings::diagnose over the above
    // The kernel-vs-reference compare (core/compare), one line each, rendered under "Compare" as given;
    // empty: the section is left out.
    std::vector<std::string> compareLines;
    int keyAverageRows = 10; // the top of the key-averages table
};

// One piece of a section; each renderer draws each kind in its medium.
struct ReportBlock
{
    enum class Kind {
        Paragraph,    // text; `code` spans in backticks
        Heading,      // text, with badge (a finding's strength) when not empty
        List,         // items
        Facts,        // rows of {label, value}
        Table,        // header + rows (cells as the CLI prints them)
        Preformatted, // text: a CLI command's output, verbatim
        Image,        // imageKey: drawn when the caller gave that image, else left out
    };
    Kind kind = Kind::Paragraph;
    std::string text;
    std::string badge;
    std::vector<std::string> items;
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> rowColours; // Table: a colour ("#rrggbb") per row for its first cell, or empty
    std::string imageKey;
    // When set, HTML folds the block under this summary (<details>, closed); Markdown prints it as a line above.
    std::string folded;
};

struct ReportSection
{
    std::string id; // the HTML anchor: "profiled", "findings", "key-averages", "overlap", "roofline", "memory", "compare"
    std::string title;
    std::vector<ReportBlock> blocks;
};

struct AnswerReport
{
    std::string title;
    std::string subtitle; // the TileScope version that wrote it
    std::vector<ReportSection> sections;
};

// The sections in reading order: what was profiled (the session manifest and config beside the trace when
// there are any, and `info`'s facts: versions, devices, span), the findings, the top of the key-averages
// table with its sort key, the overlap figures with the timeline, the roofline with the classified kernels
// and regions, the memory peak, and the compare when compareLines has lines.
AnswerReport gatherAnswerReport(const AnswerInputs& inputs);

// What the report adds to the figures, as the CLI's report and File > Export Report both compute it: the
// findings (findings::diagnose over the inputs' figures) and the default kernel-vs-reference compare
// (compare::defaultPair: tilelang_kernel vs torch_ref, or custom_kernel vs torch_ref) when the trace has that
// pair and the inputs a classification; empty lines otherwise.
struct AnswerExtras
{
    std::vector<findings::Finding> findings;
    std::vector<std::string> compareLines;
};
AnswerExtras computeAnswerExtras(const AnswerInputs& inputs);

// Names longer than this many characters (a demangled template signature can run to thousands) are shown
// shortened, as a section's trace::NameShortener gives them (different names told apart); the report lists
// each shortened name in full once, at the end of the section that uses it.
inline constexpr size_t kLongNameLength = 100;

enum class ReportFormat { Html, Markdown };
// By the file's suffix: .html/.htm or .md/.markdown (any case); nullopt for anything else.
std::optional<ReportFormat> reportFormatOf(const std::string& path);

// Markdown; an image is referenced as `imageFileStem.<key>.png` (a name relative to the Markdown file),
// and only when `images` holds it.
std::string renderMarkdown(const AnswerReport& report, const std::vector<ReportImage>& images, const std::string& imageFileStem);
// One self-contained HTML page: inline CSS, every text escaped, images as data:image/png;base64 URIs.
std::string renderHtml(const AnswerReport& report, const std::vector<ReportImage>& images);

// The Markdown's image files: PATH.md -> PATH.<key>.png beside it.
std::string imageFilePath(const std::string& markdownPath, const std::string& key);

// Renders by the suffix of `path` and writes it atomically; for Markdown also writes each image beside it
// (imageFilePath). Returns the files written. Throws TraceFileError naming the file that could not be written,
// or `path` when its suffix is neither.
std::vector<std::string> writeAnswerReport(const std::string& path, const AnswerReport& report, const std::vector<ReportImage>& images);

} // namespace tilescope::answer
