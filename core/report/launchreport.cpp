// SPDX-License-Identifier: MIT
#include "report/launchreport.h"

#include "io/codepoints.h"
#include "io/smalljson.h"
#include "report/texttable.h"
#include "stats/timetext.h"
#include "trace/namefit.h"
#include "trace/trace.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace tilescope::report {

namespace {

io::Json distributionJson(const stats::Distribution& d)
{
    io::Json out = io::Json::object();
    out["count"] = d.count;
    out["min_us"] = io::jsonMicroseconds(d.min);
    out["p50_us"] = io::jsonMicroseconds(d.p50);
    out["p90_us"] = io::jsonMicroseconds(d.p90);
    out["p99_us"] = io::jsonMicroseconds(d.p99);
    out["max_us"] = io::jsonMicroseconds(d.max);
    out["mean_us"] = io::jsonNumber(d.mean / 1000.0);
    return out;
}

io::Json streamJson(int device, std::optional<int64_t> stream, uint64_t count, const stats::Distribution& cpu,
                    const stats::Distribution& gpu, const stats::Distribution& delay)
{
    io::Json out = io::Json::object();
    out["device"] = device >= 0 ? io::Json(device) : io::Json(nullptr);
    out["stream"] = stream ? io::Json(*stream) : io::Json(nullptr);
    out["launches"] = count;
    out["cpu_duration"] = distributionJson(cpu);
    out["gpu_duration"] = distributionJson(gpu);
    out["launch_delay"] = distributionJson(delay);
    return out;
}

io::Json outliersJson(const trace::Trace& t, const analysis::LaunchStats& s, const std::vector<uint32_t>& which, const std::string& rule,
                      size_t limit)
{
    io::Json list = io::Json::array();
    for (size_t k = 0; k < which.size() && k < limit; ++k) {
        const analysis::LaunchRecord& l = s.launches[which[k]];
        const analysis::StreamLaunchStats& stream = s.streams[l.stream];
        io::Json o = io::Json::object();
        o["launch_event"] = l.launch;
        o["activity_event"] = l.activity;
        o["launch_name"] = std::string(t.name(t.events[l.launch]));
        o["kernel_name"] = std::string(t.name(t.events[l.activity]));
        o["device"] = stream.device >= 0 ? io::Json(stream.device) : io::Json(nullptr);
        o["stream"] = stream.stream ? io::Json(*stream.stream) : io::Json(nullptr);
        o["launch_start_us"] = io::jsonMicroseconds(t.events[l.launch].start);
        o["kernel_start_us"] = io::jsonMicroseconds(t.events[l.activity].start);
        o["cpu_duration_us"] = io::jsonMicroseconds(l.cpuNs);
        o["gpu_duration_us"] = io::jsonMicroseconds(l.gpuNs);
        o["launch_delay_us"] = io::jsonMicroseconds(l.delayNs);
        list.push_back(std::move(o));
    }
    io::Json out = io::Json::object();
    out["rule"] = rule;
    out["count"] = which.size();
    out["outliers"] = std::move(list);
    return out;
}

std::string streamLabel(int device, std::optional<int64_t> stream)
{
    std::string label = device >= 0 ? "GPU " + std::to_string(device) : std::string("GPU ?");
    return label + (stream ? " stream " + std::to_string(*stream) : std::string());
}

constexpr double kKernelColumnWidth = 60; // characters

} // namespace

std::string launchStatsJson(const trace::Trace& t, const analysis::LaunchStats& s, size_t outliers)
{
    io::Json out = io::Json::object();
    out["window_start_us"] = io::jsonMicroseconds(s.window.start);
    out["window_end_us"] = io::jsonMicroseconds(s.window.end);
    out["launches"] = s.launches.size();
    io::Json apis = io::Json::object();
    for (const auto& [name, count] : s.apis)
        apis[name] = count;
    out["apis"] = std::move(apis);
    io::Json definitions = io::Json::object();
    definitions["launch"] = "a CUDA runtime or driver API call linked by correlation id to GPU activities (kernel, memcpy, memset)";
    definitions["cpu_duration"] = "the call's duration";
    definitions["gpu_duration"] = "the sum of its activities' durations";
    definitions["launch_delay"] = "first activity start - call start";
    definitions["percentiles"] = "nearest rank: the smallest value with at least p% of the values at or below it";
    out["definitions"] = std::move(definitions);
    out["all"] = streamJson(-1, std::nullopt, s.launches.size(), s.cpu, s.gpu, s.delay);
    io::Json streams = io::Json::array();
    for (const analysis::StreamLaunchStats& st : s.streams)
        streams.push_back(streamJson(st.device, st.stream, st.cpu.count, st.cpu, st.gpu, st.delay));
    out["streams"] = std::move(streams);
    out["short_kernels"] = outliersJson(t, s, s.shortKernels, analysis::shortKernelRuleText(), outliers);
    out["long_delays"] = outliersJson(t, s, s.longDelays, analysis::longDelayRuleText(), outliers);
    return io::dumpJson(out) + "\n";
}

std::string launchStatsText(const trace::Trace& t, const analysis::LaunchStats& s, size_t outliers)
{
    std::string out = "window: ts " + stats::formatMicroseconds(s.window.start) + " .. " + stats::formatMicroseconds(s.window.end)
        + " us\n";
    if (s.launches.empty())
        return out + "no launches (no CUDA runtime or driver call linked to a kernel, memcpy or memset)\n";
    out += std::to_string(s.launches.size()) + " launches:";
    for (const auto& [name, count] : s.apis)
        out += " " + name + " " + std::to_string(count) + ",";
    out.back() = '\n';
    out += "CPU = call duration, GPU = its activities' duration, delay = first activity start - call start\n";

    std::vector<std::array<std::string, 9>> rows{{"stream", "", "launches", "min", "p50", "p90", "p99", "max", "mean"}};
    auto add = [&](const std::string& label, const stats::Distribution& cpu, const stats::Distribution& gpu,
                   const stats::Distribution& delay) {
        const std::array<std::pair<const char*, const stats::Distribution*>, 3> parts{{{"CPU", &cpu}, {"GPU", &gpu}, {"delay", &delay}}};
        for (size_t k = 0; k < parts.size(); ++k) {
            const stats::Distribution& d = *parts[k].second;
            rows.push_back({k == 0 ? label : std::string(), parts[k].first, k == 0 ? std::to_string(d.count) : std::string(),
                            stats::formatDuration(d.min), stats::formatDuration(d.p50), stats::formatDuration(d.p90),
                            stats::formatDuration(d.p99), stats::formatDuration(d.max),
                            stats::formatDuration(static_cast<int64_t>(std::llround(d.mean)))});
        }
    };
    for (const analysis::StreamLaunchStats& st : s.streams)
        add(streamLabel(st.device, st.stream), st.cpu, st.gpu, st.delay);
    if (s.streams.size() > 1)
        add("all streams", s.cpu, s.gpu, s.delay);
    out += renderTable(rows);

    auto listOutliers = [&](const char* title, const std::vector<uint32_t>& which, const std::string& rule) {
        out += "\n" + std::string(title) + ": " + std::to_string(which.size()) + " (" + rule + ")\n";
        if (which.empty() || outliers == 0)
            return;
        std::vector<std::array<std::string, 7>> list{{"launch", "at (us)", "CPU", "GPU", "delay", "stream", "kernel"}};
        std::vector<std::string> kernels;
        for (size_t k = 0; k < which.size() && k < outliers; ++k)
            kernels.emplace_back(t.name(t.events[s.launches[which[k]].activity]));
        kernels = trace::fitNamesApart(kernels, kKernelColumnWidth, trace::CharacterRuler()); // different kernels read apart
        for (size_t k = 0; k < which.size() && k < outliers; ++k) {
            const analysis::LaunchRecord& l = s.launches[which[k]];
            const analysis::StreamLaunchStats& st = s.streams[l.stream];
            list.push_back({std::string(t.name(t.events[l.launch])), stats::formatMicroseconds(t.events[l.launch].start),
                            stats::formatDuration(l.cpuNs), stats::formatDuration(l.gpuNs), stats::formatDuration(l.delayNs),
                            streamLabel(st.device, st.stream), std::move(kernels[k])});
        }
        out += renderTable(list);
        if (which.size() > outliers)
            out += "  ... " + std::to_string(which.size() - outliers) + " more (--outliers N)\n";
    };
    listOutliers("kernels much shorter than their launch", s.shortKernels, analysis::shortKernelRuleText());
    listOutliers("long launch delays", s.longDelays, analysis::longDelayRuleText());
    return out;
}

} // namespace tilescope::report
