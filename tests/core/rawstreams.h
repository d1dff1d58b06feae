// SPDX-License-Identifier: MIT
#pragma once
// The GPU activities of a trace file per stream and the launches by correlation, read straight from the raw JSON
// events with nlohmann (no TileScope loader): the independent side of tst_streamidle and tst_queuelength.

#include "io/bytesource.h"
#include "io/smalljson.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rawstreams {

using Json = nlohmann::json; // not ordered: faster on the 35 MB fixture

// A `ts` or `dur` in µs as exact ns: from its text when quoteTimes kept it (a double holds 1712195495519689.047
// only to 0.25 µs), else from the number (whole µs, or small values).
inline int64_t ns(const Json& us)
{
    if (!us.is_string())
        return std::llround(static_cast<long double>(us.get<double>()) * 1000.0L);
    const std::string text = us.get<std::string>();
    const bool negative = text.starts_with('-');
    const size_t dot = text.find('.');
    const std::string whole = text.substr(negative ? 1 : 0, dot == std::string::npos ? std::string::npos : dot - (negative ? 1 : 0));
    std::string fraction = dot == std::string::npos ? "" : text.substr(dot + 1);
    const bool roundUp = fraction.size() > 3 && fraction[3] >= '5';
    fraction = (fraction + "000").substr(0, 3);
    const int64_t value = std::stoll(whole.empty() ? "0" : whole) * 1000 + std::stoll(fraction) + (roundUp ? 1 : 0);
    return negative ? -value : value;
}

// The JSON text with every "ts" and "dur" number turned into a string of its digits, so ns() reads it exactly.
inline std::string quoteTimes(const std::string& text)
{
    std::string out;
    out.reserve(text.size() + text.size() / 16);
    size_t i = 0, ts = text.find("\"ts\""), dur = text.find("\"dur\"");
    while (i < text.size()) {
        if (ts != std::string::npos && ts < i) // search again only past the last hit: linear in the text
            ts = text.find("\"ts\"", i);
        if (dur != std::string::npos && dur < i)
            dur = text.find("\"dur\"", i);
        const size_t key = std::min(ts, dur);
        if (key == std::string::npos) {
            out.append(text, i, std::string::npos);
            break;
        }
        size_t j = key + (key == ts ? 4 : 5);
        while (j < text.size() && (text[j] == ' ' || text[j] == ':'))
            ++j;
        size_t end = j;
        while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.' || text[end] == '-'))
            ++end;
        out.append(text, i, j - i);
        if (end > j)
            out += '"' + text.substr(j, end - j) + '"';
        i = end;
    }
    return out;
}

struct Activity
{
    int64_t start, end;
    std::optional<int64_t> correlation;
};

struct Launch
{
    int64_t start, end;
};

struct RawTrace
{
    std::map<std::pair<int, int64_t>, std::vector<Activity>> streams; // (device, stream) -> activities, by start
    std::unordered_map<int64_t, Launch> launches;                     // runtime/driver events by correlation, the first one
};

// The file's activities and launches; each file is read once per test run.
inline const RawTrace& read(const std::string& path)
{
    static std::map<std::string, RawTrace> cache;
    if (const auto it = cache.find(path); it != cache.end())
        return it->second;
    RawTrace& out = cache[path];
    std::string text;
    const auto source = tilescope::io::openTraceFile(path);
    char buffer[1 << 16];
    for (size_t n; (n = source->read(buffer, sizeof buffer)) > 0;)
        text.append(buffer, n);
    const Json doc = Json::parse(quoteTimes(text));
    for (const Json& e : doc["traceEvents"]) {
        const std::string cat = e.value("cat", "");
        if (e.value("ph", "") != "X" || !e.contains("dur"))
            continue;
        const Json args = e.value("args", Json::object());
        const std::optional<int64_t> correlation = args.contains("correlation") ? std::optional(args["correlation"].get<int64_t>())
                                                                                : std::nullopt;
        if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime") { // "Runtime", "Kernel"...: PyTorch 1.8
            if (correlation)
                out.launches.emplace(*correlation, Launch{ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])});
        } else if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "Kernel" || cat == "Memcpy" || cat == "Memset") {
            const int device = args.contains("device") ? args["device"].get<int>() : e["pid"].get<int>();
            const int64_t stream = args.contains("stream") ? args["stream"].get<int64_t>() : e["tid"].get<int64_t>();
            out.streams[{device, stream}].push_back({ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), correlation});
        }
    }
    for (auto& [key, list] : out.streams)
        std::stable_sort(list.begin(), list.end(), [](const Activity& a, const Activity& b) { return a.start < b.start; });
    return out;
}

} // namespace rawstreams
