// SPDX-License-Identifier: MIT
#include "answer/answerreport.h"

#include "answer/base64.h"
#include "compare/compare.h"
#include "findings/diagnose.h"
#include "report/comparereport.h"
#include "findings/findingsreport.h"
#include "io/decimal.h"
#include "io/textfile.h"
#include "io/tracefileerror.h"
#include "memory/memoryanalysis.h"
#include "report/memoryreport.h"
#include "report/overlapreport.h"
#include "report/summaryreport.h"
#include "report/traceinfo.h"
#include "report/verdicttext.h"
#include "roofline/classify.h"
#include "session/commandline.h"
#include "session/sessionconfig.h"
#include "session/sessionfiles.h"
#include "session/sessionmanifest.h"
#include "stats/keyaverages.h"
#include "stats/torchtable.h"
#include "trace/namefit.h"
#include "trace/trace.h"
#include "version.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

namespace tilescope::answer {

namespace fs = std::filesystem;

namespace {

using Kind = ReportBlock::Kind;

// The widest name column `tilescope-cli summary` prints by default (its --max-name-width).
constexpr int kSummaryNameWidth = 80;
// Finding ranges listed in the report; `diagnose` lists every one.
constexpr size_t kWhereShown = 5;
// Kernels and regions of the roofline tables; `classify` lists every one.
constexpr size_t kClassifiedShown = 10;

ReportBlock paragraph(std::string text)
{
    ReportBlock b;
    b.text = std::move(text);
    return b;
}

ReportBlock preformatted(std::string text)
{
    ReportBlock b;
    b.kind = Kind::Preformatted;
    while (!text.empty() && text.back() == '\n')
        text.pop_back();
    b.text = std::move(text);
    return b;
}

ReportBlock image(const char* key)
{
    ReportBlock b;
    b.kind = Kind::Image;
    b.imageKey = key;
    return b;
}

std::string trimmed(std::string_view text)
{
    const size_t first = text.find_first_not_of(' ');
    if (first == std::string_view::npos)
        return {};
    return std::string(text.substr(first, text.find_last_not_of(' ') - first + 1));
}

ReportBlock notComputed(const char* what) { return paragraph(std::string(what) + " was not computed for this report."); }

// Long names (the findings' events, the classified kernels and regions) shortened in every text of a section,
// and listed in full once at its end.
class SectionNames
{
public:
    void add(std::string_view name) { m_names.add(name); }
    std::string apply(std::string text) { return m_names.apply(std::move(text), &m_used); }
    void apply(ReportBlock& b)
    {
        b.text = apply(std::move(b.text));
        for (auto& item : b.items)
            item = apply(std::move(item));
        for (auto& row : b.rows)
            for (auto& cell : row)
                cell = apply(std::move(cell));
    }
    // Shortens every block of `s` and lists the names it shortened.
    void finish(ReportSection& s)
    {
        m_used.clear();
        for (ReportBlock& b : s.blocks)
            apply(b);
        if (m_used.empty())
            return;
        ReportBlock list;
        list.kind = ReportBlock::Kind::Facts;
        list.folded = "Names shortened above, in full";
        for (const size_t i : m_used)
            list.rows.push_back({m_names.names()[i].second, m_names.names()[i].first});
        s.blocks.push_back(std::move(list));
    }

private:
    trace::NameShortener m_names{kLongNameLength};
    std::set<size_t> m_used;
};

// ---- What was profiled ----------------------------------------------------------------------------------

std::string onOff(const std::vector<std::pair<const char*, bool>>& options)
{
    std::string on, off;
    for (const auto& [name, value] : options)
        (value ? on : off) += std::string((value ? on : off).empty() ? "" : ", ") + name;
    return "on: " + (on.empty() ? std::string("none") : on) + "; off: " + (off.empty() ? std::string("none") : off);
}

std::string commandOf(const session::SessionConfig& c)
{
    using session::SessionMode;
    switch (c.mode) {
    case SessionMode::Script: {
        std::vector<std::string> argv{c.python, c.script};
        argv.insert(argv.end(), c.args.begin(), c.args.end());
        return session::shellQuoted(argv);
    }
    case SessionMode::Kernel:
        return "kernel " + c.kernel + " against reference " + (c.reference.empty() ? std::string("(none)") : c.reference)
            + (c.inputs.empty() ? std::string() : ", inputs " + c.inputs);
    case SessionMode::TorchScript:
        return "TorchScript module " + c.torchscript + (c.inputs.empty() ? std::string() : ", inputs " + c.inputs);
    case SessionMode::Command: return c.command;
    case SessionMode::Calibrate: return std::string("calibrate") + (c.quick ? " (quick)" : "");
    }
    return {};
}

std::string warmupOf(const session::SessionConfig& c)
{
    using session::SessionMode;
    if (c.mode == SessionMode::Kernel || c.mode == SessionMode::TorchScript)
        return std::to_string(c.warmupIterations) + " warm-up calls before the profiled window, " + std::to_string(c.measuredIterations)
            + " measured calls inside it";
    if (c.mode == SessionMode::Script) {
        if (!c.schedule)
            return "no schedule: the whole script is profiled, its first iterations included";
        const auto& s = *c.schedule;
        return "torch.profiler.schedule(wait=" + std::to_string(s.wait) + ", warmup=" + std::to_string(s.warmup)
            + ", active=" + std::to_string(s.active) + ", repeat=" + std::to_string(s.repeat) + ")";
    }
    return {};
}

std::string numberText(double v)
{
    std::ostringstream out;
    out << v;
    return out.str();
}

bool sameFile(const std::string& a, const std::string& b)
{
    std::error_code ec;
    if (fs::equivalent(a, b, ec))
        return true;
    return fs::absolute(a).lexically_normal() == fs::absolute(b).lexically_normal();
}

ReportSection profiledSection(const AnswerInputs& in)
{
    ReportSection s{"profiled", "What was profiled", {}};
    ReportBlock facts;
    facts.kind = Kind::Facts;
    facts.rows.push_back({"trace", in.tracePath});
    const fs::path dir = fs::absolute(fs::path(in.tracePath)).parent_path();
    std::vector<std::string> problems;
    bool fromSession = false;
    if (const auto manifestPath = session::manifestInFolder(dir.string())) {
        try {
            const session::SessionManifest m = session::readSessionManifest(*manifestPath);
            // A manifest that names another trace describes another run.
            if (m.trace.empty() || sameFile(m.trace, in.tracePath)) {
                fromSession = true;
                facts.rows.push_back({"session manifest", *manifestPath});
                facts.rows.push_back({"mode", m.mode.empty() ? std::string("(not recorded)") : m.mode});
                facts.rows.push_back({"status", m.status});
                if (!m.torch.empty())
                    facts.rows.push_back({"torch", m.torch});
                if (!m.profiler.empty())
                    facts.rows.push_back({"profiler", m.profiler});
                if (!m.deviceName.empty())
                    facts.rows.push_back({"device", m.deviceName});
                for (const auto& check : m.checks)
                    facts.rows.push_back({"check " + check.name,
                                          std::string(check.passed ? "passed" : "FAILED")
                                              + (check.maxAbsError ? ", max abs error " + numberText(*check.maxAbsError) : "")
                                              + (check.detail.empty() ? "" : ", " + check.detail)});
                for (const auto& note : m.notes)
                    facts.rows.push_back({"note", note});
            }
        } catch (const io::TraceFileError& e) {
            problems.push_back(std::string("The session manifest beside the trace could not be read: ") + e.what());
        }
    }
    if (const fs::path configPath = dir / session::kConfigFile; fromSession && fs::is_regular_file(configPath)) {
        try {
            const session::SessionConfig c = session::readSessionConfig(configPath.string());
            facts.rows.push_back({"command", commandOf(c)});
            if (const std::string warmup = warmupOf(c); !warmup.empty())
                facts.rows.push_back({"warm-up", warmup});
            facts.rows.push_back({"profiler options",
                                  onOff({{"record_shapes", c.recordShapes},
                                         {"profile_memory", c.profileMemory},
                                         {"with_stack", c.withStack},
                                         {"with_flops", c.withFlops},
                                         {"CPU activity", c.cpuActivity},
                                         {"CUDA activity", c.cudaActivity}})});
            if (c.memorySnapshot || c.memoryTimeline)
                facts.rows.push_back(
                    {"memory recording", onOff({{"memory snapshot", c.memorySnapshot}, {"memory timeline", c.memoryTimeline}})});
        } catch (const io::TraceFileError& e) {
            problems.push_back(std::string("The session config beside the trace could not be read: ") + e.what());
        }
    }
    if (!fromSession) {
        const trace::TraceMetadata& meta = in.trace->meta;
        facts.rows.push_back({"profiler options (as the trace records them)",
                              onOff({{"record_shapes", meta.recordShapes},
                                     {"profile_memory", meta.profileMemory},
                                     {"with_stack", meta.withStack},
                                     {"with_flops", meta.withFlops}})});
    }
    s.blocks.push_back(paragraph(fromSession ? std::string("From the TileScope session that recorded the trace (its manifest and config) "
                                                           "and the trace's own metadata.")
                                             : std::string("No TileScope session manifest (") + session::kManifestFile
                                         + ") for this trace beside it: what follows is what the trace itself records "
                                           "(the command and warm-up that produced it are not known)."));
    for (auto& p : problems)
        s.blocks.push_back(paragraph(std::move(p)));
    s.blocks.push_back(std::move(facts));
    // The devices (and a distributed run) as `info` words them, in the facts; the rest of `info` folded.
    const std::string info = report::traceInfoText(in.tracePath, *in.trace);
    std::istringstream lines(info);
    bool inDevices = false;
    for (std::string line; std::getline(lines, line);) {
        if (line.starts_with("devices:"))
            inDevices = true;
        else if (inDevices && line.starts_with("  ["))
            s.blocks.back().rows.push_back({"device", trimmed(line)});
        else
            inDevices = false;
        if (line.starts_with("distributed:"))
            s.blocks.back().rows.push_back({"distributed", trimmed(line.substr(std::string_view("distributed:").size()))});
    }
    ReportBlock infoBlock = preformatted(info);
    infoBlock.folded = "The trace, as tilescope-cli info prints it";
    s.blocks.push_back(std::move(infoBlock));
    return s;
}

// ---- Findings -------------------------------------------------------------------------------------------

std::string whereText(const trace::Trace& t, const findings::Where& w)
{
    std::string text = "ts " + io::formatNanosecondsAsMicroseconds(w.start) + " .. " + io::formatNanosecondsAsMicroseconds(w.end) + " us";
    if (w.event < t.events.size())
        text += "  " + std::string(t.name(t.events[w.event]));
    return text;
}

ReportSection findingsSection(const AnswerInputs& in)
{
    ReportSection s{"findings", "Findings", {}};
    if (!in.findings) {
        s.blocks.push_back(notComputed("The diagnosis"));
        return s;
    }
    if (in.findings->empty()) {
        s.blocks.push_back(preformatted(findings::findingsText(*in.trace, {})));
        return s;
    }
    s.blocks.push_back(paragraph("What limits the run, how sure, and what to do next, as `tilescope-cli diagnose` gives them."));
    for (const findings::Finding& f : *in.findings) {
        ReportBlock heading;
        heading.kind = Kind::Heading;
        heading.badge = std::string(findings::strengthName(f.strength));
        heading.text = f.id + ": " + f.title;
        s.blocks.push_back(std::move(heading));
        ReportBlock evidence;
        evidence.kind = Kind::List;
        evidence.items = f.evidence;
        s.blocks.push_back(std::move(evidence));
        ReportBlock facts;
        facts.kind = Kind::Facts;
        facts.rows.push_back({"next step", f.nextStep});
        std::string columns;
        for (const std::string& c : f.columns)
            columns += (columns.empty() ? "" : "; ") + c;
        facts.rows.push_back({"columns", columns});
        std::string where;
        for (size_t i = 0; i < f.where.size() && i < kWhereShown; ++i)
            where += (where.empty() ? "" : "; ") + whereText(*in.trace, f.where[i]);
        if (f.where.size() > kWhereShown)
            where += "; ... " + std::to_string(f.where.size()) + " ranges in all (`tilescope-cli diagnose` lists each)";
        if (!where.empty())
            facts.rows.push_back({"where", where});
        s.blocks.push_back(std::move(facts));
    }
    return s;
}

// ---- Key averages ---------------------------------------------------------------------------------------

// Byte offsets of each code point of `line`, plus its end: torch pads its columns by code points.
std::vector<size_t> codePointOffsets(std::string_view line)
{
    std::vector<size_t> offsets;
    for (size_t i = 0; i < line.size(); ++i)
        if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80)
            offsets.push_back(i);
    offsets.push_back(line.size());
    return offsets;
}

// renderTorchTable's text cut into cells along its dashed rule (runs of '-' are the columns), so the report
// shows the table's own cell texts; the lines after the closing rule (the totals) go to `footer`. False when
// the text is not such a table.
bool splitTorchTable(const std::string& table, ReportBlock& out, std::vector<std::string>& footer)
{
    std::vector<std::string> lines;
    std::istringstream in(table);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    if (lines.size() < 3 || lines[0].empty() || lines[0][0] != '-')
        return false;
    std::vector<std::pair<size_t, size_t>> columns; // code-point ranges
    for (size_t i = 0; i < lines[0].size();) {
        if (lines[0][i] != '-') {
            ++i;
            continue;
        }
        const size_t start = i;
        while (i < lines[0].size() && lines[0][i] == '-')
            ++i;
        columns.emplace_back(start, i);
    }
    auto cells = [&columns](const std::string& line) {
        const std::vector<size_t> at = codePointOffsets(line);
        const size_t count = at.size() - 1;
        std::vector<std::string> row;
        for (size_t c = 0; c < columns.size(); ++c) {
            const size_t begin = std::min(columns[c].first, count);
            // The last column takes the rest of the line; the others end where the next starts.
            const size_t end = c + 1 < columns.size() ? std::min(columns[c + 1].first, count) : count;
            row.push_back(trimmed(std::string_view(line).substr(at[begin], at[end] - at[begin])));
        }
        return row;
    };
    const std::string& rule = lines[0];
    size_t i = 1;
    out.kind = Kind::Table;
    out.header = cells(lines[i++]);
    if (i >= lines.size() || lines[i] != rule)
        return false;
    for (++i; i < lines.size() && lines[i] != rule; ++i)
        out.rows.push_back(cells(lines[i]));
    for (++i; i < lines.size(); ++i)
        if (!lines[i].empty())
            footer.push_back(lines[i]);
    return true;
}

ReportSection keyAveragesSection(const AnswerInputs& in)
{
    ReportSection s{"key-averages", "Key averages", {}};
    if (!in.averages) {
        s.blocks.push_back(notComputed("The key-averages table"));
        return s;
    }
    const stats::SortKey sort = stats::defaultSortKey(*in.averages);
    stats::TorchTableOptions options;
    options.sortBy = sort;
    options.rowLimit = in.keyAverageRows;
    options.maxNameColumnWidth = kSummaryNameWidth;
    const std::string table = stats::renderTorchTable(*in.averages, options);
    const size_t shown = std::min(in.averages->rows.size(), size_t(std::max(in.keyAverageRows, 0)));
    s.blocks.push_back(paragraph("The top " + std::to_string(shown) + " of " + std::to_string(in.averages->rows.size())
                                 + " rows of torch's key_averages() sorted by " + stats::sortKeyName(sort)
                                 + ", as `tilescope-cli summary --sort " + stats::sortKeyName(sort) + " --row-limit "
                                 + std::to_string(in.keyAverageRows) + "` prints them."));
    // torch's table counts a GPU record_function range (device "CUDA (annotation)") and the kernels inside it
    // each on its own, so its device percentages add up to more than 100%: say so where it happens.
    const bool annotations = std::any_of(in.averages->rows.begin(), in.averages->rows.end(), [](const stats::KeyAverage& r) {
        return r.deviceType == stats::DeviceType::CUDA && r.isUserAnnotation;
    });
    if (annotations)
        s.blocks.push_back(paragraph("Rows on device CUDA (annotation) are record_function ranges on the GPU: their time also counts in "
                                     "the kernels inside them, so the Self CUDA % column adds up to more than 100%, as in torch's own "
                                     "table."));
    ReportBlock cells;
    std::vector<std::string> footer;
    if (splitTorchTable(table, cells, footer)) {
        s.blocks.push_back(std::move(cells));
        if (!footer.empty()) {
            ReportBlock totals;
            totals.kind = Kind::List;
            totals.items = footer;
            s.blocks.push_back(std::move(totals));
        }
    } else {
        s.blocks.push_back(preformatted(table.empty() ? std::string("(no rows)") : table));
    }
    return s;
}

// ---- Overlap, roofline, memory, compare -------------------------------------------------------------------

ReportSection overlapSection(const AnswerInputs& in)
{
    ReportSection s{"overlap", "CPU/GPU overlap", {}};
    s.blocks.push_back(image(kTimelineImage));
    if (!in.overlap) {
        s.blocks.push_back(notComputed("The overlap"));
        return s;
    }
    s.blocks.push_back(paragraph("As `tilescope-cli overlap` prints it:"));
    s.blocks.push_back(preformatted(report::overlapText(*in.trace, *in.overlap)));
    return s;
}

void addClassifiedTable(ReportSection& s, const char* title, const std::vector<roofline::Classification>& list)
{
    if (list.empty()) {
        s.blocks.push_back(paragraph(std::string("No ") + title + " classified."));
        return;
    }
    const size_t shown = std::min(list.size(), kClassifiedShown);
    s.blocks.push_back(paragraph(
        "The " + std::string(title) + " by total time"
        + (shown < list.size() ? " (the top " + std::to_string(shown) + " of " + std::to_string(list.size()) + ")" : std::string()) + ":"));
    ReportBlock table;
    table.kind = Kind::Table;
    table.header = {"class", "strength", "name", "calls", "total", "work from"};
    std::vector<report::Verdict> verdicts;
    for (size_t i = 0; i < shown; ++i)
        verdicts.push_back(report::verdictOf(list[i]));
    const trace::NameShortener evidenceNames = report::textNames(verdicts); // as classify's listing tells them apart
    std::string evidence;
    for (const report::Verdict& v : verdicts) {
        table.rows.push_back({v.className, v.strength, v.name, std::to_string(v.calls), v.total, v.workSource});
        table.rowColours.push_back(v.colour);
        evidence += report::toText(v, &evidenceNames);
    }
    s.blocks.push_back(std::move(table));
    s.blocks.push_back(paragraph(std::string("Their evidence (achieved rates against the roofs), as `tilescope-cli classify` prints it:")));
    s.blocks.push_back(preformatted(evidence));
}

ReportSection rooflineSection(const AnswerInputs& in)
{
    ReportSection s{"roofline", "Roofline", {}};
    s.blocks.push_back(image(kRooflineImage));
    if (!in.classification) {
        s.blocks.push_back(notComputed("The roofline classification"));
        return s;
    }
    const roofline::ClassifyReport& r = *in.classification;
    std::string device = "Device: " + roofline::deviceText(r)
        + (r.measured ? "; ceilings measured where given, else the datasheet" : "; datasheet ceilings") + ".";
    s.blocks.push_back(paragraph(device));
    if (!r.notes.empty()) {
        ReportBlock notes;
        notes.kind = Kind::List;
        notes.items = r.notes;
        s.blocks.push_back(std::move(notes));
    }
    addClassifiedTable(s, "kernels", r.kernels);
    addClassifiedTable(s, "regions", r.regions);
    return s;
}

ReportSection memorySection(const AnswerInputs& in)
{
    ReportSection s{"memory", "Memory", {}};
    if (in.trace->memory.empty()) {
        s.blocks.push_back(paragraph("No memory figures: " + std::string(memory::kNoMemoryRecordsText) + "."));
        return s;
    }
    s.blocks.push_back(image(kMemoryImage));
    if (!in.memory) {
        s.blocks.push_back(notComputed("The memory analysis"));
        return s;
    }
    s.blocks.push_back(paragraph("The peak and the rest, as `tilescope-cli memory` prints them:"));
    s.blocks.push_back(preformatted(report::memoryText(*in.trace, *in.memory)));
    return s;
}

ReportSection compareSection(const AnswerInputs& in)
{
    ReportSection s{"compare", "Compare", {}};
    std::string text;
    for (const std::string& line : in.compareLines)
        text += line + "\n";
    s.blocks.push_back(preformatted(text));
    return s;
}

// ---- Rendering --------------------------------------------------------------------------------------------

const ReportImage* findImage(const std::vector<ReportImage>& images, const std::string& key)
{
    for (const ReportImage& i : images)
        if (i.key == key && !i.png.empty())
            return &i;
    return nullptr;
}

// Text inside Markdown prose or a table cell: the characters that would start markup are escaped.
std::string markdownEscaped(std::string_view text)
{
    std::string out;
    for (const char c : text) {
        if (c == '\\' || c == '`' || c == '*' || c == '[' || c == ']' || c == '<' || c == '>' || c == '|' || c == '#')
            out += '\\';
        if (c == '\n') {
            out += ' ';
            continue;
        }
        out += c;
    }
    return out;
}

// Paragraph text split at backticks: even pieces are prose, odd ones `code`; an unpaired backtick stays prose.
std::vector<std::string> codeSplit(std::string_view text)
{
    std::vector<std::string> pieces{std::string()};
    for (const char c : text) {
        if (c == '`')
            pieces.emplace_back();
        else
            pieces.back() += c;
    }
    if (pieces.size() % 2 == 0) { // an odd number of backticks: the last one is prose
        pieces[pieces.size() - 2] += "`" + pieces.back();
        pieces.pop_back();
    }
    return pieces;
}

std::string markdownParagraph(std::string_view text)
{
    std::string out;
    const auto pieces = codeSplit(text);
    for (size_t i = 0; i < pieces.size(); ++i)
        out += i % 2 ? "`" + pieces[i] + "`" : markdownEscaped(pieces[i]);
    return out;
}

std::string htmlParagraph(std::string_view text)
{
    std::string out;
    const auto pieces = codeSplit(text);
    for (size_t i = 0; i < pieces.size(); ++i)
        out += i % 2 ? "<code>" + report::htmlEscaped(pieces[i]) + "</code>" : report::htmlEscaped(pieces[i]);
    return out;
}

// A relative file name as a Markdown link target: spaces and parentheses would end it.
std::string linkTarget(std::string_view name)
{
    std::string out;
    for (const char c : name)
        out += c == ' ' ? std::string("%20") : c == '(' ? std::string("%28") : c == ')' ? std::string("%29") : std::string(1, c);
    return out;
}

// A fence longer than any run of backticks inside.
std::string fenceFor(std::string_view text)
{
    size_t longest = 0, run = 0;
    for (const char c : text) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    return std::string(std::max<size_t>(3, longest + 1), '`');
}

bool looksNumeric(const std::string& cell)
{
    return !cell.empty() && (std::isdigit(static_cast<unsigned char>(cell[0])) || (cell[0] == '-' && cell.size() > 1));
}

constexpr const char* kCss
    = R"(body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d1d1f;max-width:1150px;margin:24px auto;padding:0 20px;background:#fff}
h1{font-size:26px;margin:0 0 4px}h2{font-size:20px;border-bottom:2px solid #e3e3e8;padding-bottom:4px;margin-top:36px}
h3{font-size:16px;margin:22px 0 6px}.sub{color:#666;margin:0 0 12px}nav a{margin-right:14px;color:#2060c0;text-decoration:none}
table{border-collapse:collapse;margin:8px 0 14px;font-size:13px}th,td{border:1px solid #d8d8de;padding:3px 8px;vertical-align:top;text-align:left}
th{background:#f2f2f6}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
div.wide{overflow-x:auto;max-width:100%}table.data{font-size:12px}td{overflow-wrap:anywhere}
code{background:#f2f2f6;border-radius:3px;padding:0 3px;font-size:13px}
h3 .title{display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden}h3{display:flex;gap:2px;align-items:baseline}
table.facts th{width:220px;font-weight:600}table.data td:first-child{min-width:200px}
details{margin:8px 0 14px}summary{cursor:pointer;color:#2060c0}
pre{background:#f7f7f9;border:1px solid #e3e3e8;padding:10px;white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px;line-height:1.35}
figure{margin:10px 0 18px}img{max-width:100%;border:1px solid #d8d8de}figcaption{color:#666;font-size:13px}
.badge{display:inline-block;border-radius:4px;padding:1px 7px;margin-right:8px;font-size:12px;color:#fff;vertical-align:1px}
.badge.strong{background:#c83232}.badge.weak{background:#e68c14}.badge.provisional{background:#8c8c8c}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px}
)";

} // namespace

// ---- Public -------------------------------------------------------------------------------------------------

AnswerReport gatherAnswerReport(const AnswerInputs& in)
{
    if (!in.trace)
        throw std::invalid_argument("gatherAnswerReport needs a trace");
    AnswerReport r;
    r.title = "TileScope report: " + fs::path(in.tracePath).filename().string();
    r.subtitle = std::string("Written by TileScope ") + kVersion + " (" + kCommit + ") from " + in.tracePath + ".";
    r.sections.push_back(profiledSection(in));
    r.sections.push_back(findingsSection(in));
    r.sections.push_back(keyAveragesSection(in));
    r.sections.push_back(overlapSection(in));
    r.sections.push_back(rooflineSection(in));
    r.sections.push_back(memorySection(in));
    if (!in.compareLines.empty())
        r.sections.push_back(compareSection(in));
    SectionNames names;
    if (in.findings)
        for (const findings::Finding& f : *in.findings)
            for (const findings::Where& w : f.where)
                if (w.event < in.trace->events.size())
                    names.add(in.trace->name(in.trace->events[w.event]));
    if (in.classification) {
        for (const auto& c : in.classification->kernels)
            names.add(c.name);
        for (const auto& c : in.classification->regions) {
            names.add(c.name);
            for (const auto& k : c.kernels)
                names.add(k.name);
        }
    }
    for (ReportSection& s : r.sections)
        names.finish(s);
    return r;
}

std::optional<ReportFormat> reportFormatOf(const std::string& path)
{
    std::string suffix = fs::path(path).extension().string();
    std::transform(suffix.begin(), suffix.end(), suffix.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (suffix == ".html" || suffix == ".htm")
        return ReportFormat::Html;
    if (suffix == ".md" || suffix == ".markdown")
        return ReportFormat::Markdown;
    return std::nullopt;
}

std::string imageFilePath(const std::string& markdownPath, const std::string& key)
{
    fs::path p(markdownPath);
    p.replace_extension();
    return p.string() + "." + key + ".png";
}

std::string renderMarkdown(const AnswerReport& report, const std::vector<ReportImage>& images, const std::string& imageFileStem)
{
    std::string md = "# " + markdownEscaped(report.title) + "\n\n*" + markdownEscaped(report.subtitle) + "*\n\n";
    for (const ReportSection& s : report.sections) {
        md += "## " + markdownEscaped(s.title) + "\n\n";
        for (const ReportBlock& b : s.blocks) {
            if (!b.folded.empty())
                md += "*" + markdownEscaped(b.folded) + ":*\n\n";
            switch (b.kind) {
            case Kind::Paragraph: md += markdownParagraph(b.text) + "\n\n"; break;
            case Kind::Heading: md += "### " + (b.badge.empty() ? "" : "[" + b.badge + "] ") + markdownEscaped(b.text) + "\n\n"; break;
            case Kind::List:
                for (const std::string& item : b.items)
                    md += "- " + markdownEscaped(item) + "\n";
                md += "\n";
                break;
            case Kind::Facts:
                for (const auto& row : b.rows)
                    md += "- **" + markdownEscaped(row.at(0)) + "**: " + markdownEscaped(row.at(1)) + "\n";
                md += "\n";
                break;
            case Kind::Table: {
                auto line = [](const std::vector<std::string>& cells) {
                    std::string l = "|";
                    for (const std::string& c : cells)
                        l += " " + markdownEscaped(c) + " |";
                    return l + "\n";
                };
                md += line(b.header);
                md += "|";
                for (size_t i = 0; i < b.header.size(); ++i)
                    md += i == 0 ? " --- |" : " ---: |";
                md += "\n";
                for (const auto& row : b.rows)
                    md += line(row);
                md += "\n";
                break;
            }
            case Kind::Preformatted: {
                const std::string fence = fenceFor(b.text);
                md += fence + "\n" + b.text + "\n" + fence + "\n\n";
                break;
            }
            case Kind::Image:
                if (const ReportImage* i = findImage(images, b.imageKey))
                    md += "![" + markdownEscaped(i->caption) + "](" + linkTarget(imageFileStem + "." + i->key + ".png") + ")\n\n*"
                        + markdownEscaped(i->caption) + "*\n\n";
                break;
            }
        }
    }
    return md;
}

std::string renderHtml(const AnswerReport& report, const std::vector<ReportImage>& images)
{
    using report::htmlEscaped;
    std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + htmlEscaped(report.title)
        + "</title>\n<style>\n" + kCss + "</style>\n</head>\n<body>\n<header>\n<h1>" + htmlEscaped(report.title)
        + "</h1>\n<p class=\"sub\">" + htmlEscaped(report.subtitle) + "</p>\n<nav>";
    for (const ReportSection& s : report.sections)
        h += "<a href=\"#" + htmlEscaped(s.id) + "\">" + htmlEscaped(s.title) + "</a>";
    h += "</nav>\n</header>\n";
    for (const ReportSection& s : report.sections) {
        h += "<section id=\"" + htmlEscaped(s.id) + "\">\n<h2>" + htmlEscaped(s.title) + "</h2>\n";
        for (const ReportBlock& b : s.blocks) {
            if (!b.folded.empty())
                h += "<details><summary>" + htmlEscaped(b.folded) + "</summary>\n";
            switch (b.kind) {
            case Kind::Paragraph: h += "<p>" + htmlParagraph(b.text) + "</p>\n"; break;
            case Kind::Heading:
                h += "<h3>";
                if (!b.badge.empty())
                    h += "<span class=\"badge " + htmlEscaped(b.badge) + "\">" + htmlEscaped(b.badge) + "</span>";
                // A title can hold a long name: two lines at most, the whole in the tooltip.
                h += "<span class=\"title\" title=\"" + htmlEscaped(b.text) + "\">" + htmlEscaped(b.text) + "</span></h3>\n";
                break;
            case Kind::List:
                h += "<ul>\n";
                for (const std::string& item : b.items)
                    h += "<li>" + htmlEscaped(item) + "</li>\n";
                h += "</ul>\n";
                break;
            case Kind::Facts:
                h += "<table class=\"facts\">\n";
                for (const auto& row : b.rows)
                    h += "<tr><th>" + htmlEscaped(row.at(0)) + "</th><td>" + htmlEscaped(row.at(1)) + "</td></tr>\n";
                h += "</table>\n";
                break;
            case Kind::Table:
                h += "<div class=\"wide\">\n<table class=\"data\">\n<thead><tr>";
                for (const std::string& c : b.header)
                    h += "<th>" + htmlEscaped(c) + "</th>";
                h += "</tr></thead>\n<tbody>\n";
                for (size_t r = 0; r < b.rows.size(); ++r) {
                    h += "<tr>";
                    for (size_t c = 0; c < b.rows[r].size(); ++c) {
                        const std::string& cell = b.rows[r][c];
                        h += looksNumeric(cell) && c > 0 ? "<td class=\"num\">" : "<td>";
                        if (c == 0 && r < b.rowColours.size() && !b.rowColours[r].empty())
                            h += "<span class=\"swatch\" style=\"background:" + htmlEscaped(b.rowColours[r]) + "\"></span>";
                        h += htmlEscaped(cell) + "</td>";
                    }
                    h += "</tr>\n";
                }
                h += "</tbody>\n</table>\n</div>\n";
                break;
            case Kind::Preformatted: h += "<pre>" + htmlEscaped(b.text) + "</pre>\n"; break;
            case Kind::Image:
                if (const ReportImage* i = findImage(images, b.imageKey))
                    h += "<figure><img src=\"data:image/png;base64," + base64Encoded(i->png) + "\" alt=\"" + htmlEscaped(i->caption)
                        + "\"><figcaption>" + htmlEscaped(i->caption) + "</figcaption></figure>\n";
                break;
            }
            if (!b.folded.empty())
                h += "</details>\n";
        }
        h += "</section>\n";
    }
    h += "</body>\n</html>\n";
    return h;
}

std::vector<std::string> writeAnswerReport(const std::string& path, const AnswerReport& report, const std::vector<ReportImage>& images)
{
    const auto format = reportFormatOf(path);
    if (!format)
        throw io::TraceFileError(path, std::nullopt, "a report is written as .html or .md (by the file's suffix)");
    std::vector<std::string> written;
    if (*format == ReportFormat::Html) {
        io::writeTextFileAtomically(path, renderHtml(report, images), "the report");
        written.push_back(path);
        return written;
    }
    for (const ReportImage& i : images) {
        if (i.png.empty())
            continue;
        const std::string imagePath = imageFilePath(path, i.key);
        io::writeTextFileAtomically(imagePath, i.png, "the report's " + i.key + " image");
        written.push_back(imagePath);
    }
    const std::string stem = fs::path(path).stem().string();
    io::writeTextFileAtomically(path, renderMarkdown(report, images, stem), "the report");
    written.insert(written.begin(), path);
    return written;
}

AnswerExtras computeAnswerExtras(const AnswerInputs& inputs)
{
    AnswerExtras extras;
    if (!inputs.trace)
        return extras;
    findings::DiagnoseInputs in;
    in.averages = inputs.averages;
    in.overlap = inputs.overlap;
    in.memory = inputs.memory;
    in.classification = inputs.classification;
    extras.findings = findings::diagnose(*inputs.trace, in);
    if (inputs.classification) {
        try {
            extras.compareLines = report::compareLines(compare::compareSides(*inputs.trace, *inputs.classification));
        } catch (const compare::CompareError&) {
            // no default pair in this trace: the report has no compare section
        }
    }
    return extras;
}

} // namespace tilescope::answer
