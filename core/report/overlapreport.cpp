// SPDX-License-Identifier: MIT
#include "report/overlapreport.h"

#include "io/decimal.h"
#include "report/jsonwriter.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"
#include "trace/trace.h"

namespace tilescope::report {

namespace {

double us(int64_t ns) { return static_cast<double>(ns) / 1000.0; }
std::string share(int64_t part, int64_t whole) { return whole > 0 ? stats::formatFixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) + "%" : "-"; }

bool listed(const analysis::DeviceBusy& d, const OverlapReportOptions& options) { return d.hasActivity || options.allDevices; }

std::string threadLabel(const trace::Trace& t, const analysis::ThreadBusy& th)
{
    const auto& track = t.tracks[th.track];
    return track.name ? std::string(t.strings.view(track.name)) : "thread " + std::string(t.strings.view(track.tidText));
}

std::string plural(uint64_t n, const char* one, const char* many) { return stats::formatCount(n) + " " + (n == 1 ? one : many); }

} // namespace

std::string launchCostText(const analysis::LaunchCost& launches)
{
    if (launches.count == 0)
        return "no kernel launches";
    return std::string(launches.launchBound() ? "launch-bound: " : "") + stats::formatCount(launches.costlyLaunches) + " of "
        + stats::formatCount(launches.count) + " launches cost at least 80% of their kernel's time";
}

std::string overlapJson(const trace::Trace& t, const analysis::OverlapReport& r, const OverlapReportOptions& options)
{
    JsonWriter w;
    w.beginObject();
    w.key("window_start_us").raw(io::formatNanosecondsAsMicroseconds(r.window.start));
    w.key("window_end_us").raw(io::formatNanosecondsAsMicroseconds(r.window.end));
    w.key("window_us").value(us(r.window.end - r.window.start));
    w.key("window_given").value(options.windowGiven);
    w.key("gpu_devices").value(r.activeDevices());
    w.key("devices").beginArray();
    for (const auto& d : r.devices) {
        if (!listed(d, options))
            continue;
        w.beginObject();
        w.key("device").value(d.device);
        w.key("busy_us").value(us(d.busyNs));
        w.key("idle_us").value(us(d.idleNs));
        w.key("utilization").value(d.utilization);
        w.key("kernels").value(d.kernels);
        w.key("memcpys").value(d.memcpys);
        w.key("memsets").value(d.memsets);
        w.endObject();
    }
    w.endArray();
    w.key("cpu_busy_us").value(us(r.cpuBusyNs));
    w.key("cpu_threads").beginArray();
    for (const auto& th : r.threads) {
        w.beginObject();
        w.key("thread").value(threadLabel(t, th));
        w.key("tid").value(t.strings.view(t.tracks[th.track].tidText));
        w.key("busy_us").value(us(th.busyNs));
        w.endObject();
    }
    w.endArray();
    w.key("cpu_gpu_overlap_us").value(us(r.overlapNs));
    w.key("gpu_idle_while_cpu_busy_us").value(us(r.gpuIdleWhileCpuBusyNs));
    w.key("both_idle_us").value(us(r.bothIdleNs));
    w.key("launches").beginObject();
    w.key("count").value(r.launches.count);
    w.key("cpu_us").value(us(r.launches.cpuNs));
    w.key("kernel_us").value(us(r.launches.kernelNs));
    w.key("costly").value(r.launches.costlyLaunches);
    w.key("launch_bound").value(r.launches.launchBound());
    w.endObject();
    w.endObject();
    return w.text() + "\n";
}

std::string overlapText(const trace::Trace& t, const analysis::OverlapReport& r, const OverlapReportOptions& options)
{
    const int64_t window = r.window.end - r.window.start;
    std::string out = "window: " + stats::formatDuration(window) + " ("
        + (options.windowGiven ? "given: ts " + io::formatNanosecondsAsMicroseconds(r.window.start) + " .. "
                   + io::formatNanosecondsAsMicroseconds(r.window.end) + " us"
                               : std::string("first to last CPU work or GPU activity"))
        + ")\n";
    const bool gpu = r.activeDevices() > 0;
    if (!gpu)
        out += "GPU: no GPU activity in the trace (no kernels, memcpys or memsets): a CPU-only run\n";
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
        out += "GPU idle while CPU works: " + stats::formatDuration(r.gpuIdleWhileCpuBusyNs) + " (" + share(r.gpuIdleWhileCpuBusyNs, window) + ")\n";
        out += "both idle: " + stats::formatDuration(r.bothIdleNs) + " (" + share(r.bothIdleNs, window) + ")\n";
    } else {
        out += "CPU idle: " + stats::formatDuration(r.bothIdleNs) + " (" + share(r.bothIdleNs, window) + ")\n";
    }
    out += "launches: " + launchCostText(r.launches);
    if (r.launches.count > 0)
        out += " (in all: CPU " + stats::formatDuration(r.launches.cpuNs) + " in launch calls, " + stats::formatDuration(r.launches.kernelNs) + " of kernels)";
    out += "\n";
    return out;
}

} // namespace tilescope::report
