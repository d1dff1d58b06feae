// SPDX-License-Identifier: MIT
#include "report/overlapreport.h"

#include "report/jsonwriter.h"
#include "stats/torchtable.h"
#include "trace/trace.h"

namespace tilescope::report {

namespace {
double us(int64_t ns) { return static_cast<double>(ns) / 1000.0; }
std::string time(int64_t ns) { return stats::formatTorchTime(us(ns)); }
std::string share(int64_t part, int64_t whole) { return whole > 0 ? stats::formatFixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) + "%" : "-"; }
} // namespace

std::string overlapJson(const analysis::OverlapReport& r)
{
    JsonWriter w;
    w.beginObject();
    w.key("window_us").value(us(r.window.end - r.window.start));
    w.key("devices").beginArray();
    for (const auto& d : r.devices) {
        w.beginObject();
        w.key("device").value(d.device);
        w.key("busy_us").value(us(d.busyNs));
        w.key("idle_us").value(us(d.idleNs));
        w.key("utilization").value(d.utilization);
        w.key("kernels").value(d.kernels);
        w.endObject();
    }
    w.endArray();
    w.key("cpu_busy_us").value(us(r.cpuBusyNs));
    w.key("cpu_gpu_overlap_us").value(us(r.overlapNs));
    w.key("launches").beginObject();
    w.key("count").value(r.launches.count);
    w.key("cpu_us").value(us(r.launches.cpuNs));
    w.key("kernel_us").value(us(r.launches.kernelNs));
    w.endObject();
    w.endObject();
    return w.text() + "\n";
}

std::string overlapText(const trace::Trace& t, const analysis::OverlapReport& r)
{
    const int64_t window = r.window.end - r.window.start;
    std::string out = "window: " + time(window) + " (first to last CPU op, CUDA API call or GPU activity)\n";
    for (const auto& d : r.devices)
        out += "GPU " + std::to_string(d.device) + ": busy " + time(d.busyNs) + " (" + share(d.busyNs, window) + "), idle "
            + time(d.idleNs) + ", " + std::to_string(d.kernels) + " kernels\n";
    out += "CPU busy (ops and CUDA API calls, all threads): " + time(r.cpuBusyNs) + " (" + share(r.cpuBusyNs, window) + ")\n";
    for (const auto& th : r.threads) {
        const auto& track = t.tracks[th.track];
        out += "  " + (track.name ? std::string(t.strings.view(track.name)) : "thread " + std::string(t.strings.view(track.tidText)));
        out += ": " + time(th.busyNs) + "\n";
    }
    out += "CPU and GPU both busy: " + time(r.overlapNs) + " (" + share(r.overlapNs, window) + ")\n";
    out += "GPU idle while CPU works: " + time(r.gpuIdleWhileCpuBusyNs) + " (" + share(r.gpuIdleWhileCpuBusyNs, window) + ")\n";
    out += "both idle: " + time(r.bothIdleNs) + " (" + share(r.bothIdleNs, window) + ")\n";
    out += "launches: " + std::to_string(r.launches.count) + " calls, CPU " + time(r.launches.cpuNs) + " against kernels' GPU "
        + time(r.launches.kernelNs) + "; " + std::to_string(r.launches.costlyLaunches) + " launches cost at least 80% of their kernels' time\n";
    if (r.launches.launchBound())
        out += "flag: launch-bound: most launches cost the CPU about as long as their kernels run, so the GPU waits on the CPU\n";
    return out;
}

} // namespace tilescope::report
