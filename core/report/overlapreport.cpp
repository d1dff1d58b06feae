// SPDX-License-Identifier: MIT
#include "report/overlapreport.h"

#include "io/decimal.h"
#include "io/smalljson.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"
#include "trace/trace.h"

namespace tilescope::report {

namespace {

double us(int64_t ns) { return static_cast<double>(ns) / 1000.0; }
// A timestamp in us: whole microseconds as an integer, else the double nearest ns / 1000 (one rounding).
std::string share(int64_t part, int64_t whole)
{
    return whole > 0 ? stats::formatFixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) + "%" : "-";
}

bool listed(const analysis::DeviceBusy& d, const OverlapReportOptions& options) { return d.hasActivity || options.allDevices; }

std::string threadLabel(const trace::Trace& t, const analysis::ThreadBusy& th)
{
    const auto& track = t.tracks[th.track];
    return track.name ? std::string(t.strings.view(track.name)) : "thread " + std::string(t.strings.view(track.tidText));
}

std::string plural(uint64_t n, const char* one, const char* many) { return stats::formatCount(n) + " " + (n == 1 ? one : many); }

} // namespace

std::string launchCostText(const analysis::OverlapReport& report)
{
    const analysis::LaunchCost& launches = report.launches;
    if (launches.count == 0)
        return "no kernel launches";
    const bool bound = report.launchBound();
    std::string text = std::string(bound ? "launch-bound: " : "") + stats::formatCount(launches.costlyLaunches) + " of "
        + stats::formatCount(launches.count) + " kernel launches cost at least 80% of their kernel's time";
    if (launches.mostlyCostly() && !bound)
        text += ", but the GPU was idle while the CPU worked for only " + stats::formatFixed(100.0 * report.gpuWaitShare(), 1)
            + "% of the window: they did not starve it";
    return text;
}

std::string overlapJson(const trace::Trace& t, const analysis::OverlapReport& r, const OverlapReportOptions& options)
{
    return io::dumpJson(overlapJsonObject(t, r, options)) + "\n";
}

io::Json overlapJsonObject(const trace::Trace& t, const analysis::OverlapReport& r, const OverlapReportOptions& options)
{
    io::Json j;
    j["window_start_us"] = io::jsonMicroseconds(r.window.start);
    j["window_end_us"] = io::jsonMicroseconds(r.window.end);
    j["window_us"] = io::jsonNumber(us(r.window.end - r.window.start));
    j["window_given"] = options.windowGiven;
    j["gpu_devices"] = r.activeDevices();
    io::Json& devices = j["devices"] = io::Json::array();
    for (const auto& d : r.devices) {
        if (!listed(d, options))
            continue;
        devices.push_back({{"device", d.device},
                           {"busy_us", io::jsonNumber(us(d.busyNs))},
                           {"idle_us", io::jsonNumber(us(d.idleNs))},
                           {"utilization", io::jsonNumber(d.utilization)},
                           {"kernels", d.kernels},
                           {"memcpys", d.memcpys},
                           {"memsets", d.memsets}});
    }
    j["cpu_busy_us"] = io::jsonNumber(us(r.cpuBusyNs));
    io::Json& threads = j["cpu_threads"] = io::Json::array();
    for (const auto& th : r.threads)
        threads.push_back({{"thread", threadLabel(t, th)},
                           {"tid", std::string(t.strings.view(t.tracks[th.track].tidText))},
                           {"busy_us", io::jsonNumber(us(th.busyNs))}});
    j["cpu_gpu_overlap_us"] = io::jsonNumber(us(r.overlapNs));
    j["gpu_idle_while_cpu_busy_us"] = io::jsonNumber(us(r.gpuIdleWhileCpuBusyNs));
    j["both_idle_us"] = io::jsonNumber(us(r.bothIdleNs));
    j["launches"] = {{"count", r.launches.count},
                     {"cpu_us", io::jsonNumber(us(r.launches.cpuNs))},
                     {"kernel_us", io::jsonNumber(us(r.launches.kernelNs))},
                     {"costly", r.launches.costlyLaunches},
                     {"launch_bound", r.launchBound()}};
    return j;
}

std::string mostlyUnrecordedText(const trace::Trace& t, const analysis::Interval& window)
{
    const int64_t span = t.lastTime() - t.firstTime();
    if (span <= 2 * (window.end - window.start))
        return {};
    return "the trace spans " + stats::formatDuration(span) + ", most of it with no op, CUDA call or kernel recorded";
}

std::string overlapText(const trace::Trace& t, const analysis::OverlapReport& r, const OverlapReportOptions& options)
{
    const int64_t window = r.window.end - r.window.start;
    std::string out = "window: " + stats::formatDuration(window) + " ("
        + (options.windowGiven ? "given: ts " + io::formatNanosecondsAsMicroseconds(r.window.start) + " .. "
                   + io::formatNanosecondsAsMicroseconds(r.window.end) + " us"
                               : std::string("first to last CPU work or GPU activity"));
    // The window leaves out time with nothing recorded in it; where that is most of the trace (a JIT compile or
    // Python code before the first op), say so rather than let the figures stand for the whole run.
    out += ")\n";
    if (const std::string unrecorded = mostlyUnrecordedText(t, r.window); !options.windowGiven && !unrecorded.empty())
        out += "  " + unrecorded + ": see steps and diagnose, or give --window\n";
    const bool gpu = r.activeDevices() > 0;
    if (!gpu) { // a CPU-only run, one whose GPU events are missing, or a CUPTI range profiler's
        const std::string ranges = trace::profilerRangeText(t);
        out += ranges.empty() ? "GPU: no GPU activity in the trace (no kernels, memcpys or memsets)\n"
                              : "GPU: no timed GPU activity in the trace: " + ranges + "\n";
    }
    uint64_t hidden = 0;
    for (const auto& d : r.devices) {
        if (!listed(d, options)) {
            ++hidden;
            continue;
        }
        out += "GPU " + std::to_string(d.device) + ": busy " + stats::formatDuration(d.busyNs) + " (" + share(d.busyNs, window) + "), idle "
            + stats::formatDuration(d.idleNs) + "; started in the window: " + plural(d.kernels, "kernel", "kernels") + ", "
            + plural(d.memcpys, "memcpy", "memcpys") + ", " + plural(d.memsets, "memset", "memsets") + "\n";
    }
    if (hidden > 0 && gpu)
        out += "(" + plural(hidden, "device", "devices") + " with no GPU activity left out; --all-devices lists them)\n";
    out += "CPU busy (ops, CUDA API calls and annotations with no op inside, all threads): " + stats::formatDuration(r.cpuBusyNs) + " ("
        + share(r.cpuBusyNs, window) + ")\n";
    for (const auto& th : r.threads)
        out += "  " + threadLabel(t, th) + ": " + stats::formatDuration(th.busyNs) + "\n";
    if (gpu) {
        out += "CPU and GPU both busy: " + stats::formatDuration(r.overlapNs) + " (" + share(r.overlapNs, window) + ")\n";
        out += "GPU idle while CPU works: " + stats::formatDuration(r.gpuIdleWhileCpuBusyNs) + " (" + share(r.gpuIdleWhileCpuBusyNs, window)
            + ")\n";
        out += "both idle: " + stats::formatDuration(r.bothIdleNs) + " (" + share(r.bothIdleNs, window) + ")\n";
    } else {
        out += "CPU idle: " + stats::formatDuration(r.bothIdleNs) + " (" + share(r.bothIdleNs, window) + ")\n";
    }
    out += "launches: " + launchCostText(r);
    if (r.launches.count > 0)
        out += " (in all: CPU " + stats::formatDuration(r.launches.cpuNs) + " in launch calls, "
            + stats::formatDuration(r.launches.kernelNs) + " of kernels)";
    out += "\n";
    return out;
}

} // namespace tilescope::report
