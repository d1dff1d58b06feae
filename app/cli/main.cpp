// SPDX-License-Identifier: MIT
// tilescope-cli: TileScope's analyses without a display, for GPU boxes and CI.
#include "analysis/breakdown.h"
#include "analysis/kernelsequences.h"
#include "analysis/launchstats.h"
#include "analysis/overlap.h"
#include "analysis/queuelength.h"
#include "analysis/steps.h"
#include "analysis/streamidle.h"
#include "answer/answerreport.h"
#include "compare/compare.h"
#include "findings/diagnose.h"
#include "findings/findingsreport.h"
#include "io/tracefileerror.h"
#include "report/breakdownreport.h"
#include "report/launchreport.h"
#include "report/sequencereport.h"
#include "report/overlapreport.h"
#include "report/queuereport.h"
#include "report/snapshotreport.h"
#include "report/stepsreport.h"
#include "report/streamidlereport.h"
#include "report/summaryreport.h"
#include "report/traceinfo.h"
#include "roofline/ceilings.h"
#include "roofline/classify.h"
#include "report/classifyreport.h"
#include "report/comparereport.h"
#include "report/diffreport.h"
#include "capturecommand.h"
#if defined(TILESCOPE_HAVE_SQLITE)
#include "exportcommand.h"
#endif
#include "inputerror.h"
#include "memory/memoryanalysis.h"
#include "memorycommand.h"
#include "rankscommand.h"
#include "reportcommand.h"
#include "report/memoryreport.h"
#include "report/sourcereport.h"
#include "roofline/sourceinspect.h"
#include "version.h"

#include <filesystem>
#include "stats/keyaverages.h"
#include "stats/keyaveragesdiff.h"
#include "stats/torchtable.h"
#include "trace/rankset.h"
#include "trace/traceloader.h"
#include "io/decimal.h"

#include <charconv>
#include <cstdio>
#include <future>
#include <iostream>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace tilescope;

const char* kUsageHead = "usage: tilescope-cli COMMAND TRACE [options]   (capture and calibrate take no TRACE)\n"
                         "       tilescope-cli COMMAND --help            (one command's usage)\n"
                         "       tilescope-cli --version                 (the version and the commit)\n\ncommands:\n";

const char* kUsageTail = R"(
TRACE may be .json or .json.gz (gzip is detected by content). Exit status: 0 success, 2 bad input
or usage, 1 internal error.
)";

const char* kInfoUsage = R"(  info TRACE [--format text|json] [--partial]
      format, torch/CUDA versions, recorded options, devices, distributed run (backend, rank, world
      size, process groups), tracks, events per category, time span; the JSON holds the same facts
)";

const char* kSummaryUsage = R"(  summary TRACE [--sort KEY] [--row-limit N] [--group-by-input-shape]
                [--format table|json|csv] [--partial]
                [--max-name-width N] [--time-unit s|ms|us] [--top-level-only] [--legacy-memory-units]
      torch's prof.key_averages() computed from the trace; the table is key_averages().table()
      sort keys: cpu_time, cuda_time, cpu_time_total, cuda_time_total, self_cpu_time_total,
                 self_cuda_time_total, cpu_memory_usage, cuda_memory_usage, self_cpu_memory_usage,
                 self_cuda_memory_usage, count, flops ("device" may stand for "cuda"); "none" keeps
                 torch's group order. Default: self_cuda_time_total, or self_cpu_time_total when the
                 trace has no GPU activity. --row-limit defaults to -1 (all rows).
)";

const char* kOverlapUsage = R"(  overlap TRACE [--format table|json] [--window START_US,END_US | --step N | --steps A-B] [--all-devices]
                [--partial]
      CPU/GPU overlap: per-device GPU busy (union of kernels, memcpy, memset on all streams) with the
      kernels, memcpys and memsets started in the window, CPU busy per thread, both busy, GPU idle
      while the CPU works, both idle, and how many kernel launches cost at least 80% of their kernel's time.
      The window defaults to the first start to the last end of CPU work and GPU activity; --window
      takes trace timestamps in microseconds, as in the file, and must overlap the trace. Devices
      with no GPU activity are left out unless --all-devices; a trace with none says so. --step N and
      --steps A-B take the window of those steps (see steps).
)";

const char* kBreakdownUsage = R"(  breakdown TRACE [--format table|json] [--window START_US,END_US | --step N | --steps A-B] [--partial]
      per device with GPU activity: compute (union of kernels that are not NCCL communication),
      non-compute (memcpy, memset and communication kernels not under compute) and idle, as time and
      share of the window (the three sum to it); and kernel types: computation, communication, memory
      (memcpy/memset), each a union, the time each pair overlaps, and the share of communication time
      overlapped by computation. Window as overlap (default, --window, --step N, --steps A-B).
)";

const char* kStepsUsage = R"(  steps TRACE [--format table|json] [--partial]
      one row per step (ProfilerStep#N, else the most repeated top-level record_function region such as
      step_0, step_1...; a region's step runs to the next one's start, whatever lies between, the last
      one's over what follows it of the families the steps before held, up to one median step): number,
      name, start, duration, GPU busy
      (union of kernels, memcpy, memset of all devices within the step), GPU utilization, kernels
      started in it, CPU busy (as overlap). A
      step's number is the number its name ends with when every step has one and no two are equal,
      else its position by start from 0; --step N / --steps A-B of overlap and diagnose select by it,
      the window running from the first selected step's start to the last one's end
)";

const char* kLaunchesUsage = R"(  launches TRACE [--outliers N] [--format table|json] [--window START_US,END_US | --step N | --steps A-B]
                 [--partial]
      every launch (a CUDA runtime or driver API call - cudaLaunchKernel, cuLaunchKernelEx, cudaMemcpyAsync,
      cudaGraphLaunch... - linked by correlation id to kernels, memcpy or memset) whose call starts in the
      window: CPU duration (the call), GPU duration (its activities), launch delay (first activity start -
      call start); per stream count, min, p50, p90, p99 (nearest rank), max and mean; outliers: kernels
      shorter than half their launch's CPU time, and launch delays above 100 us and (streams of 100+) their p99,
      with their events. --outliers N lists N of each (default 10). Window as overlap
)";

const char* kSequencesUsage = R"(  sequences TRACE [--top N] [--min-length N] [--max-length N] [--format table|json]
                  [--window START_US,END_US | --step N | --steps A-B] [--partial]
      repeated kernel sequences, fusion candidates: runs of consecutive "op -> kernel" steps on one stream
      (a memcpy, memset or kernel without an op ends a run) that occur at least twice, chosen greedily by
      kernels covered, each kernel counted once (so a repeating pattern is not reported again as its
      rotations or pieces); occurrences, GPU time, and whether all its kernels are elementwise (a fusion
      candidate). --top (default 10), --min-length (default 3, at least 2), --max-length (default 16);
      the kernels starting in --window or the --step/--steps (whole trace by default)
)";

const char* kDeviceUsage = R"(  device TRACE [--ceilings FILE] [--devices FILE] [--gpu NAME] [--partial]
      the trace's GPUs matched to the datasheet table (roofline ceilings: memory bandwidth, FP64, FP32,
      TF32/BF16/FP16/FP8/INT8 tensor rates), with measured ceilings from --ceilings replacing them.
      --gpu names the GPU of a trace without deviceProperties (or with one the table does not know): a
      row such as "A100 SXM4 40GB" or "H100 PCIe", a name such as "NVIDIA A100-SXM4-80GB", or a shorter
      one ("4090", "a100 pcie 40gb"); a name several rows fit ("a100", "h100") is refused with them listed,
      as is one that is not the trace's own known GPU, and one with a word of another part ("Laptop", "Ti")
)";

const char* kClassifyUsage
    = R"(  classify TRACE [--annotations FILE] [--ceilings FILE] [--gpu NAME] [--allow-tf32] [--source NAME=FILE.cu]...
                 [--format table|json] [--partial]
      each kernel and each record_function region placed on the roofline: io-bound, cuda-core-bound,
      tensor-core-bound, latency-bound or inconclusive, with a strength and the numbers it rests on.
      Work comes from the launching op (torch's FLOP formulas, compulsory bytes), the bytes of
      memcpy/memset, or TRACE.annotations.json / --annotations for custom (TileLang, Triton) kernels.
      --source attaches a generated CUDA source to a kernel name, "re:REGEX" or region label (as in
      the annotations, whose entries may also carry "source": "file.cu"); repeatable. Its call sites
      corroborate the verdict and, for a custom kernel without a declared roof, choose the tensor roof.
      --gpu grades a trace without deviceProperties, or with a GPU the table does not know, against the
      datasheet row it names (see device --help; also taken by diagnose, compare and report; --annotations
      by diagnose and compare too)
)";

const char* kInspectUsage = R"(  inspect FILE.cu [--format table|json]
      what a TileLang generated source shows (kernel.get_kernel_source(), device_kernel.cu in
      ~/.tilelang/cache): mma.sync, WGMMA, tcgen05, TMA, cp.async and mbarrier call sites per kernel,
      with line numbers and a conclusion. #include lines and comments prove nothing; call sites count
)";

const char* kMemoryUsage = R"(  memory FILE [--format table|json] [--events] [--partial]
      device memory from a trace recorded with profile_memory=True: per device (cuda:N, cpu) the peak
      allocated (the largest recorded Total Allocated) with its time and the op running on that thread,
      peak reserved, final allocated, allocations and frees; out-of-memory requests; allocated at each
      step's end (ProfilerStep#N, else a repeating top-level record_function region, whose step ends where
      the next one starts: steps explains the rule) and a suspected
      leak (growth over 3 or more steps never given back); the top allocating ops (self) and the blocks
      still live at the end. --events adds every allocation paired with its free (same device and
      address). FILE may also be an allocator snapshot pickle or a memory timeline export (by content)
)";

const char* kDiagnoseUsage = R"(  diagnose TRACE [--format table|json] [--window START_US,END_US | --step N | --steps A-B] [--gpu NAME]
                 [--annotations FILE] [--partial]
      findings: what limits the run, how sure (strong, weak, provisional), the numbers and profiler
      columns it rests on, the next step and the time ranges it is about. Rules: launch-bound, gpu-idle,
      dominant-kernel (with its roofline class; TRACE.annotations.json is read when present, or
      --annotations FILE, as classify takes it),
      warmup-in-window, sync-stall, pageable-memcpy, tiny-kernels, memory-growth, out-of-memory,
      cuda-graph, partial-trace (a trace loaded with --partial: where it stops, what the cut loses). A rule
      that cannot apply (no GPU activity, no steps, no memory events) says nothing. Listed by impact
      (impact_us, the time at stake), a partial trace first, an out-of-memory next. --window: only events
      and steps that start inside it (the roofline class stays the whole trace's)
)";

const char* kDiffUsage = R"(  diff BEFORE AFTER [--by-shape] [--step N | --steps A-B] [--format table|json|csv]
             [--max-name-width N] [--partial]
      two traces (before and after a change) compared by torch's key_averages rows, matched by key, device
      type and user annotation (and input shapes with --by-shape): count, self CPU, self device and device
      time of each side and after - before; rows on one side only are added or removed ops and kernels.
      Largest |device-time delta| first. The JSON holds both summary rows and both traces' overlap; the CSV
      a line per row (each side's count and times, and their delta), as the app's compare table exports it.
      --step/--steps: only the ops and kernels that start in those steps of each trace (as steps numbers them).
      Traces of other GPUs or runs of other sizes get a note line each first (setup_differences in JSON)
)";

const char* kCompareUsage = R"(  compare TRACE [--a NAME] [--b NAME] [--format table|json] [--gpu NAME] [--annotations FILE] [--partial]
      two record_function regions or two kernels (GPU activity names, exact) of one trace: calls, GPU
      time per call (mean, median, min, max; a region call's GPU time is the sum of the GPU activities
      inside its spans), GPU span per call (first to last activity, gaps included) and the busy share of
      it, achieved FLOP/s and bytes/s per span time (as classify rates a region), roofline class,
      strength and share of the roof,
      the kernels inside each region, and a one-line verdict. ratio_b_over_a = b's mean GPU time per
      call / a's (above 1: b is slower). Default: tilelang_kernel (a) vs torch_ref (b), else
      custom_kernel vs torch_ref. A region is its GPU-side spans (gpu_user_annotation): one the trace has
      on the CPU only is refused as such. TRACE.annotations.json is read when present; --annotations FILE reads
      another (a trace in a folder you cannot write to), as classify does
)";

const char* kIdleUsage = R"(  idle TRACE [--format table|json] [--window START_US,END_US | --step N | --steps A-B]
             [--kernel-wait-threshold US] [--partial]
      idle time per GPU stream from its first activity (kernel, memcpy, memset) to its last, cut to the
      window when one is given, split into host wait (the next activity's launch started after the
      stream ran dry: the CPU was late), kernel wait (work was queued and the gap is shorter than the
      threshold, default 10 us) and other; the three sum to the idle time. Gaps are classified whole
      and then cut to the window
)";

const char* kQueueUsage = R"(  queue TRACE [--format table|json] [--series] [--window START_US,END_US | --step N | --steps A-B]
              [--limit N] [--partial]
      launch queue length per GPU stream: operations (kernel, memcpy, memset) whose runtime or driver
      launch has started and that have not started themselves. Time-weighted max, mean, median and
      p95 and the time at each length from the stream's first launch to its last operation's start (cut
      to the window), the time the queue was full (at --limit pending, default 1022: where a saturated
      stream plateaus in traces; CUDA's queue has 1024 entries) and, of it, the time a launch call to
      the stream was running (the CPU blocked). --series adds every change
)";

#if defined(TILESCOPE_HAVE_SQLITE)
const char* const kExportUsage = cli::kExportUsage;
#else
const char* const kExportUsage = R"(  export TRACE|DIR|FILES... --sqlite FILE.db [--force] [--partial]
      not in this build: tilescope-cli was built without SQLite (install libsqlite3-dev and rebuild)
)";
#endif

struct CommandUsage
{
    const char* name;
    const char* usage;
};

// Every command's usage, in the order --help lists them.
std::vector<CommandUsage> commandUsages()
{
    return {{"info", kInfoUsage},
            {"summary", kSummaryUsage},
            {"overlap", kOverlapUsage},
            {"steps", kStepsUsage},
            {"breakdown", kBreakdownUsage},
            {"idle", kIdleUsage},
            {"queue", kQueueUsage},
            {"launches", kLaunchesUsage},
            {"sequences", kSequencesUsage},
            {"device", kDeviceUsage},
            {"classify", kClassifyUsage},
            {"inspect", kInspectUsage},
            {"memory", kMemoryUsage},
            {"diagnose", kDiagnoseUsage},
            {"compare", kCompareUsage},
            {"diff", kDiffUsage},
            {"report", cli::kReportUsage},
            {"capture", cli::kCaptureUsage},
            {"calibrate", cli::kCalibrateUsage},
            {"ranks", cli::kRanksUsage},
            {"export", kExportUsage}};
}

std::string fullUsage()
{
    std::string usage = kUsageHead;
    for (const auto& [name, text] : commandUsages())
        usage += std::string(text) + "\n";
    return usage + kUsageTail;
}

const char* usageOf(std::string_view command)
{
    for (const auto& [name, text] : commandUsages())
        if (command == name)
            return text;
    return nullptr;
}

// --help or -h where an option may stand (not after capture's "--", where the script's own arguments go).
bool asksForHelp(int argc, char** argv)
{
    for (int i = 2; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--")
            return false;
        if (arg == "--help" || arg == "-h")
            return true;
    }
    return false;
}

// --partial anywhere on the command line.
bool asksForPartial(int argc, char** argv)
{
    for (int i = 2; i < argc; ++i)
        if (std::string_view(argv[i]) == "--partial")
            return true;
    return false;
}

struct UsageError
{
    std::string message;
};

struct Arguments
{
    std::string command;
    std::string trace;                                        // the first positional argument
    std::vector<std::string> positionals;                     // all of them, for a command that takes several (diff: BEFORE AFTER)
    std::vector<std::pair<std::string, std::string>> options; // name -> value ("" for flags)
    bool has(std::string_view name) const
    {
        for (const auto& [n, v] : options)
            if (n == name)
                return true;
        return false;
    }
    std::optional<std::string> get(std::string_view name) const
    {
        std::optional<std::string> out;
        for (const auto& [n, v] : options)
            if (n == name)
                out = v;
        return out;
    }
};

// `positionals`: how many TRACE-like arguments the command takes, exactly; kOneOrMore for a list (ranks).
constexpr size_t kOneOrMore = 0;
Arguments parseArguments(int argc, char** argv, const std::vector<std::string>& flags, const std::vector<std::string>& valued,
                         size_t positionals = 1)
{
    Arguments a;
    a.command = argv[1];
    for (int i = 2; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg.starts_with("--")) {
            std::string value;
            bool inlineValue = false;
            if (const size_t eq = arg.find('='); eq != std::string::npos) {
                value = arg.substr(eq + 1);
                arg = arg.substr(0, eq);
                inlineValue = true;
            }
            const std::string name = arg.substr(2);
            if (std::find(flags.begin(), flags.end(), name) != flags.end()) {
                if (inlineValue)
                    throw UsageError{"option --" + name + " takes no value"};
                a.options.emplace_back(name, "");
            } else if (std::find(valued.begin(), valued.end(), name) != valued.end()) {
                if (!inlineValue) {
                    if (i + 1 >= argc)
                        throw UsageError{"option --" + name + " needs a value"};
                    value = argv[++i];
                }
                a.options.emplace_back(name, value);
            } else {
                throw UsageError{"unknown option --" + name + " for '" + a.command + "'"};
            }
        } else if (positionals == kOneOrMore || a.positionals.size() < positionals) {
            a.positionals.push_back(arg);
        } else {
            throw UsageError{"unexpected argument '" + arg + "'" + (positionals == 1 ? " (one trace at a time)" : "")};
        }
    }
    if (positionals > 1 && a.positionals.size() != positionals)
        throw UsageError{"'" + a.command + "' needs " + std::to_string(positionals) + " TRACE files, got "
                         + std::to_string(a.positionals.size())};
    if (a.positionals.empty())
        throw UsageError{"'" + a.command + "' needs " + (a.command == "inspect" ? "a FILE.cu" : "a TRACE file")};
    a.trace = a.positionals.front();
    return a;
}

int parseInt(const std::string& text, const char* option)
{
    int v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size())
        throw UsageError{std::string("--") + option + " expects an integer, got '" + text + "'"};
    return v;
}

// Prints nothing, so two loads may run at once (the streams are not synchronised with stdio: not thread-safe).
std::unique_ptr<trace::Trace> loadQuietly(const Arguments& a, const std::string& path)
{
    if (auto rank = cli::takePreloadedTrace(path)) // a folder run per rank: loaded with the others already
        return rank;
    trace::LoadOptions options;
    options.partial = a.has("partial");
    options.keepRawArgs = false; // every analysis reads the structured args the loader keeps
    return trace::loadTrace(path, options);
}

void printLoadWarnings(const std::string& path, const trace::Trace& t)
{
    for (const std::string& w : t.stats.warnings)
        std::cerr << "tilescope-cli: warning: " << path << ": " << w << "\n";
}

std::unique_ptr<trace::Trace> load(const Arguments& a)
{
    auto t = loadQuietly(a, a.trace);
    printLoadWarnings(a.trace, *t);
    return t;
}

int runInfo(const Arguments& a)
{
    const std::string format = a.get("format").value_or("text");
    if (format != "text" && format != "json")
        throw UsageError{"--format for info is text or json, got '" + format + "'"};
    const auto t = load(a);
    std::cout << (format == "json" ? report::traceInfoJson(a.trace, *t) : report::traceInfoText(a.trace, *t));
    return 0;
}

int runSummary(const Arguments& a)
{
    const std::string format = a.get("format").value_or("table");
    if (format != "table" && format != "json" && format != "csv")
        throw UsageError{"--format for summary is table, json or csv, got '" + format + "'"};
    std::optional<stats::SortKey> sort;
    bool sortGiven = false;
    if (const auto s = a.get("sort")) {
        sortGiven = true;
        if (*s != "none") {
            sort = stats::sortKeyFromName(*s);
            if (!sort) {
                std::string known;
                for (const auto& n : stats::sortKeyNames())
                    known += " " + n;
                throw UsageError{"unknown sort key '" + *s + "'; known keys:" + known + " none"};
            }
        }
    }
    const int rowLimit = a.get("row-limit") ? parseInt(*a.get("row-limit"), "row-limit") : -1;
    const auto t = load(a);
    stats::KeyAveragesOptions options;
    options.groupByInputShape = a.has("group-by-input-shape");
    if (trace::loadThreads(trace::LoadOptions{}) == 1) // TILESCOPE_LOAD_THREADS=1: one thread in all
        options.threads = 1;
    const stats::KeyAverages averages = stats::computeKeyAverages(*t, options);
    // torch's table of nothing is empty: say why, where a trace with events gives no row (a generic Chrome trace).
    if (averages.rows.empty() && trace::noEventsText(*t).empty())
        std::cerr << "tilescope-cli: note: " << a.trace << ": nothing to average: "
                  << (t->events.size() == 1 ? std::string("its one event is not")
                                            : "none of its " + std::to_string(t->events.size()) + " events is")
                  << " a torch op, record_function region, CUDA runtime call or GPU activity\n";
    if (!sortGiven)
        sort = stats::defaultSortKey(averages);
    if (format == "json") {
        std::cout << report::summaryJson(a.trace, averages, {sort, rowLimit});
    } else if (format == "csv") {
        std::cout << report::summaryCsv(averages, {sort, rowLimit});
    } else {
        stats::TorchTableOptions table;
        table.sortBy = sort;
        table.rowLimit = rowLimit;
        table.maxNameColumnWidth = a.get("max-name-width") ? parseInt(*a.get("max-name-width"), "max-name-width") : 80;
        table.topLevelEventsOnly = a.has("top-level-only");
        if (a.has("legacy-memory-units"))
            table.memoryUnits = stats::MemoryUnitStyle::Legacy;
        if (const auto unit = a.get("time-unit")) {
            if (*unit != "s" && *unit != "ms" && *unit != "us")
                throw UsageError{"--time-unit is s, ms or us, got '" + *unit + "'"};
            table.timeUnit = *unit;
        }
        std::cout << stats::renderTorchTable(averages, table);
    }
    return 0;
}

// --window START_US,END_US (trace timestamps in microseconds, as in the file); nullopt when absent.
std::optional<analysis::Interval> parseWindow(const Arguments& a)
{
    const auto w = a.get("window");
    if (!w)
        return std::nullopt;
    const size_t comma = w->find(',');
    const auto start = comma == std::string::npos ? std::nullopt : io::parseMicrosecondsAsNanoseconds(w->substr(0, comma));
    const auto end = comma == std::string::npos ? std::nullopt : io::parseMicrosecondsAsNanoseconds(w->substr(comma + 1));
    if (!start || !end || *end <= *start)
        throw UsageError{"--window expects START_US,END_US with START < END, got '" + *w + "'"};
    return analysis::Interval{*start, *end};
}

// A window must overlap the loaded trace.
void checkWindow(const Arguments& a, const trace::Trace& t, const std::optional<analysis::Interval>& window)
{
    if (window && (window->end <= t.firstTime() || window->start >= t.lastTime()))
        throw UsageError{"--window " + *a.get("window") + " lies outside the trace, which spans ts "
                         + io::formatNanosecondsAsMicroseconds(t.firstTime()) + " .. " + io::formatNanosecondsAsMicroseconds(t.lastTime())
                         + " us"};
}

// --step N / --steps A-B (step numbers as analysis::stepNumbers defines them) as {first, last}; nullopt
// when neither is given. Each excludes the other and --window.
std::optional<std::pair<int64_t, int64_t>> parseStepSelection(const Arguments& a)
{
    const auto step = a.get("step"), steps = a.get("steps");
    if (!step && !steps)
        return std::nullopt;
    const std::string option = step ? "--step" : "--steps";
    if (step && steps)
        throw UsageError{"--step and --steps exclude each other: give one"};
    if (a.has("window"))
        throw UsageError{"--window and " + option + " exclude each other: give one"};
    const auto range = analysis::parseStepRange(step ? *step : *steps);
    if (!range || (step && range->first != range->second))
        throw UsageError{step ? "--step expects a step number N >= 0, got '" + *step + "'"
                              : "--steps expects A-B with 0 <= A <= B, got '" + *steps + "'"};
    return range;
}

// The window of the selected steps; bad input naming the file when the trace has no such step.
analysis::Interval stepSelectionWindow(const std::string& path, const trace::Trace& t, std::pair<int64_t, int64_t> range)
{
    std::optional<analysis::Interval> window;
    try {
        window = analysis::stepWindow(t, range.first, range.second);
    } catch (const analysis::StepSelectionError& e) {
        throw io::TraceFileError(path, std::nullopt, e.what());
    }
    if (!window)
        throw io::TraceFileError(path, std::nullopt, std::string("--step/--steps: ") + report::kNoStepsText);
    return *window;
}

// --window or --step/--steps, parsed before the trace loads (usage errors first) and resolved after.
struct WindowSelection
{
    std::optional<analysis::Interval> window;
    std::optional<std::pair<int64_t, int64_t>> steps;
};

WindowSelection parseWindowSelection(const Arguments& a) { return {parseWindow(a), parseStepSelection(a)}; }

std::optional<analysis::Interval> resolveWindow(const Arguments& a, const trace::Trace& t, const WindowSelection& selection)
{
    checkWindow(a, t, selection.window);
    return selection.steps ? stepSelectionWindow(a.trace, t, *selection.steps) : selection.window;
}

int runSteps(const Arguments& a)
{
    const std::string format = a.get("format").value_or("table");
    if (format != "table" && format != "json")
        throw UsageError{"--format for steps is table or json, got '" + format + "'"};
    const auto t = load(a);
    const analysis::StepTable table = analysis::computeStepTable(*t);
    std::cout << (format == "json" ? report::stepsJson(*t, table) : report::stepsText(*t, table));
    return 0;
}

int runOverlap(const Arguments& a)
{
    const std::string format = a.get("format").value_or("table");
    if (format != "table" && format != "json")
        throw UsageError{"--format for overlap is table or json, got '" + format + "'"};
    const WindowSelection selection = parseWindowSelection(a);
    const auto t = load(a);
    const std::optional<analysis::Interval> window = resolveWindow(a, *t, selection);
    const auto report = analysis::computeOverlap(*t, window);
    const report::OverlapReportOptions options{window.has_value(), a.has("all-devices")};
    std::cout << (format == "json" ? report::overlapJson(*t, report, options) : report::overlapText(*t, report, options));
    return 0;
}

int runBreakdown(const Arguments& a)
{
    const std::string format = a.get("format").value_or("table");
    if (format != "table" && format != "json")
        throw UsageError{"--format for breakdown is table or json, got '" + format + "'"};
    const WindowSelection selection = parseWindowSelection(a);
    const auto t = load(a);
    const std::optional<analysis::Interval> window = resolveWindow(a, *t, selection);
    const auto report = analysis::computeBreakdown(*t, window);
    std::cout << (format == "json" ? report::breakdownJson(report) : report::breakdownText(report, trace::profilerRangeText(*t)));
    return 0;
}

int runIdle(const Arguments& a)
{
    const std::string format = a.get("format").value_or("table");
    if (format != "table" && format != "json")
        throw UsageError{"--format for idle is table or json, got '" + format + "'"};
    int64_t thresholdNs = analysis::kDefaultKernelWaitThresholdNs;
    if (const auto text = a.get("kernel-wait-threshold")) {
        const auto parsed = io::parseMicrosecondsAsNanoseconds(*text);
        if (!parsed || *parsed < 0)
            throw UsageError{"--kernel-wait-threshold expects microseconds >= 0, got '" + *text + "'"};
        thresholdNs = *parsed;
    }
    const WindowSelection selection = parseWindowSelection(a);
    const auto t = load(a);
    const auto report = analysis::computeStreamIdle(*t, resolveWindow(a, *t, selection), thresholdNs);
    std::cout << (format == "json" ? report::streamIdleJson(report) : report::streamIdleText(report, trace::profilerRangeText(*t)));
    return 0;
}

int runQueue(const Arguments& a)
{
    const std::string format = a.get("format").value_or("table");
    if (format != "table" && format != "json")
        throw UsageError{"--format for queue is table or json, got '" + format + "'"};
    const int limit = a.get("limit") ? parseInt(*a.get("limit"), "limit") : analysis::kDefaultLaunchQueueLimit;
    if (limit < 1)
        throw UsageError{"--limit expects a queue length >= 1, got '" + *a.get("limit") + "'"};
    const WindowSelection selection = parseWindowSelection(a);
    const auto t = load(a);
    const auto report = analysis::computeQueueLength(*t, resolveWindow(a, *t, selection), limit);
    const report::QueueReportOptions options{a.has("series")};
    std::cout << (format == "json" ? report::queueJson(report, options) : report::queueText(report, options));
    return 0;
}

int runLaunches(const Arguments& a)
{
    const std::string format = a.get("format").value_or("table");
    if (format != "table" && format != "json")
        throw UsageError{"--format for launches is table or json, got '" + format + "'"};
    const int outliers = a.get("outliers") ? parseInt(*a.get("outliers"), "outliers") : 10;
    if (outliers < 0)
        throw UsageError{"--outliers expects N >= 0, got " + std::to_string(outliers)};
    const WindowSelection selection = parseWindowSelection(a);
    const auto t = load(a);
    const std::optional<analysis::Interval> window = resolveWindow(a, *t, selection);
    const analysis::LaunchStats stats = analysis::computeLaunchStats(*t, window);
    const size_t listed = static_cast<size_t>(outliers);
    std::cout << (format == "json" ? report::launchStatsJson(*t, stats, listed) : report::launchStatsText(*t, stats, listed));
    return 0;
}

int runSequences(const Arguments& a)
{
    const std::string format = a.get("format").value_or("table");
    if (format != "table" && format != "json")
        throw UsageError{"--format for sequences is table or json, got '" + format + "'"};
    analysis::KernelSequenceOptions options;
    const int top = a.get("top") ? parseInt(*a.get("top"), "top") : static_cast<int>(options.top);
    const int minLength = a.get("min-length") ? parseInt(*a.get("min-length"), "min-length") : static_cast<int>(options.minLength);
    const int maxLength = a.get("max-length") ? parseInt(*a.get("max-length"), "max-length") : static_cast<int>(options.maxLength);
    if (top < 1)
        throw UsageError{"--top expects N >= 1, got " + std::to_string(top)};
    if (minLength < 2 || maxLength > 256 || maxLength < minLength)
        throw UsageError{"--min-length and --max-length need 2 <= min-length <= max-length <= 256, got " + std::to_string(minLength)
                         + " and " + std::to_string(maxLength)};
    options.top = static_cast<uint32_t>(top);
    options.minLength = static_cast<uint32_t>(minLength);
    options.maxLength = static_cast<uint32_t>(maxLength);
    const WindowSelection selection = parseWindowSelection(a);
    const auto t = load(a);
    options.window = resolveWindow(a, *t, selection);
    const analysis::KernelSequenceReport report = analysis::findKernelSequences(*t, options);
    std::cout << (format == "json" ? report::sequencesJson(*t, report) : report::sequencesText(*t, report));
    return 0;
}

// A --gpu that fits no datasheet row, refused before any trace is loaded (one that fits several may still be
// the trace's own GPU: that waits for the trace).
void checkGpuName(const std::vector<roofline::DeviceEntry>& database, const std::string& gpu)
{
    if (gpu.find_first_not_of(" -_") == std::string::npos)
        throw UsageError{"--gpu needs a GPU's name, such as \"A100 SXM4 80GB\" (tilescope-cli device --help)"};
    if (roofline::deviceRowsNamed(database, gpu).empty())
        throw UsageError{"--gpu: " + roofline::gpuNameProblem(database, gpu)};
}

int runDevice(const Arguments& a)
{
    const auto database = a.get("devices") ? roofline::loadDeviceDatabase(*a.get("devices")) : roofline::builtinDeviceDatabase();
    std::optional<roofline::MeasuredCeilings> measured;
    if (const auto path = a.get("ceilings"))
        measured = roofline::loadMeasuredCeilings(*path);
    const std::string gpu = a.get("gpu").value_or("");
    if (!gpu.empty())
        checkGpuName(database, gpu);
    const auto t = load(a);
    // Every GPU's row first, so a refused --gpu prints nothing.
    std::vector<roofline::GpuChoice> choices;
    for (const auto& d : t->meta.devices)
        choices.push_back(roofline::resolveGpu(database, &d, gpu));
    if (t->meta.devices.empty() && !gpu.empty())
        choices.push_back(roofline::resolveGpu(database, nullptr, gpu));
    for (const roofline::GpuChoice& c : choices)
        if (!c.error.empty())
            throw UsageError{"--gpu: " + c.error};
    auto rate = [](double v, const char* unit) { return v > 0 ? stats::formatFixed(v / 1e12, 1) + " T" + unit : std::string("-"); };
    // One GPU's ceilings: its row's, with the measured ones replacing them where they are for this GPU.
    auto printCeilings = [&](const roofline::GpuChoice& choice, const std::string& gpuName) {
        const bool useMeasured = measured
            && roofline::measuredApplies(*measured, gpuName, choice.chosen ? choice.entry : nullptr, database);
        if (measured && !useMeasured)
            std::cout << "  measured ceilings from " << *a.get("ceilings") << " not used: they were measured on " << measured->gpu << "\n";
        if (!choice.entry && !useMeasured)
            return;
        roofline::Ceilings c = choice.entry ? choice.entry->peaks : roofline::Ceilings{};
        if (useMeasured) {
            c = roofline::applyMeasured(c, *measured);
            std::cout << "  measured ceilings from " << *a.get("ceilings") << (measured->gpu.empty() ? "" : " (" + measured->gpu + ")")
                      << " replace the datasheet where given\n";
        }
        std::cout << "  memory " << rate(c.memoryBytesPerS, "B/s") << ", FP64 " << rate(c.fp64, "FLOP/s") << ", FP32 "
                  << rate(c.fp32, "FLOP/s") << ", TF32 " << rate(c.tf32, "FLOP/s") << ", BF16 " << rate(c.bf16, "FLOP/s") << ", FP16 "
                  << rate(c.fp16, "FLOP/s") << ", FP8 " << rate(c.fp8, "FLOP/s") << ", INT8 " << rate(c.int8, "OP/s") << "\n";
        if (c.memoryBytesPerS > 0 && c.fp32 > 0)
            std::cout << "  ridge points (FLOP/byte): FP32 " << stats::formatFixed(c.fp32 / c.memoryBytesPerS, 1)
                      << (c.bf16 > 0 ? ", BF16 " + stats::formatFixed(c.bf16 / c.memoryBytesPerS, 1) : std::string()) << "\n";
    };
    if (t->meta.devices.empty() && choices.empty())
        std::cout << "no deviceProperties in the trace (a CPU-only run, or an old writer); --gpu NAME shows a datasheet row's ceilings "
                     "for it\n";
    if (t->meta.devices.empty() && !choices.empty()) {
        for (const auto& note : choices.front().notes)
            std::cout << note << "\n";
        printCeilings(choices.front(), {});
    }
    for (size_t i = 0; i < t->meta.devices.size(); ++i) {
        const auto& d = t->meta.devices[i];
        std::cout << "device " << d.id << ": " << d.name << "\n";
        for (const auto& note : choices[i].notes)
            std::cout << "  " << note << "\n";
        printCeilings(choices[i], d.name);
    }
    return 0;
}

// TRACE.annotations.json when it exists: what classify reads without --annotations.
std::string annotationsBeside(const std::string& trace)
{
    return std::filesystem::exists(trace + ".annotations.json") ? trace + ".annotations.json" : std::string();
}

// What every command that classifies reads: the annotations (--annotations, else TRACE.annotations.json) and
// the GPU chosen with --gpu, checked against the datasheet table before the trace is loaded.
roofline::ClassifyOptions classifyOptionsOf(const Arguments& a)
{
    roofline::ClassifyOptions options;
    if (const std::string annotations = a.get("annotations").value_or(annotationsBeside(a.trace)); !annotations.empty())
        options.annotations = roofline::loadAnnotations(annotations);
    if (const auto gpu = a.get("gpu")) {
        checkGpuName(roofline::builtinDeviceDatabase(), *gpu);
        options.gpu = *gpu;
    }
    return options;
}

// classify, with a --gpu the trace contradicts (it names another GPU the table knows) as a usage error.
roofline::ClassifyReport classifyOrRefuse(const trace::Trace& t, const roofline::ClassifyOptions& options)
{
    try {
        return roofline::classify(t, options);
    } catch (const std::invalid_argument& e) {
        throw UsageError{std::string("--gpu: ") + e.what()};
    }
}

int runClassify(const Arguments& a)
{
    const std::string format = a.get("format").value_or("table");
    if (format != "table" && format != "json")
        throw UsageError{"--format for classify is table or json, got '" + format + "'"};
    roofline::ClassifyOptions options = classifyOptionsOf(a);
    if (const auto path = a.get("ceilings"))
        options.measured = roofline::loadMeasuredCeilings(*path);
    options.allowTf32 = a.has("allow-tf32");
    for (const auto& [name, value] : a.options) {
        if (name != "source")
            continue;
        const size_t eq = value.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
            throw UsageError{"--source expects NAME=FILE.cu (a kernel name, re:REGEX or region label), got '" + value + "'"};
        options.sources.push_back({value.substr(0, eq), roofline::inspectGeneratedSourceFile(value.substr(eq + 1))});
    }
    const auto t = load(a);
    const auto r = classifyOrRefuse(*t, options);
    std::cout << (format == "json" ? report::classifyJson(r) : report::classifyText(r));
    return 0;
}

int runInspect(const Arguments& a)
{
    const std::string format = a.get("format").value_or("table");
    if (format != "table" && format != "json")
        throw UsageError{"--format for inspect is table or json, got '" + format + "'"};
    const auto inspection = roofline::inspectGeneratedSourceFile(a.trace);
    std::cout << (format == "json" ? report::sourceInspectionJson(inspection) : report::sourceInspectionText(inspection));
    return 0;
}

int runMemory(const Arguments& a)
{
    const std::string format = a.get("format").value_or("table");
    if (format != "table" && format != "json")
        throw UsageError{"--format for memory is table or json, got '" + format + "'"};
    // A pickle or a memory timeline goes to its own reader first, so a pickle that is not a snapshot gets
    // the decoder's exact refusal rather than the trace loader's "not a trace".
    if (report::detectMemoryFile(a.trace) != report::MemoryFileKind::Other)
        return cli::runMemoryOnOtherFile(a.trace, format);
    std::unique_ptr<trace::Trace> t;
    try {
        t = load(a);
    } catch (const io::TraceFileError& e) {
        if (e.isMemoryData())
            return cli::runMemoryOnOtherFile(a.trace, format);
        throw;
    }
    if (t->memory.empty())
        throw io::TraceFileError(a.trace, std::nullopt, std::string(memory::kNoMemoryRecordsText));
    const memory::MemoryAnalysis analysis = memory::analyzeMemory(*t);
    const report::MemoryReportOptions options{a.has("events")};
    std::cout << (format == "json" ? report::memoryJson(*t, analysis, options) : report::memoryText(*t, analysis, options));
    return 0;
}

// The text of a command graded against a GPU the user chose says so first, as classify's device line does
// (their JSON has it in the classification).
void printChosenGpu(const roofline::ClassifyReport& classification)
{
    if (!classification.chosenGpu.empty())
        std::cout << "device: " << roofline::deviceText(classification) << "\n\n";
}

int runDiagnose(const Arguments& a)
{
    const std::string format = a.get("format").value_or("table");
    if (format != "table" && format != "json")
        throw UsageError{"--format for diagnose is table or json, got '" + format + "'"};
    const WindowSelection selection = parseWindowSelection(a);
    const roofline::ClassifyOptions classifyOptions = classifyOptionsOf(a);
    const auto t = load(a);
    const std::optional<analysis::Interval> window = resolveWindow(a, *t, selection);
    // The same figures the other commands and the app compute, each once; averages and overlap for the window.
    stats::KeyAveragesOptions averagesOptions;
    if (window)
        averagesOptions.window = std::pair{window->start, window->end};
    const stats::KeyAverages averages = stats::computeKeyAverages(*t, averagesOptions);
    const analysis::OverlapReport overlap = analysis::computeOverlap(*t, window);
    const memory::MemoryAnalysis memory = memory::analyzeMemory(*t);
    const roofline::ClassifyReport classification = classifyOrRefuse(*t, classifyOptions);
    findings::DiagnoseInputs inputs{&averages, &overlap, &memory, &classification, nullptr, window};
    const auto found = findings::diagnose(*t, inputs);
    if (format == "json") {
        std::cout << findings::findingsJson(*t, found);
    } else {
        printChosenGpu(classification);
        std::cout << findings::findingsText(*t, found);
    }
    return 0;
}

int runReport(const Arguments& a)
{
    const auto out = a.get("out");
    if (!out || out->empty())
        throw UsageError{"report needs --out FILE.html or --out FILE.md"};
    if (!answer::reportFormatOf(*out))
        throw UsageError{"--out for report ends in .html or .md (the format goes by the suffix), got '" + *out + "'"};
    // Said before the trace is loaded and its pictures drawn, not as the first picture that cannot be written.
    if (const std::filesystem::path folder = std::filesystem::path(*out).parent_path();
        !folder.empty() && !std::filesystem::is_directory(folder))
        throw UsageError{"--out " + *out + ": the folder " + folder.string() + " does not exist"};
    // As export's database: a report from another run is not replaced by a slip of the shell's history.
    if (std::error_code ec; std::filesystem::is_directory(*out, ec))
        throw io::TraceFileError(*out, std::nullopt, "is a folder; --out names the report's file");
    if (std::error_code ec; !a.has("force") && std::filesystem::exists(*out, ec))
        throw io::TraceFileError(*out, std::nullopt, "already exists; pass --force to replace it");
    const roofline::ClassifyOptions classifyOptions = classifyOptionsOf(a);
    // The app draws first, so its copy of the trace is gone before this one is loaded (one in memory at a
    // time); a trace it cannot load is reported by the load below, not as missing pictures.
    std::string why;
    const std::vector<answer::ReportImage> images = cli::drawReportPictures(a.trace, a.has("partial"), classifyOptions.gpu, why);
    const auto t = load(a);
    // The same figures as diagnose, each once.
    const stats::KeyAverages averages = stats::computeKeyAverages(*t);
    const analysis::OverlapReport overlap = analysis::computeOverlap(*t);
    const memory::MemoryAnalysis memory = memory::analyzeMemory(*t);
    const roofline::ClassifyReport classification = classifyOrRefuse(*t, classifyOptions);
    if (!why.empty())
        std::cerr << "tilescope-cli: report: no pictures (timeline, roofline, memory): " << why << "; the figures are all there\n";
    return cli::writeReport(a.trace, {t.get(), &averages, &overlap, &classification, &memory}, images, *out);
}

int runCompare(const Arguments& a)
{
    const std::string format = a.get("format").value_or("table");
    if (format != "table" && format != "json")
        throw UsageError{"--format for compare is table or json, got '" + format + "'"};
    const roofline::ClassifyOptions classifyOptions = classifyOptionsOf(a);
    const auto t = load(a);
    const roofline::ClassifyReport classification = classifyOrRefuse(*t, classifyOptions);
    compare::Comparison c;
    try {
        c = compare::compareSides(*t, classification, a.get("a").value_or(""), a.get("b").value_or(""));
    } catch (const compare::CompareError& e) {
        throw io::TraceFileError(a.trace, std::nullopt, e.what()); // bad input: exit 2, one line naming the file
    }
    if (format == "json") {
        std::cout << report::compareJson(c);
    } else {
        printChosenGpu(classification);
        std::cout << report::compareText(c);
    }
    return 0;
}

int runDiff(const Arguments& a)
{
    const std::string format = a.get("format").value_or("table");
    if (format != "table" && format != "json" && format != "csv")
        throw UsageError{"--format for diff is table, json or csv, got '" + format + "'"};
    const auto steps = parseStepSelection(a);
    const std::string& beforePath = a.positionals[0];
    const std::string& afterPath = a.positionals[1];
    // Both traces load at once (one per core); an error names its file, before's first when both fail.
    auto afterLoad = std::async(std::launch::async, [&] { return loadQuietly(a, afterPath); });
    std::unique_ptr<trace::Trace> before;
    try {
        before = loadQuietly(a, beforePath);
    } catch (...) {
        afterLoad.wait();
        throw;
    }
    const std::unique_ptr<trace::Trace> after = afterLoad.get();
    printLoadWarnings(beforePath, *before);
    printLoadWarnings(afterPath, *after);
    // --step N / --steps A-B: the same steps (by number) of each trace.
    std::optional<analysis::Interval> beforeWindow, afterWindow;
    if (steps) {
        beforeWindow = stepSelectionWindow(beforePath, *before, *steps);
        afterWindow = stepSelectionWindow(afterPath, *after, *steps);
    }
    const auto averagesOf = [&](const trace::Trace& t, const std::optional<analysis::Interval>& window) {
        stats::KeyAveragesOptions options = stats::KeyAveragesOptions::byInputShape(a.has("by-shape"));
        if (window)
            options.window = std::pair{window->start, window->end};
        return stats::computeKeyAverages(t, options);
    };
    const stats::KeyAveragesDiff diff = stats::diffKeyAverages(averagesOf(*before, beforeWindow), averagesOf(*after, afterWindow));
    if (format == "json") {
        const analysis::OverlapReport beforeOverlap = analysis::computeOverlap(*before, beforeWindow);
        const analysis::OverlapReport afterOverlap = analysis::computeOverlap(*after, afterWindow);
        std::cout << report::diffJson({beforePath, before.get(), &beforeOverlap}, {afterPath, after.get(), &afterOverlap}, diff);
    } else if (format == "csv") {
        std::vector<size_t> rows(diff.rows.size());
        std::iota(rows.begin(), rows.end(), size_t(0));
        std::cout << report::diffCsv(diff, rows);
    } else {
        // Names cut as summary cuts them (80 columns unless --max-name-width): long kernel names differ at the end.
        const int nameWidth = a.get("max-name-width") ? parseInt(*a.get("max-name-width"), "max-name-width") : 80;
        std::cout << report::diffText({beforePath, before.get(), nullptr}, {afterPath, after.get(), nullptr}, diff, nameWidth);
    }
    return 0;
}

std::string unknownCommand(std::string_view command) { return "unknown command '" + std::string(command) + "'"; }

// A mistake in the command line, with the usage of the command where it is one tilescope-cli knows.
int reportUsageError(std::string_view command, const std::string& message)
{
    return cli::printUsageError(usageOf(command) ? command : std::string_view(), message);
}

} // namespace

int main(int argc, char** argv)
{
    std::ios::sync_with_stdio(false);
    const std::string_view first = argc < 2 ? std::string_view() : std::string_view(argv[1]);
    if (argc < 2 || first == "--help" || first == "-h" || first == "help") {
        // "help COMMAND" gives that command's usage.
        if (argc >= 3 && first == "help") {
            if (!usageOf(argv[2]))
                return reportUsageError({}, unknownCommand(argv[2]));
            std::cout << "usage:\n" << usageOf(argv[2]);
            return 0;
        }
        if (argc < 2) { // a mistake, as with any missing argument: the usage goes where errors go
            std::cerr << fullUsage();
            return cli::kExitBadInput;
        }
        std::cout << fullUsage();
        return 0;
    }
    if (first == "--version") {
        std::cout << "tilescope-cli " << kVersion << " (commit " << kCommit << ")\n";
        return 0;
    }
    if (usageOf(first) && asksForHelp(argc, argv)) {
        std::cout << "usage:\n" << usageOf(first);
        return 0;
    }
    const std::string command = argv[1];
    const auto dispatch = [&]() -> int {
        if (command == "capture")
            return cli::runCaptureCommand(argc, argv);
        if (command == "calibrate")
            return cli::runCalibrateCommand(argc, argv);
        if (command == "info")
            return runInfo(parseArguments(argc, argv, {"partial"}, {"format"}));
        if (command == "summary")
            return runSummary(parseArguments(argc, argv, {"partial", "group-by-input-shape", "top-level-only", "legacy-memory-units"},
                                             {"format", "sort", "row-limit", "max-name-width", "time-unit"}));
        if (command == "classify")
            return runClassify(
                parseArguments(argc, argv, {"partial", "allow-tf32"}, {"annotations", "ceilings", "format", "source", "gpu"}));
        if (command == "inspect")
            return runInspect(parseArguments(argc, argv, {}, {"format"}));
        if (command == "device")
            return runDevice(parseArguments(argc, argv, {"partial"}, {"ceilings", "devices", "gpu"}));
        if (command == "memory")
            return runMemory(parseArguments(argc, argv, {"partial", "events"}, {"format"}));
        if (command == "diagnose")
            return runDiagnose(parseArguments(argc, argv, {"partial"}, {"format", "window", "step", "steps", "gpu", "annotations"}));
        if (command == "compare")
            return runCompare(parseArguments(argc, argv, {"partial"}, {"a", "b", "format", "gpu", "annotations"}));
        if (command == "diff")
            return runDiff(parseArguments(argc, argv, {"partial", "by-shape"}, {"format", "step", "steps", "max-name-width"}, 2));
        if (command == "report")
            return runReport(parseArguments(argc, argv, {"partial", "force"}, {"out", "gpu"}));
        if (command == "overlap")
            return runOverlap(parseArguments(argc, argv, {"partial", "all-devices"}, {"format", "window", "step", "steps"}));
        if (command == "breakdown")
            return runBreakdown(parseArguments(argc, argv, {"partial"}, {"format", "window", "step", "steps"}));
        if (command == "idle")
            return runIdle(parseArguments(argc, argv, {"partial"}, {"format", "window", "step", "steps", "kernel-wait-threshold"}));
        if (command == "queue")
            return runQueue(parseArguments(argc, argv, {"partial", "series"}, {"format", "window", "step", "steps", "limit"}));
        if (command == "launches")
            return runLaunches(parseArguments(argc, argv, {"partial"}, {"format", "outliers", "window", "step", "steps"}));
        if (command == "sequences")
            return runSequences(
                parseArguments(argc, argv, {"partial"}, {"format", "top", "min-length", "max-length", "window", "step", "steps"}));
        if (command == "steps")
            return runSteps(parseArguments(argc, argv, {"partial"}, {"format"}));
        throw UsageError{unknownCommand(command)};
    };
    try {
        if (command == "ranks") {
            const Arguments a = parseArguments(argc, argv, {"partial"}, {"format"}, kOneOrMore);
            try {
                return cli::runRanksCommand(a.positionals, a.get("format").value_or("table"), a.has("partial"));
            } catch (const std::invalid_argument& e) {
                throw UsageError{e.what()};
            }
        }
        if (command == "export") {
            const Arguments a = parseArguments(argc, argv, {"partial", "force"}, {"sqlite"}, kOneOrMore);
#if defined(TILESCOPE_HAVE_SQLITE)
            try {
                return cli::runExportCommand(a.positionals, a.get("sqlite").value_or(""), a.has("force"), a.has("partial"),
                                             [](const std::string& trace) {
                                                 roofline::ClassifyOptions options; // as diagnose: the annotations beside the trace
                                                 if (const std::string annotations = annotationsBeside(trace); !annotations.empty())
                                                     options.annotations = roofline::loadAnnotations(annotations);
                                                 return options;
                                             });
            } catch (const std::invalid_argument& e) {
                throw UsageError{e.what()};
            }
#else
            throw UsageError{"export is not in this build: tilescope-cli was built without SQLite (install libsqlite3-dev and rebuild)"};
#endif
        }
        // report and diff read one trace per file: a folder of ranks in either of diff's places gets the ways to
        // it, not "a directory".
        if (command == "report" || command == "diff")
            for (int i = 2; i < std::min(argc, command == "diff" ? 4 : 3); ++i)
                if (trace::isFolder(argv[i]))
                    throw io::TraceFileError(argv[i], std::nullopt,
                                             "is a folder; " + command
                                                 + (command == "report" ? " takes one trace file" : " takes two trace files")
                                                 + " (a rank's, such as one in the folder); `tilescope-cli ranks " + argv[i]
                                                 + "` compares its ranks, and summary, diagnose and the other commands run once per rank");
        // A folder in TRACE's place: the command once per rank (rankscommand.h); not for those that take no
        // single trace (report and diff are refused above).
        if (cli::tracePathIsFolder(argc, argv) && command != "capture" && command != "calibrate" && command != "inspect") {
            // A --gpu no row fits is wrong for every rank: said once, before the folder is loaded.
            for (int i = 2; i + 1 < argc; ++i)
                if (std::string_view(argv[i]) == "--gpu")
                    checkGpuName(roofline::builtinDeviceDatabase(), argv[i + 1]);
            return cli::runPerRank(argc, argv, asksForPartial(argc, argv), dispatch);
        }
        return dispatch();
    } catch (const UsageError& e) {
        return reportUsageError(command, e.message);
    } catch (const io::TraceFileError& e) {
        cli::printInputError(e);
        return cli::kExitBadInput;
    } catch (const std::bad_alloc&) {
        std::cerr << "tilescope-cli: error: out of memory\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "tilescope-cli: internal error: " << e.what() << "\n";
        return 1;
    }
}
