// SPDX-License-Identifier: MIT
#pragma once
// The GPU activities of a trace file per stream and the launches by correlation, read straight from the raw JSON
// events with nlohmann (no TileScope loader): the independent side of tst_streamidle and tst_queuelength.

#include "io/smalljson.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rawstreams {

using tilescope::io::Json;

// A file `ts` in µs (at most three decimals) as exact ns.
inline int64_t ns(const Json& us) { return std::llround(static_cast<long double>(us.get<double>()) * 1000.0L); }

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

inline RawTrace read(const std::string& path)
{
    RawTrace out;
    const Json doc = tilescope::io::readSmallJsonFile(path);
    for (const Json& e : doc["traceEvents"]) {
        const std::string cat = e.value("cat", "");
        if (e.value("ph", "") != "X" || !e.contains("dur"))
            continue;
        const Json args = e.value("args", Json::object());
        const std::optional<int64_t> correlation = args.contains("correlation") ? std::optional(args["correlation"].get<int64_t>())
                                                                                : std::nullopt;
        if (cat == "cuda_runtime" || cat == "cuda_driver") {
            if (correlation)
                out.launches.emplace(*correlation, Launch{ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])});
        } else if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
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
